/**
 * The helpers reach the processor that sees their spans start, never module state: the hashes
 * `traceToolCall` writes are that processor's (its seed), and a loop in one provider's processor
 * aborts only the `traceRun` calls whose root spans that processor saw — even when another
 * provider in the same process runs a run with the same run id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createDigester, hashToolArgs } from '../../src/engine-entry.js';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  toolLoopSystemNote,
  traceRun,
  traceToolCall,
} from '../../src/index.js';
import {
  createOtelHarness,
  R,
  resetOtelGlobals,
  sc,
  startRunSpan,
  toolCall,
  type OtelHarness,
  W2_C3,
} from '../helpers/otel-harness.js';

afterEach(() => {
  resetOtelGlobals();
});

const ARGS = { path: '/etc/app.conf', token: 'abc' };

async function argsHashWithSeed(seed: bigint): Promise<string> {
  return hashToolArgs(await createDigester({ seed }), 'read', ARGS);
}

/** The `tool_loop.args_hash` that traceToolCall writes for `read(ARGS)` on a span of `h`'s provider. */
async function helperArgsHash(h: OtelHarness): Promise<string> {
  await traceToolCall(h.tracer, { name: 'read', args: ARGS }, () => 'ok');
  const span = h.finished().at(-1)!;
  expect(span.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('read');
  return span.attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH] as string;
}

describe('traceToolCall hashes with the digester of the processor that sees its span', () => {
  it('the three seeds used below give three different hashes (so the assertions can tell them apart)', async () => {
    expect(new Set([await argsHashWithSeed(0n), await argsHashWithSeed(1n), await argsHashWithSeed(2n)]).size).toBe(3);
  });

  it('processor A (seed 1) and B (seed 2): through A the helper writes seed 1’s hash, through B seed 2’s, in any order', async () => {
    const a = await createOtelHarness({ config: W2_C3, hashSeed: 1 });
    const b = await createOtelHarness({ config: W2_C3, hashSeed: 2 });
    const [seed1, seed2] = [await argsHashWithSeed(1n), await argsHashWithSeed(2n)];
    expect(await helperArgsHash(a)).toBe(seed1);
    expect(await helperArgsHash(b)).toBe(seed2);
    expect(await helperArgsHash(a)).toBe(seed1);
    await a.shutdown();
    await b.shutdown();
  });

  it('without a processor on the provider the helper runs the tool and writes no hashes', async () => {
    const { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } =
      await import('@opentelemetry/sdk-trace-base');
    const exporter = new InMemorySpanExporter();
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    expect(await traceToolCall(provider.getTracer('t'), { name: 'read', args: ARGS }, () => 'ran')).toBe('ran');
    const [span] = exporter.getFinishedSpans();
    expect(span.attributes[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('read');
    expect(span.attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH]).toBeUndefined();
    expect(span.attributes[sc.ATTR_TOOL_LOOP_RESULT_HASH]).toBeUndefined();
  });

  it('the helper’s hash matches its processor’s own hash of the raw arguments (same warning key)', async () => {
    const h = await createOtelHarness({ config: W2_C3, hashSeed: 2, contextManager: true });
    // Helper spans: hashed for traceToolCall by the processor, which then reads the pre-computed hash.
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

describe('two processors on two providers in one process, both running traceRun({ runId: "job-1" })', () => {
  it('a post-compaction loop in A aborts only A’s run: B’s body finishes and B’s runSignal stays unaborted', async () => {
    const a = await createOtelHarness({ config: {}, contextManager: true });
    const b = await createOtelHarness({ config: {}, contextManager: true });
    const aSignal = a.processor.runSignal('job-1');
    const bSignal = b.processor.runSignal('job-1');
    let releaseB!: () => void;
    const bMayFinish = new Promise<void>((resolve) => (releaseB = resolve));
    let bRunSignal: AbortSignal | undefined;

    const runB = traceRun(b.tracer, { runId: 'job-1' }, async ({ signal }) => {
      bRunSignal = signal;
      await traceToolCall(b.tracer, { name: 'gateway', args: { action: 'lookup', path: 'x' } }, () => R('r1'));
      await bMayFinish;
      return 'b finished';
    });
    const runA = traceRun(a.tracer, { runId: 'job-1' }, async () => {
      markCompactionRetry(a.tracer);
      for (let i = 0; i < 3; i += 1)
        await traceToolCall(a.tracer, { name: 'gateway', args: { action: 'lookup', path: 'x' } }, () => R('r1'));
      return 'a finished';
    });

    const aError = await runA.catch((reason: unknown) => reason);
    expect(aError).toBeInstanceOf(CompactionLoopPersistedError);
    expect(aSignal.aborted).toBe(true);
    expect(a.abortEvents.map((event) => event.runId)).toEqual(['job-1']);
    // B saw none of it.
    expect(bRunSignal?.aborted).toBe(false);
    expect(bSignal.aborted).toBe(false);
    releaseB();
    await expect(runB).resolves.toBe('b finished');
    expect(b.abortEvents).toEqual([]);
    await a.shutdown();
    await b.shutdown();
  });

  it('a verdict reached by A is not visible on B’s spans, and B’s history does not count A’s calls', async () => {
    const a = await createOtelHarness({ config: W2_C3, contextManager: true });
    const b = await createOtelHarness({ config: W2_C3, contextManager: true });
    const results: unknown[] = [];
    await traceRun(a.tracer, { runId: 'job-1' }, async () => {
      for (let i = 0; i < 4; i += 1)
        results.push(await traceToolCall(a.tracer, { name: 'read', args: ARGS }, () => 'ok'));
    });
    await traceRun(b.tracer, { runId: 'job-1' }, async () => {
      results.push(await traceToolCall(b.tracer, { name: 'read', args: ARGS }, () => 'ok'));
    });
    // A warned on its third identical call (its result carries the system note) and blocked the
    // fourth (critical 3); B's first call of the same run id ran.
    expect(results.slice(0, 3)).toEqual(['ok', 'ok', `ok\n\n${toolLoopSystemNote(2)}`]);
    expect(results[3]).toMatchObject({ details: { status: 'blocked' } });
    expect(results[4]).toBe('ok');
    expect(a.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical']);
    expect(b.loopEvents).toEqual([]);
  });
});
