import { posix } from 'node:path';
import { isPlainObject } from '../../util/is-record.js';

/** The path parameter of a `write` call (OpenClaw's `path`, or `file_path`). */
function writePath(params: Record<string, unknown>): string | undefined {
  const path = params.path ?? params.file_path;
  if (typeof path !== 'string') return undefined;
  // A path led by a visible ASCII character is not blank: no trimmed copy needed to tell.
  const lead = path.charCodeAt(0);
  return (lead > 0x20 && lead < 0x7f) || path.trim() !== '' ? path : undefined;
}

/**
 * Whether `posix.normalize` would return the path as it is: no empty segment (`//`) and no
 * `.` or `..` segment. Most paths are, and normalising one costs a walk that builds a new
 * string segment by segment.
 */
function isNormalPath(path: string): boolean {
  return path.charCodeAt(0) !== 0x2e && !path.includes('//') && !path.includes('/.');
}

/**
 * Whether {@link writeTarget} finds a target in `params`, without building it (no normalising
 * or resolving of the path): for a caller that has the target's digest already.
 */
export function hasWriteTarget(params: unknown): boolean {
  return isPlainObject(params) && writePath(params) !== undefined;
}

/**
 * The target a `write` changes, for same-target write churn: its path, normalised (and resolved
 * against an absolute `cwd` parameter when it is relative), as `{path}` for the digester.
 * `undefined` when the params name no path. OpenClaw resolves against the agent's working
 * directory (or its sandbox); a span processor sees only the call, so a relative path stays relative.
 */
export function writeTarget(params: unknown): { path: string } | undefined {
  if (!isPlainObject(params)) return undefined;
  const path = writePath(params);
  if (path === undefined) return undefined;
  const cwd = typeof params.cwd === 'string' && params.cwd.startsWith('/') ? params.cwd : '';
  if (cwd !== '') return { path: posix.resolve(cwd, path) };
  return { path: isNormalPath(path) ? path : posix.normalize(path) };
}
