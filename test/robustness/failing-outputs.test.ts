/**
 * Every output of the processor is isolated from every other and from the host: an exporter
 * behind `wrapExporter` that throws, a callback whose promise rejects, a tracer provider that
 * cannot hand out a tracer. None of them ends the process, hangs a flush, or switches detection
 * off. The crash cases run in a process of their own against the built package, as a host would.
 */
import type { TracerProvider } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { runWithBuiltPackage } from './built-package.js';
import { createWorld, repeatRead, resetGlobals, runRoot, SMALL, type World } from './harness.js';

let world: World | undefined;
afterEach(async () => {
  await world?.shutdown();
  world = undefined;
  resetGlobals();
});

/** Script lines: a diag logger recording error lines, and `loop(tracer, runId, n)` of identical read calls. */
const PRELUDE = `
const api = await import('@opentelemetry/api');
const { BasicTracerProvider, SimpleSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
const errors = [];
api.diag.setLogger(
  { error: (...a) => errors.push(a.join(' ')), warn: () => {}, info: () => {}, debug: () => {}, verbose: () => {} },
  api.DiagLogLevel.ERROR,
);
const SMALL = ${JSON.stringify(SMALL)};
function loop(tracer, runId, n, after = () => {}) {
  const root = tracer.startSpan('agent run', { attributes: { 'tool_loop.run_id': runId } });
  const parent = api.trace.setSpan(api.ROOT_CONTEXT, root);
  for (let i = 0; i < n; i += 1) {
    const span = tracer.startSpan('execute_tool read', { attributes: {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read', 'gen_ai.tool.call.arguments': '{"path":"/a"}',
    } }, parent);
    span.setAttribute('gen_ai.tool.call.result', '"same"');
    span.end();
  }
  after(parent);
  root.end();
}
const settle = () => new Promise((resolve) => setTimeout(resolve, 50));
`;

describe('an exporter whose export() throws, wrapped with wrapExporter', () => {
  it('neither ends the process nor hangs a flush: it fails as it would unwrapped, and detection goes on', () => {
    const run = runWithBuiltPackage(`${PRELUDE}
async function outcome(promise) {
  let timer;
  const late = new Promise((resolve) => (timer = setTimeout(() => resolve('pending after 5 s'), 5000)));
  const settled = promise.then(() => 'resolved', (error) => 'rejected: ' + error.message);
  const first = await Promise.race([settled, late]);
  clearTimeout(timer);
  return first;
}
const exporter = { export() { throw new Error('exporter exploded'); }, shutdown: async () => {} };
async function pipeline(wrap) {
  const levels = [];
  const processor = await pkg.ToolLoopSpanProcessor.create({ config: SMALL, onLoopEvent: (e) => levels.push(e.level) });
  const exporting = new SimpleSpanProcessor(wrap ? pkg.wrapExporter(exporter, processor) : exporter);
  const provider = new BasicTracerProvider({ spanProcessors: [processor, exporting] });
  loop(provider.getTracer('t'), 'run-1', 4);
  const first = await outcome(exporting.forceFlush());
  return { levels, first, then: await outcome(exporting.forceFlush()) };
}
const unwrapped = await pipeline(false);
const wrapped = await pipeline(true);
console.log(JSON.stringify({ unwrapped, wrapped, logged: errors.some((line) => line.includes('exporter exploded')) }));
`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const pipeline = { levels: ['warning', 'critical'], first: 'rejected: exporter exploded', then: 'resolved' };
    expect(JSON.parse(run.stdout)).toEqual({ unwrapped: pipeline, wrapped: pipeline, logged: true });
  });
});

describe('async onLoopEvent and onAbort callbacks whose promise rejects', () => {
  it('are reported through diag; the process lives on, and blocks and aborts still happen', () => {
    const run = runWithBuiltPackage(`${PRELUDE}
const levels = [];
const processor = await pkg.ToolLoopSpanProcessor.create({
  config: { tools: { loopDetection: { ...SMALL.tools.loopDetection, postCompactionGuard: { windowSize: 2 } } } },
  abortOnCritical: true,
  onLoopEvent: async (e) => { levels.push(e.level); throw new Error('onLoopEvent rejected ' + e.level); },
  onAbort: async () => { await settle(); throw new Error('onAbort rejected late'); },
});
const provider = new BasicTracerProvider({ spanProcessors: [processor] });
const tracer = provider.getTracer('t');
const blocked = processor.runSignal('blocked');
loop(tracer, 'blocked', 4);
const aborted = processor.runSignal('aborted');
loop(tracer, 'aborted', 0, (parent) => {
  tracer.startSpan('compaction', { attributes: { 'compaction.retry': true } }, parent).end();
  for (let i = 0; i < 2; i += 1) {
    const span = tracer.startSpan('execute_tool read', { attributes: {
      'gen_ai.operation.name': 'execute_tool', 'gen_ai.tool.name': 'read', 'gen_ai.tool.call.arguments': '{"path":"/b"}',
    } }, parent);
    span.setAttribute('gen_ai.tool.call.result', '"same"');
    span.end();
  }
});
await settle();
await settle();
console.log(JSON.stringify({
  levels,
  blocked: blocked.reason?.name,
  aborted: aborted.reason?.code,
  rejections: errors.filter((line) => line.includes('callback rejected')).map((line) => line.split(':')[0].replace('tool-loop-guard ', '')),
}));
`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      levels: ['warning', 'critical'],
      blocked: 'ToolLoopBlockedError',
      aborted: 'compaction_loop_persisted',
      rejections: ['onLoopEvent callback rejected', 'onLoopEvent callback rejected', 'onAbort callback rejected'],
    });
  });
});

describe('async callbacks passed through ToolLoopSampler.callbacks', () => {
  it('are handled as when passed directly: a rejection is logged, never unhandled', () => {
    const run = runWithBuiltPackage(`${PRELUDE}
const { AlwaysOffSampler } = await import('@opentelemetry/sdk-trace-base');
const sampler = new pkg.ToolLoopSampler(new AlwaysOffSampler());
const processor = await pkg.ToolLoopSpanProcessor.create({
  config: SMALL,
  ...sampler.callbacks({ onLoopEvent: async (e) => { throw new Error('rejected ' + e.level); } }),
});
const provider = new BasicTracerProvider({ sampler, spanProcessors: [processor] });
loop(provider.getTracer('t'), 'run-1', 4);
await settle();
console.log(JSON.stringify(errors.filter((line) => line.includes('callback rejected')).length));
`);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe('2');
  });
});

describe('a tracer provider that cannot hand out a tracer', () => {
  const throwing: TracerProvider = {
    getTracer: () => {
      throw new Error('no tracer');
    },
  };

  it.each([
    ['whose getTracer throws', throwing],
    ['a function that throws', () => throwing.getTracer('x') as unknown as TracerProvider],
  ] as const)('%s: calls are still warned and blocked; one diag warning, no failed hook', async (_name, provider) => {
    world = await createWorld({ config: SMALL, tracerProvider: provider });
    const root = runRoot(world.tracer, 'run-1');
    const verdicts = repeatRead(world.tracer, root, 4);
    root.end();
    expect(verdicts).toEqual([undefined, undefined, 'warning', 'critical']);
    expect(world.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical']);
    expect(world.diagLines.filter((line) => line.includes('no tracer'))).toHaveLength(1);
    expect(world.diagLines.filter((line) => /\bon(Start|Ending|End) failed/.test(line))).toEqual([]);
  });
});
