import type { ResolvedLoopDetectionConfig } from '../config/types.js';
import { detectToolCallLoop } from './detectors/detect.js';
import { ToolCallHistory, normalizeRunId, type HashedOutcome, type PendingCall } from './history/tool-call-history.js';
import { silentLogger, type EngineLogger } from '../util/logger.js';
import type { LoopVerdict, ToolCallRecord, ToolCallSignature } from './types.js';
import { WarningSuppression } from './warning-suppression.js';

/** The answer to "may this call run?" */
export interface LoopCheck {
  /** The detector verdict, when one matched (suppressed warnings included). */
  readonly verdict?: LoopVerdict;
  /** Whether the verdict is to be surfaced: every critical, and warnings that pass suppression. */
  readonly emit: boolean;
  /** True for a critical verdict: the call must not run and is not recorded (unless it was judged after it ran, see `LoopRun.judge`). */
  readonly blocked: boolean;
}

const NOTHING: LoopCheck = Object.freeze({ emit: false, blocked: false });

/**
 * One diagnostic session (spec §b, §e): the shared tool-call history, warning suppression,
 * and the before-tool-call flow — check, then record unless blocked, then record the outcome.
 * Framework-free; the span processor keeps one per run scope, the CLI one per recorded run.
 */
export class LoopSession {
  readonly history: ToolCallHistory;
  /** Created with the first warning verdict: most runs never have one. */
  private suppression: WarningSuppression | undefined = undefined;
  protected readonly logger: EngineLogger;

  constructor(options: { logger?: EngineLogger; now?: () => number } = {}) {
    this.logger = options.logger ?? silentLogger;
    this.history = new ToolCallHistory({ now: options.now });
  }

  /**
   * Detects a loop for the call about to run (before it is recorded), writes the detector's
   * and the hook's log lines, and applies warning suppression.
   */
  check(call: ToolCallSignature, config: ResolvedLoopDetectionConfig): LoopCheck {
    const finding = detectToolCallLoop(this.history.view(call.runId), call, config);
    if (!finding) return NOTHING;
    const { verdict, log } = finding;
    if (log) this.logger[log.level](log.message);
    if (verdict.level === 'critical') {
      this.logger.error(`Blocking ${call.toolName} due to critical loop: ${verdict.message}`);
      return { verdict, emit: true, blocked: true };
    }
    this.suppression ??= new WarningSuppression();
    const emit = this.suppression.shouldEmit(verdict, config.warningThreshold, normalizeRunId(call.runId));
    if (emit) this.logger.warn(`Loop warning for ${call.toolName}: ${verdict.message}`);
    return { verdict, emit, blocked: false };
  }

  /**
   * Records a call that was allowed to run. Skipped when `enabled` is explicitly `false`
   * (then neither the detectors nor the post-compaction guard use the history).
   */
  recordCall(call: PendingCall, config: ResolvedLoopDetectionConfig): void {
    if (!config.trackHistory) return;
    this.history.recordCall(call, config.historySize);
  }

  /** Attaches a hashed outcome to its pending record (or appends one). */
  recordOutcome(outcome: HashedOutcome, config: ResolvedLoopDetectionConfig): ToolCallRecord | undefined {
    if (!config.trackHistory) return undefined;
    return this.history.recordOutcome(outcome, config.historySize);
  }
}
