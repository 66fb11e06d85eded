import { isPlainObject } from '../../util/is-record.js';
import type { Digester } from './digest.js';
import { normalizeUpdatePlanParams } from './update-plan.js';

/** `exec` params without `title`: a label for people, not part of what runs (OpenClaw ignores it). */
function withoutExecTitle(params: unknown): unknown {
  if (!isPlainObject(params) || !Object.hasOwn(params, 'title')) return params;
  const { title: _title, ...rest } = params;
  return rest;
}

/**
 * The args hash: `<toolName>:<digest of the normalised params>` (16 hex digits of xxhash64).
 * `update_plan` params are normalised to their status shape and `exec` params lose `title`;
 * everything else, including non-object params, is digested as is.
 */
export function hashToolArgs(digester: Digester, toolName: string, params: unknown): string {
  let normalised = params;
  if (toolName === 'update_plan') normalised = normalizeUpdatePlanParams(params);
  else if (toolName === 'exec') normalised = withoutExecTitle(params);
  // Joined into one flat string: concatenated, it would be a rope that V8 flattens on the
  // first read of a character (the history parses the digest back from its end), a copy through
  // the runtime costing more than the join does.
  return [toolName, ':', digester.digest(normalised)].join('');
}
