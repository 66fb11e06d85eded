/**
 * A recorded span is judged offline (analyze, serve) on the same call the processor judged
 * live: what the helpers wrote beside a pre-computed args hash comes through.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { createDigester, type Digester } from '../../../src/engine-entry.js';
import * as sc from '../../../src/semconv.js';
import { DEFAULT_ADAPTERS } from '../../../src/spans/adapters/index.js';
import { prepareSpan, type PreparedToolCall } from '../../../src/cli/replay/prepared-span.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const recorded = (attributes: Record<string, unknown>) => {
  const ids = { traceId: 'trace-1', spanId: 'span-1' };
  const view = { name: 'execute_tool write', attributes, status: { code: 0 }, spanContext: () => ids };
  return prepareSpan(DEFAULT_ADAPTERS, digester, view).tool as PreparedToolCall | undefined;
};

describe('prepareSpan', () => {
  it("keeps a pre-hashed call's write target and failure family, as the processor reads them", () => {
    const prepared = recorded({
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'write',
      [sc.ATTR_TOOL_LOOP_ARGS_HASH]: 'abc123',
      [sc.ATTR_TOOL_LOOP_MUTATION_TARGET_HASH]: 'target-1',
      [sc.ATTR_TOOL_LOOP_FAILURE_FAMILY]: 'tool_call:inner',
    });
    expect(prepared?.atStart).toBe(true);
    expect(prepared?.call).toMatchObject({
      toolName: 'write',
      argsHash: 'abc123',
      mutationTargetHash: 'target-1',
      failureFamily: 'tool_call:inner',
    });
  });

  it('reads a pre-hashed call without facts as its hash alone', () => {
    const prepared = recorded({ [sc.ATTR_GEN_AI_TOOL_NAME]: 'write', [sc.ATTR_TOOL_LOOP_ARGS_HASH]: 'abc123' });
    expect(prepared?.call).toEqual({ toolName: 'write', argsHash: 'abc123', knownPoll: false });
  });
});
