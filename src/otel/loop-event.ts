import type { CompactionLoopPersistedError } from '../engine/errors/compaction-loop-persisted-error.js';
import type { ToolLoopBlockedError } from '../engine/errors/tool-loop-blocked-error.js';
import type { LoopDetectorName, LoopLevel } from '../engine/types.js';

/** Passed to `onLoopEvent` for every emitted warning and every critical (DESIGN §2). */
export interface LoopEvent {
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  readonly count: number;
  readonly message: string;
  readonly toolName: string;
  readonly runId: string;
  readonly agentId?: string;
  readonly warningKey: string;
  readonly pairedToolName?: string;
  readonly traceId: string;
  readonly spanId: string;
}

/** Passed to `onAbort` when the post-compaction guard aborts a run (DESIGN §2). */
export interface LoopAbortEvent {
  readonly code: 'compaction_loop_persisted';
  readonly detector: 'compaction_loop_persisted';
  readonly toolName: string;
  readonly count: number;
  readonly message: string;
  readonly runId: string;
  readonly agentId?: string;
  readonly traceId: string;
  readonly spanId: string;
  readonly error: CompactionLoopPersistedError;
}

/** The verdict the processor reached for a tool span, readable by helpers through {@link getToolLoopVerdict}. */
export interface ToolSpanVerdict {
  readonly level: LoopLevel;
  readonly detector: LoopDetectorName;
  readonly count: number;
  readonly message: string;
  /** Whether this verdict was surfaced (criticals always; warnings unless suppressed). */
  readonly emitted: boolean;
  /** The error a blocked call stands for (criticals only). */
  readonly error?: ToolLoopBlockedError;
}

const verdicts = new WeakMap<object, ToolSpanVerdict>();

/** Records the verdict for a span (used by the processor). */
export function setToolLoopVerdict(span: object, verdict: ToolSpanVerdict): void {
  verdicts.set(span, verdict);
}

/**
 * The verdict the processor reached for `span`, if any: at its start, or at its end for a
 * span whose arguments arrived late. Helpers call it right after starting a tool span to
 * decide whether to run the tool.
 */
export function getToolLoopVerdict(span: object): ToolSpanVerdict | undefined {
  return verdicts.get(span);
}
