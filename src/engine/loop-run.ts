import type { ResolvedLoopDetectionConfig } from '../config/types.js';
import type { EngineLogger } from './logger.js';
import { LoopSession, type LoopCheck } from './loop-session.js';
import type { OutcomeHash } from './outcome-hash.js';
import { PostCompactionGuard, type GuardVerdict } from './post-compaction-guard.js';
import type { ToolCallSignature } from './types.js';

/** A guard verdict that aborts the run. */
export type GuardAbort = Extract<GuardVerdict, { shouldAbort: true }>;

/**
 * One run's detection state — the rolling history ({@link LoopSession}) and the
 * post-compaction guard — driven in OpenClaw's order: judge a call before it runs and record
 * it unless blocked; record its hashed outcome (never a blocked call's) and let the guard
 * observe it; arm the guard on a compaction-retry. The span processor and the offline
 * analyzer both drive runs through this class.
 */
export class LoopRun {
  readonly session: LoopSession;
  private guard?: PostCompactionGuard;
  private readonly logger?: EngineLogger;

  constructor(options: { logger?: EngineLogger; now?: () => number } = {}) {
    this.session = new LoopSession(options);
    this.logger = options.logger;
  }

  /** Checks a call and records it unless the verdict blocks it. */
  judge(call: ToolCallSignature, toolCallId: string | undefined, config: ResolvedLoopDetectionConfig): LoopCheck {
    const check = this.session.check(call, config);
    if (!check.blocked) {
      this.session.recordCall({ toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: call.runId }, config);
    }
    return check;
  }

  /**
   * Records the outcome of a call that ran and lets the guard observe it. Returns the guard's
   * abort verdict when this outcome completes a window of identical triples. A call without
   * an outcome hash (undefined result, own loop veto) is neither recorded nor observed.
   */
  complete(call: ToolCallSignature, toolCallId: string | undefined, outcome: OutcomeHash, config: ResolvedLoopDetectionConfig): GuardAbort | undefined {
    if (outcome.resultHash === undefined) return undefined;
    this.session.recordOutcome(
      { toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: call.runId, resultHash: outcome.resultHash, unknownToolName: outcome.unknownToolName },
      config,
    );
    const verdict = this.guardOf(config).observe({ toolName: call.toolName, argsHash: call.argsHash, resultHash: outcome.resultHash });
    return verdict.shouldAbort ? verdict : undefined;
  }

  /** (Re-)arms the post-compaction guard; returns it so callers can tell whether it is enabled. */
  arm(config: ResolvedLoopDetectionConfig): PostCompactionGuard {
    const guard = this.guardOf(config);
    guard.arm();
    return guard;
  }

  /** The guard is created with the config of the first span that needs it. */
  private guardOf(config: ResolvedLoopDetectionConfig): PostCompactionGuard {
    this.guard ??= new PostCompactionGuard({ ...config.postCompactionGuard, logger: this.logger });
    return this.guard;
  }
}
