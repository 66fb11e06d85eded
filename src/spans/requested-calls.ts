import type { ToolResultMessage } from './adapters/adapter.js';
import type { RequestedCall } from './span-reading.js';

/** A call a model asked for, judged as its chat span ended, waiting for its result. */
export interface PendingCall<V> {
  readonly requested: RequestedCall;
  /** Critical when judged: the call must not run, and its outcome is never recorded. */
  readonly vetoed: boolean;
  /** The verdict it was judged with, if any. */
  readonly verdict?: V;
}

/** Calls waiting for a result, per run: beyond it the oldest are forgotten (their results are not recorded). */
const MAX_PENDING = 64;

/**
 * The calls of one run that models asked for in chat spans, from the chat span that asked until
 * their result arrives in a later chat span's input messages or a tool span claims them, and
 * the tools this run has tool spans of.
 *
 * A tool span is the better reading of a call (its result is the tool's own, and it may be judged
 * before the tool runs): a call a chat span asked for is judged as that span ends only for tools
 * the run has shown no tool span of; a tool span that comes for such a call (same call id, or,
 * where ids are missing, the same tool) takes it over, and the call is counted once.
 */
export class RequestedCalls<V> {
  private pending: PendingCall<V>[] = [];
  /** Tools with a tool span in this run (a handful: an array beats a set). */
  private readonly toolSpanTools: string[] = [];

  /** Whether a tool span of `toolName` was seen in this run (then its calls are judged there). */
  hasToolSpans(toolName: string): boolean {
    return this.toolSpanTools.includes(toolName);
  }

  /**
   * A tool span of `toolName` starts (or is recognised as it ends): from now on that tool's calls
   * are judged at its spans. Returns the pending call it stands for, which it takes over: the one
   * with its call id; without an id on either side, the oldest pending call of the tool.
   */
  claim(toolName: string, toolCallId: string | undefined): PendingCall<V> | undefined {
    if (!this.toolSpanTools.includes(toolName)) this.toolSpanTools.push(toolName);
    const { pending } = this;
    let at = -1;
    for (let i = 0; i < pending.length && at < 0; i += 1) {
      const { requested } = pending[i];
      if (requested.toolName !== toolName) continue;
      if (toolCallId === undefined || requested.toolCallId === undefined || requested.toolCallId === toolCallId) at = i;
    }
    if (at < 0) return undefined;
    const [claimed] = pending.splice(at, 1);
    return claimed;
  }

  /** A call a chat span's model asked for, judged: it waits for its result. */
  add(call: PendingCall<V>): void {
    this.pending.push(call);
    if (this.pending.length > MAX_PENDING) this.pending.shift();
  }

  /**
   * The results a chat span sent, each with the pending call it answers (by call id; results
   * without one answer the pending calls without one, in order). Calls without an id that were
   * not answered now never will be (the round they were asked in is over): they are dropped.
   */
  answer(results: readonly ToolResultMessage[]): Array<{ call: PendingCall<V>; result: unknown }> {
    const answered: Array<{ call: PendingCall<V>; result: unknown }> = [];
    for (const { toolCallId, result } of results) {
      const at = this.pending.findIndex((call) => call.requested.toolCallId === toolCallId);
      if (at < 0) continue;
      answered.push({ call: this.pending[at], result });
      this.pending.splice(at, 1);
    }
    this.pending = this.pending.filter((call) => call.requested.toolCallId !== undefined);
    return answered;
  }

  /** Calls waiting for a result. */
  get size(): number {
    return this.pending.length;
  }
}
