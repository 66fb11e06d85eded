/**
 * Target 4, run in a fresh process with --expose-gc (started by main.ts):
 * - `live`: 10 000 runs whose root spans never end, each with a full history of 30 tool
 *   calls (args and results hashed from raw JSON attributes, distinct call ids); reports the
 *   delta of the memory {@link heap} counts. The bench keeps no reference to any span, so what
 *   stays is the processor's run state.
 * - `sequential`: 1 000 000 runs one after another (root span with `tool_loop.run_id`, two
 *   tool spans, root ends); reports that memory at a baseline (after 20 000 warm-up runs) and
 *   at checkpoints.
 * Prints one JSON line.
 */
import { ours, startRun, toolSpan, tracerWith } from './spans.js';

const mode = process.argv[2];
const SMOKE = process.argv.includes('--smoke');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

/**
 * The JS heap in use plus the ArrayBuffer memory it owns (backing stores live outside the heap:
 * the history rings are typed arrays), after full GCs.
 */
function heap(): number {
  for (let i = 0; i < 3; i += 1) gc!();
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

const TOOLS = ['read', 'exec', 'web_search', 'write', 'grep', 'browser', 'process', 'edit'];
/** A fresh copy of a tool name, as a span attribute decoded from a request would be. */
const freshName = (k: number): string => TOOLS[k % TOOLS.length].split('').join('');

function args(r: number, j: number): string {
  // ~120 B of JSON arguments; 1 call in 5 repeats the previous arguments (a retry).
  const n = j % 5 === 4 ? j - 1 : j;
  return JSON.stringify({
    path: `/repo/run-${r}/src/file-${n}.ts`,
    offset: n * 40,
    limit: 200,
    pattern: `needle-${n}`,
  });
}

function result(r: number, j: number): string {
  return JSON.stringify({
    content: [{ type: 'text', text: `line ${j} of run ${r}\n`.repeat(8) }],
    details: { status: 'ok', lines: 8 },
  });
}

async function live(): Promise<void> {
  const runs = SMOKE ? 500 : 10_000;
  const records = 30;
  const processor = await ours();
  const tracer = tracerWith(processor);
  // Warm-up: code, ICs and one-off allocations, in runs that end.
  for (let r = 0; r < 200; r += 1) {
    const run = startRun(tracer, `warm-${r}`);
    for (let j = 0; j < records; j += 1)
      toolSpan(tracer, run.ctx, freshName(j), `call_w${r}_${j}`, args(r, j), result(r, j));
    run.end();
  }
  const before = heap();
  for (let r = 0; r < runs; r += 1) {
    const run = startRun(tracer, `run-${r.toString(36)}-${((r * 2654435761) >>> 0).toString(16)}`);
    for (let j = 0; j < records; j += 1)
      toolSpan(
        tracer,
        run.ctx,
        freshName(r + j),
        `call_${r.toString(36)}_${j}_${(j * 40503 + r) >>> 0}`,
        args(r, j),
        result(r, j),
      );
  }
  const after = heap();
  const delta = after - before;
  console.log(
    JSON.stringify({
      runs,
      recordsPerRun: records,
      deltaBytes: delta,
      bytesPerRun: delta / runs,
      liveRuns: processor.getStats().liveRuns,
    }),
  );
}

async function sequential(): Promise<void> {
  const runs = SMOKE ? 20_000 : 1_000_000;
  const warm = SMOKE ? 2_000 : 20_000;
  const checkpoints = SMOKE ? 4 : 10;
  const processor = await ours();
  const tracer = tracerWith(processor);
  const one = (r: number) => {
    const run = startRun(tracer, `run-${r}`);
    toolSpan(tracer, run.ctx, freshName(r), `call_${r}_a`, args(r, 0), result(r, 0));
    toolSpan(tracer, run.ctx, freshName(r + 1), `call_${r}_b`, args(r, 1), result(r, 1));
    run.end();
  };
  for (let r = 0; r < warm; r += 1) one(r);
  const baseline = heap();
  const samples: number[] = [];
  // Only the runs are timed: each checkpoint's heap() forces full GCs.
  let ns = 0;
  for (let c = 0; c < checkpoints; c += 1) {
    const from = warm + Math.floor((c * runs) / checkpoints);
    const to = warm + Math.floor(((c + 1) * runs) / checkpoints);
    const start = process.hrtime.bigint();
    for (let r = from; r < to; r += 1) one(r);
    ns += Number(process.hrtime.bigint() - start);
    samples.push(heap());
  }
  console.log(
    JSON.stringify({
      runs,
      baselineBytes: baseline,
      finalBytes: samples[samples.length - 1],
      maxBytes: Math.max(...samples),
      checkpoints: samples,
      liveRuns: processor.getStats().liveRuns,
      released: processor.getStats().releasedRuns['root-ended'],
      nsPerRun: ns / runs,
    }),
  );
}

if (mode === 'live') await live();
else if (mode === 'sequential') await sequential();
else throw new Error(`unknown mode ${mode}`);
