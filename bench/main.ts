/**
 * `npm run bench`: the performance targets of issue 7, measured as same-run ratios.
 * `--smoke`: a few iterations of every benchmark; never fails on timing or memory figures
 * (CI must not gate on a shared runner's timing), only on errors and sanity checks.
 * `--only=1,2,3,4,5` runs a subset; `--out=<file>` moves the JSON (default .bench/latest.json).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT_CONTEXT, SpanKind, trace } from '@opentelemetry/api';
import xxhash from 'xxhash-wasm';
import { resolveLoopDetectionConfig } from '../src/config/resolve.js';
import { createDigester, digestInput } from '../src/engine/hashing/digest.js';
import { LoopRun } from '../src/engine/loop-run.js';
import { hashToolOutcome } from '../src/engine/hashing/outcome-hash.js';
import { measure, pairedRatio, type Measurement, type Variant } from './harness.js';
import { NaiveLoopSpanProcessor } from './naive-processor.js';
import { DEFAULT_ADAPTERS } from '../src/spans/adapters/index.js';
import { SpanTriggers } from '../src/spans/span-triggers.js';
import { ours, startRun, toolSpan, tracerWith } from './spans.js';
import { argsJson, httpAttributes, prng, structuredResultJson, textResultJson } from './workloads.js';

const argv = process.argv.slice(2);
const SMOKE = argv.includes('--smoke');
const only = argv
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const outFile =
  argv.find((a) => a.startsWith('--out='))?.slice(6) ?? join(root, '.bench', SMOKE ? 'smoke.json' : 'latest.json');
const run = (target: string): boolean => !only || only.includes(target);

/** Timing effort: full runs take ~20–40 rounds of ~15 ms batches per variant. */
const T = SMOKE ? { rounds: 3, batchMs: 2, warmupRounds: 0 } : { rounds: 31, batchMs: 15, warmupRounds: 3 };

interface Check {
  readonly target: string;
  readonly metric: string;
  readonly value: number;
  readonly limit: string;
  readonly pass: boolean;
  readonly gated: boolean;
}
const checks: Check[] = [];
const details: Record<string, unknown> = {};
const sanity: string[] = [];

function check(target: string, metric: string, value: number, op: '<=' | '>=', limit: number, gated = true): void {
  const pass = op === '<=' ? value <= limit : value >= limit;
  checks.push({ target, metric, value, limit: `${op} ${limit}`, pass, gated });
}

function table(title: string, m: Measurement, extra: Record<string, string> = {}): void {
  console.log(`\n${title}  (ops/batch ${m.ops}, ${m.rounds} rounds, medians)`);
  const rows = Object.keys(m.nsPerOp).map((name) => ({
    variant: name,
    'ns/op': m.nsPerOp[name].toFixed(0),
    'x base': m.ratioToBase[name].toFixed(3),
    ...(extra[name] !== undefined ? { note: extra[name] } : {}),
  }));
  console.table(rows);
}

