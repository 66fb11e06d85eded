import type { ReplaySpan } from '../replay/span-replayer.js';

/** The longest run of consecutive calls of one tool with one outcome in a recorded run. */
export interface OutcomeStreak {
  /** 1-based index of its first call (0 when the run has no call). */
  readonly start: number;
  readonly length: number;
}

/**
 * The run's longest streak of consecutive calls of one tool that got the same outcome (the same
 * result hash), whatever their arguments: where a run that hit its limit while repeating began
 * to repeat (AutoCodeRover's invalid-call feedback, a transfer sent a hundred times). The first
 * of equally long streaks.
 */
export function longestOutcomeStreak(calls: readonly ReplaySpan[]): OutcomeStreak {
  let best: OutcomeStreak = { start: 0, length: 0 };
  let start = 0;
  let previous: string | undefined;
  calls.forEach((span, i) => {
    const tool = span.prepared.tool ?? span.prepared.lateTool;
    const outcome = tool ? `${tool.toolName}\u0000${tool.outcome(span).resultHash ?? ''}` : undefined;
    if (outcome === undefined || outcome !== previous) start = i;
    previous = outcome;
    if (outcome !== undefined && i - start + 1 > best.length) best = { start: start + 1, length: i - start + 1 };
  });
  return best;
}
