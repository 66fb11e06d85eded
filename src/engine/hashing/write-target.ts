import { posix } from 'node:path';
import { isPlainObject } from '../../util/is-record.js';
import type { Digester } from './digest.js';

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
 * The target a `write` changes, for same-target write churn: its path, normalised (and resolved
 * against an absolute `cwd` parameter when it is relative). `undefined` when the params name no
 * path. OpenClaw resolves against the agent's working directory (or its sandbox); a span
 * processor sees only the call, so a relative path stays relative.
 */
export function writeTargetPath(params: unknown): string | undefined {
  if (!isPlainObject(params)) return undefined;
  const path = writePath(params);
  if (path === undefined) return undefined;
  const cwd = typeof params.cwd === 'string' && params.cwd.startsWith('/') ? params.cwd : '';
  if (cwd !== '') return posix.resolve(cwd, path);
  return isNormalPath(path) ? path : posix.normalize(path);
}

/**
 * The digest of a `write`'s target ({@link writeTargetPath}): its text's, as it is a single
 * string (a value's digest would walk an object built for it, twice the cost). `undefined`
 * when the params name no path. `known`: the digest of the same params' target, when the caller
 * has it (the call's): then only whether there is a target is checked, without normalising the
 * path again. The one place every target digest comes from, so that a call's, its outcome's and
 * a deferred outcome's compare equal.
 */
export function writeTargetHash(digester: Digester, params: unknown, known?: string): string | undefined {
  if (known !== undefined) return isPlainObject(params) && writePath(params) !== undefined ? known : undefined;
  const path = writeTargetPath(params);
  return path === undefined ? undefined : digester.digestText(path);
}