// ---------------------------------------------------------------------------------------------
// Target 1: a non-tool span with 10 attributes.
async function target1(): Promise<void> {
  const attrs = Array.from({ length: 64 }, (_, i) => httpAttributes(i));
  const floor = tracerWith();
  const mine = tracerWith(await ours());
  // The SDK's own cost of having any processor at all (MultiSpanProcessor dispatch).
  const noop = tracerWith({
    onStart() {},
    onEnding() {},
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  });
  // The least a processor for these conventions must do on a plain span: look for the
  // attributes and names that mark a tool span or a run, at start and (kinds set late) at end.
  const triggers = SpanTriggers.of(DEFAULT_ADAPTERS);
  let noticed = 0;
  const minimal = tracerWith({
    onStart: (span) => void (triggers.mayConcernAtStart(span) && (noticed += 1)),
    onEnding: (span) => void (triggers.mayConcernAtEnd(span) && (noticed += 1)),
    onEnd() {},
    forceFlush: () => Promise.resolve(),
    shutdown: () => Promise.resolve(),
  });
  const rootBatch = (tracer: ReturnType<typeof tracerWith>) => {
    let i = 0;
    return (ops: number) => {
      for (let n = 0; n < ops; n += 1) {
        const span = tracer.startSpan(
          'GET /api/items/:id',
          { kind: SpanKind.SERVER, attributes: attrs[i++ & 63] },
          ROOT_CONTEXT,
        );
        span.end();
      }
    };
  };
  const childBatch = (tracer: ReturnType<typeof tracerWith>) => {
    const parent = tracer.startSpan('request', {}, ROOT_CONTEXT);
    const ctx = trace.setSpan(ROOT_CONTEXT, parent);
    let i = 0;
    return (ops: number) => {
      for (let n = 0; n < ops; n += 1) {
        const span = tracer.startSpan(
          'GET /api/items/:id',
          { kind: SpanKind.CLIENT, attributes: attrs[i++ & 63] },
          ctx,
        );
        span.end();
      }
    };
  };
  const m = measure(
    [
      { name: 'floor root', batch: rootBatch(floor) },
      { name: 'ours root', batch: rootBatch(mine) },
      { name: 'floor child', batch: childBatch(floor) },
      { name: 'ours child', batch: childBatch(mine) },
      { name: 'noop-processor root', batch: rootBatch(noop) },
      { name: 'trigger-check-only root', batch: rootBatch(minimal) },
    ],
    { base: 'floor root', ...T },
  );
  table('Target 1: non-tool span, 10 attributes (start + end)', m);
  const root = pairedRatio(m, 'ours root', 'floor root');
  const child = pairedRatio(m, 'ours child', 'floor child');
  check('1', 'non-tool root span: ours / floor', root, '<=', 1.05);
  check('1', 'non-tool child span: ours / floor', child, '<=', 1.05);
  check(
    '1',
    'non-tool root span: empty processor / floor (info: SDK dispatch cost)',
    pairedRatio(m, 'noop-processor root', 'floor root'),
    '<=',
    1.05,
    false,
  );
  check(
    '1',
    'non-tool root span: ours / empty processor (info)',
    pairedRatio(m, 'ours root', 'noop-processor root'),
    '<=',
    1.05,
    false,
  );
  check(
    '1',
    'non-tool root span: trigger check only / floor (info: the least a processor for these conventions does)',
    pairedRatio(m, 'trigger-check-only root', 'floor root'),
    '<=',
    1.05,
    false,
  );
  if (noticed !== 0) sanity.push(`target 1: the trigger check took ${noticed} plain spans for tool or run spans`);
  details.target1 = m;
}

// ---------------------------------------------------------------------------------------------
// Target 2: a tool span with 1 KB arguments and a 10 KB result, full detection.
async function target2(shape: 'text' | 'structured'): Promise<void> {
  const POOL = 16;
  const args = Array.from({ length: POOL }, (_, i) => argsJson(i));
  const results = Array.from({ length: POOL }, (_, i) =>
    shape === 'text' ? textResultJson(i) : structuredResultJson(i),
  );
  const ids = Array.from({ length: 4096 }, (_, i) => `call_${i.toString(36).padStart(8, '0')}`);
  const api = await xxhash();
  let events = 0;
  const processor = await ours(() => void (events += 1));
  const naiveProcessor = new NaiveLoopSpanProcessor();
  const make = (
    tracer: ReturnType<typeof tracerWith>,
    runId: string,
    raw = false,
    parse = false,
  ): ((ops: number) => void) => {
    const { ctx } = startRun(tracer, runId);
    let i = 0;
    return (ops) => {
      for (let n = 0; n < ops; n += 1) {
        const k = i % POOL;
        toolSpan(tracer, ctx, 'write', ids[i & 4095], args[k], results[k]);
        if (raw) {
          api.h64(args[k]);
          api.h64(results[k]);
        }
        if (parse) {
          JSON.parse(args[k]);
          JSON.parse(results[k]);
        }
        i += 1;
      }
    };
  };
  const m = measure(
    [
      { name: 'floor', batch: make(tracerWith(), 'run-floor') },
      { name: 'floor + xxh64', batch: make(tracerWith(), 'run-raw', true) },
      { name: 'floor + JSON.parse', batch: make(tracerWith(), 'run-parse', false, true) },
      { name: 'ours', batch: make(tracerWith(processor), 'run-ours') },
      { name: 'naive', batch: make(tracerWith(naiveProcessor), 'run-naive') },
    ],
    { base: 'floor', ...T },
  );
  const kb = (s: string) => `${(Buffer.byteLength(s) / 1024).toFixed(1)} KB`;
  table(`Target 2 (${shape} result): tool span, args ${kb(args[0])}, result ${kb(results[0])}, full detection`, m);
  const oursFloor = pairedRatio(m, 'ours', 'floor');
  const naiveOurs = pairedRatio(m, 'naive', 'ours');
  const overhead = (m.nsPerOp.naive - m.nsPerOp.floor) / Math.max(1, m.nsPerOp.ours - m.nsPerOp.floor);
  check('2', `${shape} result: ours / floor`, oursFloor, '<=', 2);
  check('2', `${shape} result: naive / ours`, naiveOurs, '>=', 5);
  check('2', `${shape} result: naive overhead / ours overhead (info)`, overhead, '>=', 5, false);
  check(
    '2',
    `${shape} result: (floor + xxh64 of the two attribute strings) / floor (info: lower bound of any processor that hashes content)`,
    pairedRatio(m, 'floor + xxh64', 'floor'),
    '<=',
    2,
    false,
  );
  check(
    '2',
    `${shape} result: (floor + JSON.parse of args and result) / floor (info: lower bound of ours / floor)`,
    pairedRatio(m, 'floor + JSON.parse', 'floor'),
    '<=',
    2,
    false,
  );
  if (events !== 0) sanity.push(`target 2 (${shape}): expected no loop events on a healthy workload, got ${events}`);
  if (processor.getStats().liveRuns !== 1)
    sanity.push(`target 2 (${shape}): expected 1 live run, got ${processor.getStats().liveRuns}`);
  details[`target2_${shape}`] = {
    ...m,
    overheadRatio: overhead,
    loopEvents: events,
    naiveVerdicts: naiveProcessor.verdicts,
  };
}

