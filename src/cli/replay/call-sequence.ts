import type { Digester } from '../../engine/hashing/digest.js';
import { genAiAdapter } from '../../spans/adapters/gen-ai.js';
import { trajectoryCallSpan } from '../readers/trajectory.js';
import type { TrajectoryCall } from '../readers/types.js';
import { prepareSpan, type PreparedSpan } from './prepared-span.js';
import type { ReplaySpan, SpanReplayer } from './span-replayer.js';

const TRAJECTORY_ADAPTERS = [genAiAdapter] as const;

/** A sequential run (one call finishes before the next starts), as spans: a root and its tool calls. */
export class CallSequence {
  private readonly root: ReplaySpan;
  readonly calls: ReplaySpan[] = [];

  constructor(readonly runKey: string) {
    this.root = replaySpan(runKey, 'root', { hint: { runId: runKey }, compactionRetry: false }, undefined);
  }

  /**
   * Hashes a trajectory line once, through the span a native GenAI instrumentation would have
   * produced for it and the gen-ai adapter (see `trajectoryCallSpan`), and appends it.
   */
  add(digester: Digester, call: TrajectoryCall): void {
    this.calls.push(this.prepare(digester, call, this.calls.length));
  }

  /** Hashes a trajectory line as {@link add} does, without keeping it (a streamed run). */
  prepare(digester: Digester, call: TrajectoryCall, seq: number): ReplaySpan {
    return replaySpan(
      this.runKey,
      String(seq),
      prepareSpan(TRAJECTORY_ADAPTERS, digester, trajectoryCallSpan(call)),
      call.step,
    );
  }

  /** Opens the run: its root span starts. */
  open(replayer: SpanReplayer): void {
    replayer.start(this.root, undefined, 0);
  }

  /**
   * Replays one call: its span starts (judged when its arguments are known then, recorded
   * unless blocked) and ends (its outcome recorded unless it was blocked, and observed by the
   * guard). Later calls are replayed as recorded: the agent's actual behaviour.
   */
  replay(replayer: SpanReplayer, call: ReplaySpan): void {
    replayer.start(call, this.root, 0);
    replayer.end(call, 0);
  }

  /** Closes the run: its root span ends, which releases it. */
  close(replayer: SpanReplayer): void {
    replayer.end(this.root, 0);
  }

  /** The whole run: open, every call, close. */
  replayAll(replayer: SpanReplayer): void {
    this.open(replayer);
    for (const call of this.calls) this.replay(replayer, call);
    this.close(replayer);
  }
}

function replaySpan(traceId: string, spanId: string, prepared: PreparedSpan, step: number | undefined): ReplaySpan {
  const ids = { traceId, spanId };
  return {
    traceId,
    spanId,
    ...(spanId === 'root' ? {} : { parentSpanId: 'root' }),
    spanContext: () => ids,
    prepared,
    ...(step !== undefined ? { step } : {}),
  };
}
