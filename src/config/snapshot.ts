import type { ConfigIssue } from './config-issue.js';

/** What {@link snapshotConfig} returns: a plain copy, and the values that could not be read. */
export interface ConfigSnapshot {
  /** Primitives as given; objects and arrays copied (objects without a prototype). */
  readonly value: unknown;
  /** One warning per value that could not be read (it is left out of the copy). */
  readonly issues: readonly ConfigIssue[];
}

/** Deeper than any key of the config shape: what lies below is never read, so it is not copied. */
const MAX_DEPTH = 8;

/**
 * Copies a config value into plain data before anything reads it: own enumerable string keys
 * only (a key inherited through `Object.prototype`, say a polluted `enabled`, is not there),
 * each read once. A getter or Proxy trap that throws becomes a warning naming the key path and
 * leaves that key out, so the readable rest still applies. The copies have no prototype, so
 * later reads of an absent key find nothing. `depth` levels are copied (1: the object's own
 * keys, their values as they are). Never throws.
 */
export function snapshotConfig(value: unknown, path = '(root)', depth = MAX_DEPTH): ConfigSnapshot {
  const issues: ConfigIssue[] = [];
  return { value: copy(value, path, MAX_DEPTH - Math.min(depth, MAX_DEPTH), issues), issues };
}

function copy(value: unknown, path: string, depth: number, issues: ConfigIssue[]): unknown {
  if (typeof value !== 'object' || value === null || depth >= MAX_DEPTH) return value;
  try {
    if (Array.isArray(value)) {
      const length = ownValue(value, 'length');
      const items: unknown[] = [];
      for (let index = 0; index < (typeof length === 'number' ? length : 0); index += 1) {
        const at = `${path}[${index}]`;
        items.push(readOwn(value, String(index), at, depth, issues));
      }
      return items;
    }
    const record = Object.create(null) as Record<string, unknown>;
    for (const key of Reflect.ownKeys(value)) {
      if (typeof key !== 'string') continue;
      const at = path.startsWith('(') ? key : `${path}.${key}`;
      const descriptor = describeOwn(value, key, at, issues);
      if (!descriptor?.enumerable) continue;
      const item = readDescriptor(value, descriptor, at, issues);
      if (item.readable)
        Object.defineProperty(record, key, {
          value: copy(item.value, at, depth + 1, issues),
          enumerable: true,
          writable: true,
          configurable: true,
        });
    }
    return record;
  } catch (error) {
    issues.push(unreadable(path, error));
    return undefined;
  }
}

function readOwn(target: object, key: string, path: string, depth: number, issues: ConfigIssue[]): unknown {
  const descriptor = describeOwn(target, key, path, issues);
  if (!descriptor) return undefined;
  const item = readDescriptor(target, descriptor, path, issues);
  return item.readable ? copy(item.value, path, depth + 1, issues) : undefined;
}

function describeOwn(target: object, key: string, path: string, issues: ConfigIssue[]): PropertyDescriptor | undefined {
  try {
    return Object.getOwnPropertyDescriptor(target, key);
  } catch (error) {
    issues.push(unreadable(path, error));
    return undefined;
  }
}

function readDescriptor(
  target: object,
  descriptor: PropertyDescriptor,
  path: string,
  issues: ConfigIssue[],
): { readable: boolean; value?: unknown } {
  if (!descriptor.get) return { readable: true, value: descriptor.value };
  try {
    return { readable: true, value: descriptor.get.call(target) };
  } catch (error) {
    issues.push(unreadable(path, error));
    return { readable: false };
  }
}

function ownValue(target: object, key: string): unknown {
  return Object.getOwnPropertyDescriptor(target, key)?.value;
}

function unreadable(path: string, error: unknown): ConfigIssue {
  return { path, message: `could not be read (${errorText(error)}); ignored`, severity: 'warning' };
}

function errorText(error: unknown): string {
  try {
    const text = error instanceof Error ? error.message : String(error);
    return text.length > 120 ? `${text.slice(0, 120)}…` : text;
  } catch {
    return 'unprintable error';
  }
}