// ---------------------------------------------------------------------------------------------
// Target 3: hashing a 1 MB result vs raw xxhash64 over the same bytes.
async function target3(shape: 'text' | 'structured'): Promise<void> {
  const size = 1024 * 1024;
  const json = shape === 'text' ? textResultJson(0, size) : structuredResultJson(0, size);
  const result = JSON.parse(json) as unknown;
  const api = await xxhash();
  const digester = await createDigester();
  // The bytes our digest covers: the canonical token stream of the outcome projection.
  const projected =
    shape === 'text'
      ? {
          details: (result as { details: unknown }).details,
          text: (result as { content: Array<{ text: string }> }).content[0].text.trim(),
        }
      : result;
  const canonical = Buffer.from(digestInput(projected));
  const expected = api.h64Raw(canonical).toString(16).padStart(16, '0');
  const got = hashToolOutcome(digester, { toolName: 'read', params: { path: '/x' }, result }).resultHash;
  if (got !== expected)
    sanity.push(`target 3 (${shape}): digest ${got} differs from xxhash64 of the canonical bytes ${expected}`);
  const m = measure(
    [
      {
        name: 'raw h64Raw',
        batch: (ops) => {
          for (let n = 0; n < ops; n += 1) api.h64Raw(canonical);
        },
      },
      {
        name: 'ours hashToolOutcome',
        batch: (ops) => {
          for (let n = 0; n < ops; n += 1)
            hashToolOutcome(digester, { toolName: 'read', params: { path: '/x' }, result });
        },
      },
      {
        name: 'naive sha256(stable)',
        batch: (ops) => {
          for (let n = 0; n < ops; n += 1) createHash('sha256').update(naiveStable(projected)).digest('hex');
        },
      },
    ],
    {
      base: 'raw h64Raw',
      ...T,
      rounds: SMOKE ? 3 : shape === 'text' ? 21 : 7,
      batchMs: SMOKE ? 2 : 20,
      ...(shape === 'structured' ? { ops: SMOKE ? 1 : 3 } : {}),
    },
  );
  const mbps = (name: string) => `${((canonical.length / m.nsPerOp[name]) * 1e3).toFixed(0)} MB/s`;
  table(`Target 3 (${shape}): hashing a ${(canonical.length / 1048576).toFixed(2)} MB result (canonical bytes)`, m, {
    'raw h64Raw': mbps('raw h64Raw'),
    'ours hashToolOutcome': mbps('ours hashToolOutcome'),
    'naive sha256(stable)': mbps('naive sha256(stable)'),
  });
  const throughput = 1 / pairedRatio(m, 'ours hashToolOutcome', 'raw h64Raw');
  check('3', `${shape} 1 MB: ours throughput / raw xxhash64`, throughput, '>=', 0.5, shape === 'text');
  details[`target3_${shape}`] = { ...m, bytes: canonical.length, throughputRatio: throughput };
}

