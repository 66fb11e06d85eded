import type { ResolvedLoopDetectionConfig } from '../config/types.js';
import { LoopSession, type LoopCheck } from './loop-session.js';
import type { OutcomeHash } from './hashing/outcome-hash.js';
import { PostCompactionGuard, type GuardVerdict } from './post-compaction-guard.js';
import type { ToolCallSignature } from './types.js';

/** A guard verdict that aborts the run. */
export type GuardAbort = Extract<GuardVerdict, { shouldAbort: true }>;

/**
 * One run's detection state — the rolling history (the {@link LoopSession} it extends) and
 * the post-compaction guard — driven in OpenClaw's order: judge a call before it runs and
 * record it unless blocked; record its hashed outcome (never a blocked call's) and let the
 * guard observe it; arm the guard on a compaction-retry. The span processor and the offline
 * analyzer both drive runs through this class. (A subclass rather than a wrapper: the
 * processor holds one per live run, and one object less per run counts; docs/performance.md.)
 */
export class LoopRun extends LoopSession {
  /** Created when the run is first armed: an unarmed guard observes nothing. */
  private guard?: PostCompactionGuard = undefined;
  /** The config of the run's first hashed outcome; the guard is built with it when the run is first armed. */
  private guardConfig?: ResolvedLoopDetectionConfig = undefined;

  /**
   * Checks a call and records it unless the verdict blocks it. A call judged only after it
   * ran (`alreadyRan`: arguments known only at its end) cannot be vetoed: it is recorded
   * whatever the verdict, so its outcome counts (DESIGN §3: detect, annotate, abort — not block).
   */
  judge(call: ToolCallSignature, toolCallId: string | undefined, config: ResolvedLoopDetectionConfig, alreadyRan = false): LoopCheck {
    const check = this.check(call, config);
    if (!check.blocked || alreadyRan) {
      this.recordCall({ toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: call.runId }, config);
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
    this.recordOutcome(
      { toolName: call.toolName, argsHash: call.argsHash, toolCallId, runId: call.runId, resultHash: outcome.resultHash, unknownToolName: outcome.unknownToolName },
      config,
    );
    this.guardConfig ??= config;
    const verdict = this.guard?.observe({ toolName: call.toolName, argsHash: call.argsHash, resultHash: outcome.resultHash });
    return verdict?.shouldAbort ? verdict : undefined;
  }

  /** (Re-)arms the post-compaction guard; returns it so callers can tell whether it is enabled. */
  arm(config: ResolvedLoopDetectionConfig): PostCompactionGuard {
    this.guardConfig ??= config;
    this.guard ??= new PostCompactionGuard({ ...this.guardConfig.postCompactionGuard, logger: this.logger });
    this.guard.arm();
    return this.guard;
  }
}
