import { beforeAll } from 'vitest';
import {
  createDigester,
  describeToolCall,
  hashToolOutcome,
  type Digester,
  type OutcomeHash,
  type ToolCallSignature,
} from '../../src/engine-entry.js';

/** The calls the `LoopRun` tests make, hashed by a real digester created once per test file. */
export interface EngineCalls {
  /** The digester (available once the file's `beforeAll` has run). */
  readonly digester: () => Digester;
  /** `read { path: '/a' }`. */
  readonly read: () => ToolCallSignature;
  /** `grep { pattern: 'p<n>' }`: a different call for each `n`. */
  readonly grep: (n: number) => ToolCallSignature;
  /** The outcome of `read { path: '/a' }` returning `result` (default `'same'`). */
  readonly readResult: (result?: unknown) => OutcomeHash;
}

/** Call at the top of a test file: registers the `beforeAll` that creates the digester. */
export function engineCalls(): EngineCalls {
  let digester: Digester | undefined;
  beforeAll(async () => {
    digester = await createDigester();
  });
  const ready = (): Digester => {
    if (!digester) throw new Error('engineCalls: the digester is created in beforeAll; call it inside a test');
    return digester;
  };
  return {
    digester: ready,
    read: () => describeToolCall(ready(), 'read', { path: '/a' }),
    grep: (n) => describeToolCall(ready(), 'grep', { pattern: `p${n}` }),
    readResult: (result = 'same') => hashToolOutcome(ready(), { toolName: 'read', params: { path: '/a' }, result }),
  };
}
