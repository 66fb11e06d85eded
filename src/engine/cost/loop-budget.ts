import type { LoopVerdict } from '../types.js';

/**
 * What a detected loop may burn before it is blocked, whatever its count: tokens its run's
 * model calls reported, and wall time, both since the loop's first member call. Absent = no
 * budget of that kind (the default: OpenClaw's count thresholds alone decide).
 */
export interface LoopBudget {
  /** Tokens (`gen_ai.usage.input_tokens` + `output_tokens` of the run's model calls). */
  readonly tokens?: number;
  /** Milliseconds (the run's clock). */
  readonly ms?: number;
}

/** The budget a loop passed. */
export type BudgetKind = 'tokens' | 'time';

/** What a loop has burned so far. */
export interface LoopWaste {
  /** Absent when the run's model calls reported no usage. */
  readonly wastedTokens?: number;
  readonly wastedMs: number;
}

/** The budget `waste` has reached (tokens first), if any. */
export function passedBudget(budget: LoopBudget, waste: LoopWaste): BudgetKind | undefined {
  if (budget.tokens !== undefined && waste.wastedTokens !== undefined && waste.wastedTokens >= budget.tokens)
    return 'tokens';
  if (budget.ms !== undefined && waste.wastedMs >= budget.ms) return 'time';
  return undefined;
}

/** A budget a loop passed: which limit (see {@link passedBudget}), the budget, and what the loop wasted. */
export interface PassedBudget {
  readonly kind: BudgetKind;
  readonly budget: LoopBudget;
  readonly waste: LoopWaste;
}

/**
 * A warning about a call of `toolName` escalated to a critical because its loop passed a budget:
 * the same detector, count and key, and a message that says what was burned.
 */
export function escalatedVerdict(verdict: LoopVerdict, toolName: string, passed: PassedBudget): LoopVerdict {
  const { kind, budget, waste } = passed;
  const burned =
    kind === 'tokens'
      ? `${waste.wastedTokens} tokens, past the budget of ${budget.tokens}`
      : `${waste.wastedMs} ms, past the budget of ${budget.ms} ms`;
  return {
    ...verdict,
    level: 'critical',
    message: `CRITICAL: ${toolName} is in a loop (${verdict.detector}, count ${verdict.count}) that has burned ${burned}. Session execution blocked to prevent resource waste.`,
  };
}
