import type { Digester } from './digest.js';
import { normalizeUpdatePlanParams } from './update-plan.js';

/**
 * The args hash: `<toolName>:<digest of the normalised params>` (16 hex
 * digits of xxhash64). Only `update_plan` params are normalised (to their status shape);
 * everything else, including non-object params, is digested as is.
 */
export function hashToolArgs(digester: Digester, toolName: string, params: unknown): string {
  const normalised = toolName === 'update_plan' ? normalizeUpdatePlanParams(params) : params;
  return `${toolName}:${digester.digest(normalised)}`;
}
