import { isPlainObject } from '../../util/is-record.js';

/** The status shape `update_plan` params are hashed as (OpenClaw ignores the plan's wording). */
export interface UpdatePlanShape {
  planLength: number;
  statuses: Array<string | null>;
  stepPresence: boolean[];
  hasExplanation: boolean;
}

function isNonBlankString(value: unknown): boolean {
  return typeof value === 'string' && value.trim() !== '';
}

/**
 * Reduces `update_plan` params to their status shape, so rewording a step or the
 * explanation is not progress while changing a status is: `planLength` (entries of
 * `params.plan`, an empty list when it is missing or not an array), `statuses` (each
 * entry's string `status`, else `null`), `stepPresence` (each entry has a non-blank
 * string `step`) and `hasExplanation` (`params.explanation` is a non-blank string).
 * Entries that are not objects count as status `null` with no step.
 *
 * @returns The {@link UpdatePlanShape}, or `params` unchanged when it is not a plain object.
 */
export function normalizeUpdatePlanParams(params: unknown): unknown {
  if (!isPlainObject(params)) return params;
  const plan: readonly unknown[] = Array.isArray(params.plan) ? params.plan : [];
  const entries = Array.from(plan, (entry) =>
    typeof entry === 'object' && entry !== null ? (entry as Record<string, unknown>) : undefined,
  );
  const shape: UpdatePlanShape = {
    planLength: plan.length,
    statuses: entries.map((entry) => (typeof entry?.status === 'string' ? entry.status : null)),
    stepPresence: entries.map((entry) => isNonBlankString(entry?.step)),
    hasExplanation: isNonBlankString(params.explanation),
  };
  return shape;
}
