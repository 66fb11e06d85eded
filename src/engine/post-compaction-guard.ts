import { silentLogger, type EngineLogger } from '../util/logger.js';
import { COMPACTION_LOOP_PERSISTED_CODE } from './errors/compaction-loop-persisted-error.js';
import type { ToolCallSignature } from './types.js';

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

/** The guard's answer to an observation. */
export type GuardVerdict =
  | { readonly shouldAbort: false; readonly armed: boolean; readonly remaining: number }
  | {
      readonly shouldAbort: true;
      readonly armed: boolean;
      readonly remaining: number;
      readonly detector: typeof COMPACTION_LOOP_PERSISTED_CODE;
      readonly count: number;
      readonly toolName: string;
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
 * window makes an abort impossible until the next re-arm.
 */
export class PostCompactionGuard {
  private remaining = 0;
  private history: Observation[] = [];
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

  /** Arms (or re-arms) the guard for a fresh window of `windowSize` observations. */
  arm(): void {
    this.remaining = this.windowSize;
    this.history = [];
    if (this.enabled) this.logger.info(guardArmedMessage(this.windowSize));
  }

  /** Judges one hashed outcome of a call (OpenClaw's `observe`). */
  observe(call: Pick<ToolCallSignature, 'toolName' | 'argsHash'>, resultHash: string): GuardVerdict {
    if (!this.enabled || this.remaining <= 0) return DORMANT;
    this.remaining -= 1;
    this.history.push({ toolName: call.toolName, argsHash: call.argsHash, resultHash });
    const armed = this.remaining > 0;
    let matches = 0;
    for (const seen of this.history) {
      if (seen.toolName === call.toolName && seen.argsHash === call.argsHash && seen.resultHash === resultHash)
        matches += 1;
    }
    if (matches < this.windowSize) return { shouldAbort: false, armed, remaining: this.remaining };
    this.logger.error(
      `post-compaction loop persisted: tool=${call.toolName} repeated ${matches} times with identical args+result post-compaction`,
    );
    return {
      shouldAbort: true,
      armed,
      remaining: this.remaining,
      detector: COMPACTION_LOOP_PERSISTED_CODE,
      count: matches,
      toolName: call.toolName,
      message: `CRITICAL: tool ${call.toolName} repeated ${matches} times with identical arguments and identical results within ${this.windowSize} attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.`,
    };
  }
}