function naiveStable(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(naiveStable).join(',')}]`;
  const obj = value as Record<string, unknown>;
  return `{${Object.keys(obj)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${naiveStable(obj[k])}`)
    .join(',')}}`;
}

// ---------------------------------------------------------------------------------------------
// Target 5: per-call engine cost at historySize 1000 vs 30 (history full).
interface Step {
  toolName: string;
  argsHash: string;
  resultHash: string;
  toolCallId: string;
}

function mixedSteps(count: number): Step[] {
  const next = prng(42);
  const tools = ['read', 'exec', 'web_search', 'write', 'grep', 'browser'];
  const hex = (n: number) => n.toString(16).padStart(16, '0');
  const steps: Step[] = [];
  for (let i = 0; i < count; i += 1) {
    const r = next();
    const prev = steps[i - 1];
    let toolName: string;
    let argsHash: string;
    let resultHash: string;
    if (r < 0.2 && prev) {
      // an immediate retry: same call, same result half of the time
      toolName = prev.toolName;
      argsHash = prev.argsHash;
      resultHash = next() < 0.5 ? prev.resultHash : hex(1e9 + i);
    } else if (r < 0.5) {
      // a recurring call (one of 200), with a fresh result
      const k = Math.floor(next() * 200);
      toolName = tools[k % tools.length];
      argsHash = `${toolName}:${hex(5e8 + k)}`;
      resultHash = hex(2e9 + i);
    } else {
      toolName = tools[Math.floor(next() * tools.length)];
      argsHash = `${toolName}:${hex(i)}`;
      resultHash = hex(3e9 + i);
    }
    steps.push({ toolName, argsHash, resultHash, toolCallId: `call_${i}` });
  }
  return steps;
}

function pingPongSteps(count: number): Step[] {
  const hex = (n: number) => n.toString(16).padStart(16, '0');
  return Array.from({ length: count }, (_, i) => {
    const toolName = i % 2 === 0 ? 'read' : 'exec';
    return { toolName, argsHash: `${toolName}:${hex(i % 2)}`, resultHash: hex(7e9 + i), toolCallId: `call_${i}` };
  });
}

function engineVariant(
  name: string,
  steps: Step[],
  historySize: number,
  stats: { blocked: number; verdicts: number },
): Variant {
  const config = resolveLoopDetectionConfig({ enabled: true, historySize });
  const session = new LoopRun({ config, runId: 'run-1' });
  let i = 0;
  const one = () => {
    const s = steps[i++ % steps.length];
    const call = { toolName: s.toolName, argsHash: s.argsHash, knownPoll: false };
    const check = session.check(call);
    if (check.verdict) stats.verdicts += 1;
    if (check.blocked) {
      stats.blocked += 1;
      return;
    }
    session.recordCall(call, s.toolCallId);
    session.complete(call, s.toolCallId, { resultHash: s.resultHash });
  };
  for (let n = 0; n < 2 * historySize; n += 1) one(); // fill the history
  if (session.history.size !== historySize) throw new Error(`${name}: history not full`);
  return {
    name,
    batch: (ops) => {
      for (let n = 0; n < ops; n += 1) one();
    },
  };
}

function target5(): void {
  const mixed = mixedSteps(1 << 16);
  const pp = pingPongSteps(1 << 16);
  const stats = {
    m30: { blocked: 0, verdicts: 0 },
    m1000: { blocked: 0, verdicts: 0 },
    p30: { blocked: 0, verdicts: 0 },
    p1000: { blocked: 0, verdicts: 0 },
  };
  const m = measure(
    [
      engineVariant('mixed @30', mixed, 30, stats.m30),
      engineVariant('mixed @1000', mixed, 1000, stats.m1000),
      engineVariant('ping-pong @30', pp, 30, stats.p30),
      engineVariant('ping-pong @1000', pp, 1000, stats.p1000),
    ],
    { base: 'mixed @30', ...T, batchMs: SMOKE ? 2 : 10 },
  );
  table('Target 5: engine per-call cost (check + recordCall + recordOutcome), history full', m);
  check('5', 'mixed: cost @1000 / cost @30', pairedRatio(m, 'mixed @1000', 'mixed @30'), '<=', 1.5);
  check(
    '5',
    'progressing ping-pong: cost @1000 / cost @30',
    pairedRatio(m, 'ping-pong @1000', 'ping-pong @30'),
    '<=',
    1.5,
  );
  if (stats.p30.blocked + stats.p1000.blocked + stats.m30.blocked + stats.m1000.blocked !== 0)
    sanity.push(`target 5: a progressing workload was blocked: ${JSON.stringify(stats)}`);
  details.target5 = { ...m, stats };
}

// ---------------------------------------------------------------------------------------------
// Target 4: memory, in fresh child processes (clean heaps, --expose-gc).
function target4(): void {
  for (const mode of ['live', 'sequential'] as const) {
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', join(here, 'memory.js'), mode, ...(SMOKE ? ['--smoke'] : [])],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    if (child.status !== 0) {
      sanity.push(`target 4 (${mode}): child failed: ${child.stderr}`);
      continue;
    }
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, number>;
    details[`target4_${mode}`] = r;
    if (mode === 'live') {
      console.log(
        `\nTarget 4 (live): ${r.runs} live runs x ${r.recordsPerRun} records: heap +${(r.deltaBytes / 1048576).toFixed(1)} MB (${r.bytesPerRun.toFixed(0)} B/run, ${(r.bytesPerRun / r.recordsPerRun).toFixed(0)} B/record); liveRuns=${r.liveRuns}`,
      );
      if (r.liveRuns !== r.runs) sanity.push(`target 4 (live): expected ${r.runs} live runs, got ${r.liveRuns}`);
      const scaled = (r.deltaBytes / r.runs) * 10_000;
      check(
        '4',
        `heap for 10 000 live runs x 30 records, MB${SMOKE ? ' (extrapolated)' : ''}`,
        scaled / 1048576,
        '<=',
        50,
      );
    } else {
      console.log(
        `\nTarget 4 (sequential): ${r.runs} runs; heap after GC: baseline ${(r.baselineBytes / 1048576).toFixed(1)} MB, final ${(r.finalBytes / 1048576).toFixed(1)} MB, max ${(r.maxBytes / 1048576).toFixed(1)} MB; liveRuns=${r.liveRuns}; ${(r.nsPerRun / 1000).toFixed(1)} us/run`,
      );
      if (r.liveRuns !== 0) sanity.push(`target 4 (sequential): ${r.liveRuns} runs still live after their roots ended`);
      check('4', `${r.runs} sequential runs: final heap / baseline heap`, r.finalBytes / r.baselineBytes, '<=', 1.1);
    }
  }
}

