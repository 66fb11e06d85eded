import { posix } from 'node:path';
import { isPlainObject } from '../../util/is-record.js';

/** The path parameter of a `write` call (OpenClaw's `path`, or `file_path`). */
function writePath(params: unknown): string | undefined {
  if (!isPlainObject(params)) return undefined;
  const path = params.path ?? params.file_path;
  return typeof path === 'string' && path.trim() !== '' ? path : undefined;
}

/**
 * The target a `write` changes, for same-target write churn: its path, normalised (and resolved
 * against an absolute `cwd` parameter when it is relative), as `{path}` for the digester.
 * `undefined` when the params name no path. OpenClaw resolves against the agent's working
 * directory (or its sandbox); a span processor sees only the call, so a relative path stays relative.
 */
export function writeTarget(params: unknown): { path: string } | undefined {
  const path = writePath(params);
  if (path === undefined) return undefined;
  const cwd = isPlainObject(params) && typeof params.cwd === 'string' && params.cwd.startsWith('/') ? params.cwd : '';
  return { path: cwd !== '' ? posix.resolve(cwd, path) : posix.normalize(path) };
}
