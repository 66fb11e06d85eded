import { isPlainObject } from '../../util/is-record.js';
import type { ResultFields } from '../types.js';

/** Leaf fields kept per result: a larger structure gets none (it is compared by its hash only). */
export const MAX_RESULT_FIELDS = 64;
/** Deepest path followed. */
const MAX_DEPTH = 6;
/** A longer string leaf makes the structure a document, not a record of fields: none are kept. */
const MAX_LEAF_CHARS = 4096;

function digestLeaf(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i += 1) h = Math.imul(h ^ value.charCodeAt(i), 0x01000193);
  return (h >>> 1) & 0x3fffffff;
}

function leafText(value: unknown): string | undefined {
  switch (typeof value) {
    case 'string':
      return value.length > MAX_LEAF_CHARS ? undefined : `s:${value}`;
    case 'number':
    case 'boolean':
    case 'bigint':
      return `${typeof value}:${String(value)}`;
    default:
      return value === null ? 'null' : undefined;
  }
}

/**
 * The leaf fields of a small structured result (plain objects and arrays, keys in sorted
 * order): each JSON path with a 30-bit digest of its value, and a text of `path value` lines
 * to sketch. `undefined` for a value that is no object or array, one with more than
 * {@link MAX_RESULT_FIELDS} leaves, deeper than 6 levels, or holding a long string or another
 * kind of value. `prefix` names the value's own path (`details` for OpenClaw's details).
 */
export function resultFields(value: unknown, prefix = ''): { fields: ResultFields; text: string } | undefined {
  if (!isPlainObject(value) && !Array.isArray(value)) return undefined;
  const paths: string[] = [];
  const values: number[] = [];
  const lines: string[] = [];
  const walk = (node: unknown, path: string, depth: number): boolean => {
    if (isPlainObject(node) || Array.isArray(node)) {
      if (depth >= MAX_DEPTH) return false;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i += 1) if (!walk(node[i], `${path}[${i}]`, depth + 1)) return false;
        return true;
      }
      for (const key of Object.keys(node).sort()) {
        if (!walk(node[key], path === '' ? key : `${path}.${key}`, depth + 1)) return false;
      }
      return true;
    }
    const text = leafText(node);
    if (text === undefined || paths.length >= MAX_RESULT_FIELDS) return false;
    paths.push(path);
    values.push(digestLeaf(text));
    lines.push(`${path} ${text}`);
    return true;
  };
  if (!walk(value, prefix, 0) || paths.length === 0) return undefined;
  return { fields: Object.freeze({ paths, values }), text: lines.join('\n') };
}