// ---------------------------------------------------------------------------------------------
async function main(): Promise<void> {
  console.log(
    `tool-loop-guard bench${SMOKE ? ' (smoke: few iterations, timing not gated)' : ''} — node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}`,
  );
  if (run('1')) await target1();
  if (run('2')) {
    await target2('text');
    await target2('structured');
  }
  if (run('3')) {
    await target3('text');
    await target3('structured');
  }
  if (run('5')) target5();
  if (run('4')) target4();

  console.log('\nTargets (ratios measured in this run; medians of interleaved rounds)');
  console.table(
    checks.map((c) => ({
      target: c.target,
      metric: c.metric,
      measured: c.value.toFixed(3),
      limit: c.limit,
      result: c.gated ? (c.pass ? 'PASS' : 'FAIL') : c.pass ? 'pass (info)' : 'fail (info)',
    })),
  );
  for (const s of sanity) console.error(`SANITY: ${s}`);
  const failed = checks.filter((c) => c.gated && !c.pass);
  mkdirSync(dirname(outFile), { recursive: true });
  writeFileSync(
    outFile,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        cpus: cpus().length,
        smoke: SMOKE,
        checks,
        sanity,
        details,
      },
      null,
      1,
    ),
  );
  console.log(`\nwritten ${outFile}`);
  if (sanity.length > 0) process.exitCode = 2;
  else if (!SMOKE && failed.length > 0) {
    console.error(`${failed.length} target(s) failed`);
    process.exitCode = 1;
  }
}

await main();
