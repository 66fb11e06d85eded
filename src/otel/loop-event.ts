import type { CompactionLoopPersistedError } from '../engine/errors/compaction-loop-persisted-error.js';
import type { ToolLoopBlockedError } from '../engine/errors/tool-loop-blocked-error.js';
import type { LoopDetectorName, LoopLevel } from '../engine/types.js';

/** Passed to `onLoopEvent` for every emitted warning and every critical. */
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
  /** Tokens the run's model calls reported since the loop's first member call (absent: no usage reported). */
  readonly wastedTokens?: number;
  /** Ms since the loop's first member call. */
  readonly wastedMs?: number;
  /** The budget (`budgetTokens` / `budgetMs`) whose passing made this a critical. */
  readonly budgetExceeded?: 'tokens' | 'time';
}

/** Passed to `onAbort` when the post-compaction guard aborts a run. */
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

/**
 * Where a span carries its verdict: a property under a symbol, set by the processor that saw
 * the span start. The verdict travels with the span object, so two processors on two providers
 * never see each other's verdicts, and a span that is dropped takes its verdict with it.
 */
const VERDICT = Symbol('tool-loop-guard.verdict');

/** Records the verdict on a span (the processor's side of {@link getToolLoopVerdict}). */
export function recordToolLoopVerdict(span: object, verdict: ToolSpanVerdict): void {
  // A frozen span object cannot carry one: its helpers then see no verdict, as without a processor.
  if (Object.isExtensible(span))
    Object.defineProperty(span, VERDICT, { value: verdict, configurable: true, writable: true, enumerable: false });
}

/**
 * The verdict the processor reached for `span`, if any: at its start, or at its end for a
 * span whose arguments arrived late. Helpers call it right after starting a tool span to
 * decide whether to run the tool.
 */
export function getToolLoopVerdict(span: object): ToolSpanVerdict | undefined {
  return (span as { [VERDICT]?: ToolSpanVerdict })[VERDICT];
}
