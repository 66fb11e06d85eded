import { silentLogger, type EngineLogger } from '../util/logger.js';
import { COMPACTION_LOOP_PERSISTED_CODE } from './errors/compaction-loop-persisted-error.js';
import { signatureKey } from './history/signature-key.js';
import type { ToolCallSignature } from './types.js';

/** Hashed outcomes before a compaction that the guard remembers, newest first (OpenClaw's 16). */
export const PRE_COMPACTION_BASELINE = 16;

/** One hashed tool outcome in the guard's window. */
interface Observation {
  readonly toolName: string;
  readonly argsHash: string;
  readonly resultHash: string;
}

/** OpenClaw's log line when the guard is armed, also the message of the `tool_loop.guard_armed` event. */
export function guardArmedMessage(windowSize: number): string {
  return `post-compaction guard armed for ${windowSize} attempts`;
}

/**
 * What a post-compaction window showed when it closed: how many calls it observed, and how many
 * of them repeated a (tool, args) signature seen among the last 16 hashed outcomes before the
 * compaction, by which tools (sorted, distinct).
 */
export interface GuardWindowSummary {
  readonly toolCalls: number;
  readonly preCompactionRepeats: number;
  readonly repeatedTools: readonly string[];
}

/** OpenClaw's log line when a window closes without an abort. */
export function guardWindowClosedMessage(summary: GuardWindowSummary): string {
  const tools = summary.preCompactionRepeats > 0 ? ` tools=${summary.repeatedTools.join(',')}` : '';
  return `post-compaction window closed: toolCalls=${summary.toolCalls} preCompactionRepeats=${summary.preCompactionRepeats}${tools}`;
}

/** The guard's answer to an observation. */
export type GuardVerdict =
  | {
      readonly shouldAbort: false;
      readonly armed: boolean;
      readonly remaining: number;
      /** Present on the observation that closed the window. */
      readonly windowClosed?: GuardWindowSummary;
    }
  | {
      readonly shouldAbort: true;
      readonly armed: boolean;
      readonly remaining: number;
      /** Calls of the window so far that repeated a pre-compaction (tool, args) signature. */
      readonly preCompactionRepeats: number;
      readonly detector: typeof COMPACTION_LOOP_PERSISTED_CODE;
      readonly count: number;
      readonly toolName: string;
      /** The args hash of the repeated call: its records are the loop's members. */
      readonly argsHash: string;
      readonly message: string;
    };

/** Guard settings: on unless `enabled` is `false`; window of 3 by default. */
export interface PostCompactionGuardOptions {
  readonly enabled: boolean;
  readonly windowSize: number;
  readonly logger?: EngineLogger;
}

const DORMANT: GuardVerdict = Object.freeze({ shouldAbort: false, armed: false, remaining: 0 });

/**
 * OpenClaw's post-compaction guard. After each compaction-retry it is armed for
 * `windowSize` observations; it aborts on the observation that completes a window in which
 * every observation is the same (tool, args, result) triple. Any other observation in the
 * window makes an abort impossible until the next re-arm. It also counts the window's calls
 * that repeat a (tool, args) signature of the outcomes before the compaction (OpenClaw's
 * `preCompactionRepeats`), and reports them when the window closes.
 */
export class PostCompactionGuard {
  private remaining = 0;
  private history: Observation[] = [];
  private baseline: ReadonlySet<string> = new Set();
  private repeats = 0;
  private repeatedTools = new Set<string>();
  readonly enabled: boolean;
  readonly windowSize: number;
  private readonly logger: EngineLogger;

  constructor(options: PostCompactionGuardOptions) {
    this.enabled = options.enabled;
    this.windowSize = options.windowSize;
    this.logger = options.logger ?? silentLogger;
  }

  /** Whether observations are currently being judged. */
  get armed(): boolean {
    return this.enabled && this.remaining > 0;
  }

  /** Observations left in the current window. */
  get remainingAttempts(): number {
    return this.remaining;
  }

  /**
   * Arms (or re-arms) the guard for a fresh window of `windowSize` observations. `baseline`:
   * the (tool, args) signature keys of the outcomes before the compaction (see `signatureKey`).
   */
  arm(baseline: ReadonlySet<string> = new Set()): void {
    this.remaining = this.windowSize;
    this.history = [];
    this.baseline = baseline;
    this.repeats = 0;
    this.repeatedTools = new Set();
    if (this.enabled) this.logger.info(guardArmedMessage(this.windowSize));
  }

  /** Judges one hashed outcome of a call (OpenClaw's `observe`). */
  observe(call: Pick<ToolCallSignature, 'toolName' | 'argsHash'>, resultHash: string): GuardVerdict {
    if (!this.enabled || this.remaining <= 0) return DORMANT;
    this.remaining -= 1;
    this.history.push({ toolName: call.toolName, argsHash: call.argsHash, resultHash });
    const armed = this.remaining > 0;
    if (this.baseline.has(signatureKey(call.toolName, call.argsHash))) {
      this.repeats += 1;
      this.repeatedTools.add(call.toolName);
    }
    let matches = 0;
    for (const seen of this.history) {
      if (seen.toolName === call.toolName && seen.argsHash === call.argsHash && seen.resultHash === resultHash)
        matches += 1;
    }
    if (matches < this.windowSize) {
      if (armed) return { shouldAbort: false, armed, remaining: this.remaining };
      const windowClosed: GuardWindowSummary = {
        toolCalls: this.history.length,
        preCompactionRepeats: this.repeats,
        repeatedTools: [...this.repeatedTools].sort(),
      };
      this.logger.info(guardWindowClosedMessage(windowClosed));
      return { shouldAbort: false, armed, remaining: this.remaining, windowClosed };
    }
    this.logger.error(
      `post-compaction loop persisted: tool=${call.toolName} repeated ${matches} times with identical args+result post-compaction`,
    );
    return {
      shouldAbort: true,
      armed,
      remaining: this.remaining,
      preCompactionRepeats: this.repeats,
      detector: COMPACTION_LOOP_PERSISTED_CODE,
      count: matches,
      toolName: call.toolName,
      argsHash: call.argsHash,
      message: `CRITICAL: tool ${call.toolName} repeated ${matches} times with identical arguments and identical results within ${this.windowSize} attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.`,
    };
  }
}
