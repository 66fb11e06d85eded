/**
 * SECURITY.md: the helpers (`traceToolCall`) hash with the digester of the most recently
 * created processor, so that the hashes they write agree with the ones that processor computes
 * from raw attributes. With two processors of different seeds, the newer one's seed is used.
 *
 * The shared digester is module state: each test creates its own processors in order, and the
 * last `ToolLoopSpanProcessor.create` before a `traceToolCall` decides the seed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDigester, hashToolArgs } from '../../src/engine/index.js';
import { ToolLoopSpanProcessor, traceRun, traceToolCall } from '../../src/index.js';
import { createOtelHarness, resetOtelGlobals, sc, startRunSpan, toolCall } from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

const ARGS = { path: '/etc/app.conf', token: 'abc' };
const CONFIG = { tools: { loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 3 } } };

async function argsHashWithSeed(seed: bigint): Promise<string> {
  return hashToolArgs(await createDigester({ seed }), 'read', ARGS);
}

/** The `tool_loop.args_hash` that traceToolCall writes for `read(ARGS)` on a span of `h`'s provider. */
async function helperArgsHash(h: Awaited<ReturnType<typeof createOtelHarness>>): Promise<string> {
  await traceToolCall(h.tracer, { name: 'read', args: ARGS }, () => 'ok');
  const span = h.finished().at(-1)!;
  expect(span.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('read');
  return span.attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH] as string;
}

describe('traceToolCall hashes with the most recently created processor’s digester', () => {
  it('the three seeds used below give three different hashes (so the assertions can tell them apart)', async () => {
    expect(new Set([await argsHashWithSeed(0n), await argsHashWithSeed(1n), await argsHashWithSeed(2n)]).size).toBe(3);
  });

  it('processor A (seed 1) then B (seed 2): the helper writes B’s hash, whichever provider it traces through', async () => {
    const a = await createOtelHarness({ config: CONFIG, hashSeed: 1 });
    const b = await createOtelHarness({ config: CONFIG, hashSeed: 2 });
    const [seed1, seed2] = [await argsHashWithSeed(1n), await argsHashWithSeed(2n)];

    const throughA = await helperArgsHash(a);
    const throughB = await helperArgsHash(b);
    expect(throughA).toBe(seed2);
    expect(throughB).toBe(seed2);
    expect(throughA).not.toBe(seed1);
    await a.shutdown();
    await b.shutdown();
  });

  it('creating A again afterwards (seed 1) makes the helper switch to seed 1', async () => {
    await createOtelHarness({ config: CONFIG, hashSeed: 2 });
    const latest = await createOtelHarness({ config: CONFIG, hashSeed: 1 });
    expect(await helperArgsHash(latest)).toBe(await argsHashWithSeed(1n));
  });

  it('a processor created without a provider still counts as the most recent one', async () => {
    const h = await createOtelHarness({ config: CONFIG, hashSeed: 1 });
    await ToolLoopSpanProcessor.create({ config: CONFIG, hashSeed: 2 }); // registered nowhere
    expect(await helperArgsHash(h)).toBe(await argsHashWithSeed(2n));
  });

  it('the helper’s hash matches the newest processor’s own hash of the raw arguments (same warning key)', async () => {
    const h = await createOtelHarness({ config: CONFIG, hashSeed: 2, contextManager: true });
    // Helper spans: hashed by traceToolCall; the processor uses the pre-computed hash.
    await traceRun(h.tracer, { runId: 'helper-run' }, async () => {
      for (let i = 0; i < 3; i += 1) await traceToolCall(h.tracer, { name: 'read', args: ARGS }, () => 'ok');
    });
    // Raw spans: the processor hashes gen_ai.tool.call.arguments itself, with its seed.
    const root = startRunSpan(h.tracer, { runId: 'raw-run' });
    for (let i = 0; i < 3; i += 1) toolCall(h.tracer, { tool: 'read', args: ARGS, parent: root }, { result: 'ok' });
    root.end();
    const keys = h.loopEvents.map((event) => [event.runId, event.warningKey]);
    const expected = `generic:read:${await argsHashWithSeed(2n)}`;
    expect(keys).toEqual([
      ['helper-run', expected],
      ['raw-run', expected],
    ]);
  });
});
