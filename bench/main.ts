/**
 * `npm run bench`: every span kind's variants timed side by side in CPU time (`harness.ts`),
 * structured and text hashing throughput, the engine's per-call cost against history size, and
 * memory in fresh processes; then the bounds (`bounds.ts`): the instructions per span of the
 * variants they compare, counted by callgrind (`callgrind.ts`), and the memory of live runs.
 * `--smoke`: a few short rounds of everything, the bounds' probes with short warm-ups; fails only
 * on errors and sanity checks.
 * `--only=<kind|spans|hashing|engine|memory|bounds,...>` runs a subset (`spans`: every kind;
 * `bounds`: the instruction counts and memory the bounds need);
 * `--out=<file>` moves the JSON (default .bench/latest.json, smoke: .bench/smoke.json);
 * `--rounds=<n>` sets the timed rounds of the span kinds below 1 MB (default 21; 60 with `--against`).
 * `--against-entry=<index.js>` (put there by `run.mjs --against=<revision|directory>`): an A/B of
 * two trees, each span kind's floor, ours and the other tree's processor interleaved, with
 * `<kind>: ours / against` per kind, and the two trees' `hashToolOutcome` of the 1 MB results
 * (`hashing <shape> 1 MB: ours / against`; JSON default .bench/against.json); the engine, memory
 * and bounds are not run. `--ours-entry=<index.js>` (from `--against=<old>..<new>`) times
 * `<new>`'s processor and hashing as ours.
 * Times never fail the run. An unmet bound does (status 1), except in smoke mode, whose counts
 * are not meaningful; without valgrind the instruction bounds are reported as not measured. An
 * unknown option or `--only` name stops it before anything runs (`cli-options.ts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import xxhash from 'xxhash-wasm';
import { createDigester, hashToolOutcome, LoopRun, resolveLoopDetectionConfig } from '../src/engine-entry.js';
import { boundProbes, INSTRUCTION_BOUNDS, instructionBoundRows, memoryBoundRow, type BoundRow } from './bounds.js';
import { countAll, hasCallgrind, type Count, type Probe } from './callgrind.js';
import { benchOptions, onlyOption, positiveOption, TREE_OPTIONS, treeOptions } from './cli-options.js';
import { writeReport } from './report-file.js';
import { measure, ratio, type Measurement, type Ratio, type Variant } from './harness.js';
import { AGAINST, measuredKinds, SMALL_MODEL_VARIANT, treesAt, type Trees } from './span-kinds.js';
import { prng, structuredResultJson, textResultJson } from './workloads.js';

const options = benchOptions(
  {
    smoke: { type: 'boolean', default: false },
    only: { type: 'string' },
    out: { type: 'string' },
    rounds: { type: 'string' },
    ...TREE_OPTIONS,
  },
  'node bench/run.mjs [--smoke] [--only=<part,...>] [--out=<file>] [--against=<rev|dir|old..new>] [--rounds=<n>]',
);
const SMOKE = options.smoke;
/** Parts that measure one tree (this one, even with `--ours-entry`): an A/B leaves them out. */
const ONE_TREE_PARTS = ['engine', 'memory', 'bounds'];
const only = onlyOption(options.only, [
  ...measuredKinds().map((kind) => kind.name),
  'spans',
  'hashing',
  ...ONE_TREE_PARTS,
]);
const { againstEntry, againstLabel, oursEntry, oursLabel } = treeOptions(options);
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const outFile =
  options.out ??
  join(root, '.bench', SMOKE ? 'smoke.json' : againstEntry !== undefined ? 'against.json' : 'latest.json');
if (againstEntry !== undefined && only?.some((part) => ONE_TREE_PARTS.includes(part)))
  console.warn(`bench: ${ONE_TREE_PARTS.join(', ')} measure one tree; an A/B (--against) leaves them out`);
const run = (part: string): boolean =>
  (againstEntry === undefined || !ONE_TREE_PARTS.includes(part)) && (!only || only.includes(part));
const ROUNDS = positiveOption('rounds', options.rounds, true) ?? (againstEntry === undefined || SMOKE ? undefined : 60);

/** What the hashing part times of one tree: its digester and outcome hashing. */
interface Hashers {
  readonly createDigester: typeof createDigester;
  readonly hashToolOutcome: typeof hashToolOutcome;
}

/**
 * The hashing of the tree whose processor entry is `entry`: its `engine-entry.js`, beside the
 * entry in the same build; `undefined`, with a warning, for a tree without one (hashing is then
 * left out of the A/B).
 */
async function hashersAt(entry: string, label: string | undefined): Promise<Hashers | undefined> {
  const path = join(dirname(entry), 'engine-entry.js');
  const built = existsSync(path) ? ((await import(pathToFileURL(path).href)) as Partial<Hashers>) : {};
  if (typeof built.createDigester === 'function' && typeof built.hashToolOutcome === 'function')
    return built as Hashers;
  console.warn(
    `bench: ${label ?? entry} has no engine entry exporting createDigester and hashToolOutcome; hashing left out`,
  );
  return undefined;
}

/** The trees of an A/B, or undefined when this run measures this tree alone. */
async function trees(): Promise<Trees | undefined> {
  if (againstEntry === undefined) return undefined;
  return treesAt(
    { entry: againstEntry, label: againstLabel },
    oursEntry === undefined ? undefined : { entry: oursEntry, label: oursLabel },
  );
}

// Warm-up: at least 30 000 operations or 1 s of CPU per variant, so that V8 has optimised the hot code.
const T = SMOKE
  ? { rounds: 3, batchMs: 2, warmupRounds: 1 }
  : { rounds: 21, batchMs: 25, warmupRounds: 3, warmupOps: 30_000, warmupMs: 1_000 };

const details: Record<string, unknown> = {};
const sanity: string[] = [];
const figures: Record<string, Ratio | number> = {};
/** MB of 10 000 live runs (extrapolated in smoke mode), once the memory part ran. */
let liveRunsMB: number | undefined;

const fmt = (r: Ratio | number, digits = 3): string =>
  typeof r === 'number'
    ? r.toFixed(digits)
    : `${r.value.toFixed(digits)} (${r.q1.toFixed(digits)}–${r.q3.toFixed(digits)})`;

function table(title: string, m: Measurement, base: string): void {
  const ops = Object.values(m.ops);
  console.log(
    `\n${title}\n  (${m.rounds} rounds after ${m.warmupRounds} warm-up rounds, ${m.clock} CPU time, ~${m.batchMs} ms batches of ${Math.min(...ops)}–${Math.max(...ops)} ops; x ${base}: all rounds, per-round quartiles)`,
  );
  console.table(
    Object.keys(m.nsPerOp).map((name) => ({
      variant: name,
      'CPU ns/op': m.nsPerOp[name].toFixed(0),
      [`x ${base}`]: fmt(ratio(m, name, base)),
    })),
  );
}

// ---------------------------------------------------------------------------------------------
async function spanKinds(): Promise<void> {
  for (const kind of measuredKinds(await trees())) {
    if (!run(kind.name) && !run('spans')) continue;
    const big = kind.name.includes('1m') || kind.name.includes('10m');
    const variants: Variant[] = [];
    for (const v of kind.variants) variants.push({ name: v.name, batch: await v.make(), quantum: v.quantum });
    const m = await measure(variants, {
      ...T,
      ...(ROUNDS !== undefined ? { rounds: ROUNDS } : {}),
      ...(big && !SMOKE ? { rounds: kind.name.includes('10m') ? 7 : 11, batchMs: 150 } : {}),
    });
    table(kind.title, m, 'floor');
    sanity.push(...kind.problems());
    details[kind.name] = m;
    const has = (name: string) => name in m.nsPerOp;
    figures[`${kind.name}: ours / floor`] = ratio(m, 'ours', 'floor');
    if (has('floor + JSON.parse'))
      figures[`${kind.name}: ours / (floor + JSON.parse)`] = ratio(m, 'ours', 'floor + JSON.parse');
    if (has('floor + JSON.parse'))
      figures[`${kind.name}: (floor + JSON.parse) / floor`] = ratio(m, 'floor + JSON.parse', 'floor');
    if (has('floor + xxh64')) figures[`${kind.name}: (floor + xxh64) / floor`] = ratio(m, 'floor + xxh64', 'floor');
    if (has('naive')) figures[`${kind.name}: naive / ours`] = ratio(m, 'naive', 'ours');
    if (has('pipeline'))
      figures[`${kind.name}: (pipeline + ours) / pipeline`] = ratio(m, 'pipeline + ours', 'pipeline');
    if (has('pipeline')) figures[`${kind.name}: pipeline / floor`] = ratio(m, 'pipeline', 'floor');
    if (has('empty processor')) figures[`${kind.name}: empty processor / floor`] = ratio(m, 'empty processor', 'floor');
    if (has(SMALL_MODEL_VARIANT))
      figures[`${kind.name}: ${SMALL_MODEL_VARIANT} / ours`] = ratio(m, SMALL_MODEL_VARIANT, 'ours');
    if (has(AGAINST)) {
      figures[`${kind.name}: ours / ${AGAINST}`] = ratio(m, 'ours', AGAINST);
      figures[`${kind.name}: ${AGAINST} / floor`] = ratio(m, AGAINST, 'floor');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Hashing a 1 MB result given as a value (what `traceToolCall` hashes), against xxhash64 over
// the same result's JSON text; in an A/B, this tree's hashing against the other tree's.
const OURS_HASHING = 'ours hashToolOutcome';
const AGAINST_HASHING = `${AGAINST} hashToolOutcome`;

type Outcome = Parameters<typeof hashToolOutcome>[1];

/** A variant hashing `outcome` with `hashers`, after checking that a copy hashes the same. */
async function hashingVariant(name: string, hashers: Hashers, outcome: Outcome, shape: string): Promise<Variant> {
  const digester = await hashers.createDigester();
  const first = hashers.hashToolOutcome(digester, outcome).resultHash;
  if (hashers.hashToolOutcome(digester, structuredClone(outcome)).resultHash !== first)
    sanity.push(`hashing (${shape}, ${name}): a copy of the result hashed differently`);
  return {
    name,
    batch: (ops) => {
      for (let n = 0; n < ops; n += 1) hashers.hashToolOutcome(digester, outcome);
    },
  };
}

async function hashing(ab: { ours: Hashers; against: Hashers } | undefined): Promise<void> {
  const api = await xxhash();
  for (const shape of ['text', 'structured'] as const) {
    const json = shape === 'text' ? textResultJson(0, 1024 * 1024) : structuredResultJson(0, 1024 * 1024);
    const bytes = Buffer.from(json);
    // Each tree hashes a result of its own, so that neither meets objects the other's code shaped.
    const outcomeOf = (): Outcome => ({
      toolName: 'read',
      params: { path: '/x' },
      result: JSON.parse(json) as unknown,
    });
    const variants: Variant[] =
      ab === undefined
        ? [
            {
              name: 'xxh64 of the JSON bytes',
              batch: (ops) => {
                for (let n = 0; n < ops; n += 1) api.h64Raw(bytes);
              },
            },
            await hashingVariant(OURS_HASHING, { createDigester, hashToolOutcome }, outcomeOf(), shape),
          ]
        : [
            await hashingVariant(OURS_HASHING, ab.ours, outcomeOf(), shape),
            await hashingVariant(AGAINST_HASHING, ab.against, outcomeOf(), shape),
          ];
    // An A/B alternates short batches (a few hashes each) over many rounds: the trees' difference
    // is a few per cent, and the machine's speed drifts by more within a second.
    const timing = SMOKE ? {} : ab === undefined ? { rounds: 11, batchMs: 100 } : { rounds: ROUNDS ?? 60, batchMs: 20 };
    const m = await measure(variants, { ...T, ...timing });
    table(
      `hashing a ${(bytes.length / 1048576).toFixed(2)} MB ${shape} result (given as a value)`,
      m,
      ab === undefined ? 'xxh64 of the JSON bytes' : AGAINST_HASHING,
    );
    const mbps = (name: string) => bytes.length / 1048576 / (m.nsPerOp[name] / 1e9);
    const perRound = m.samples[OURS_HASHING].map((ns) => bytes.length / 1048576 / (ns / 1e9)).sort((a, b) => a - b);
    figures[`hashing ${shape} 1 MB: ours MB/s`] = {
      value: mbps(OURS_HASHING),
      q1: perRound[Math.floor((perRound.length - 1) / 4)],
      q3: perRound[Math.ceil(((perRound.length - 1) * 3) / 4)],
    };
    if (ab === undefined)
      figures[`hashing ${shape} 1 MB: xxh64 of the JSON bytes MB/s`] = mbps('xxh64 of the JSON bytes');
    else {
      figures[`hashing ${shape} 1 MB: ${AGAINST} MB/s`] = mbps(AGAINST_HASHING);
      figures[`hashing ${shape} 1 MB: ours / ${AGAINST}`] = ratio(m, OURS_HASHING, AGAINST_HASHING);
    }
    details[`hashing_${shape}`] = { ...m, bytes: bytes.length };
  }
}

/** The two trees' hashing for an A/B (`undefined` when either tree has none). */
async function hashingTrees(): Promise<{ ours: Hashers; against: Hashers } | undefined> {
  if (againstEntry === undefined) return undefined;
  const against = await hashersAt(againstEntry, againstLabel);
  const ours = oursEntry === undefined ? { createDigester, hashToolOutcome } : await hashersAt(oursEntry, oursLabel);
  return against !== undefined && ours !== undefined ? { ours, against } : undefined;
}

// ---------------------------------------------------------------------------------------------
// The engine's per-call cost at historySize 1000 vs 30, history full (hashes precomputed).
interface Step {
  toolName: string;
  argsHash: string;
  resultHash: string;
  toolCallId: string;
}

const hex = (n: number) => n.toString(16).padStart(16, '0');

function mixedSteps(count: number): Step[] {
  const next = prng(42);
  const tools = ['read', 'exec', 'web_search', 'write', 'grep', 'browser'];
  const steps: Step[] = [];
  for (let i = 0; i < count; i += 1) {
    const r = next();
    const prev = steps[i - 1];
    let step: Step;
    if (r < 0.2 && prev) {
      // an immediate retry: same call, same result half of the time
      step = { ...prev, resultHash: next() < 0.5 ? prev.resultHash : hex(1e9 + i), toolCallId: `call_${i}` };
    } else if (r < 0.5) {
      // a recurring call (one of 200), with a fresh result
      const k = Math.floor(next() * 200);
      const toolName = tools[k % tools.length];
      step = { toolName, argsHash: `${toolName}:${hex(5e8 + k)}`, resultHash: hex(2e9 + i), toolCallId: `call_${i}` };
    } else {
      const toolName = tools[Math.floor(next() * tools.length)];
      step = { toolName, argsHash: `${toolName}:${hex(i)}`, resultHash: hex(3e9 + i), toolCallId: `call_${i}` };
    }
    steps.push(step);
  }
  return steps;
}

function pingPongSteps(count: number): Step[] {
  return Array.from({ length: count }, (_, i) => {
    const toolName = i % 2 === 0 ? 'read' : 'exec';
    return { toolName, argsHash: `${toolName}:${hex(i % 2)}`, resultHash: hex(7e9 + i), toolCallId: `call_${i}` };
  });
}

function engineVariant(name: string, steps: Step[], historySize: number, blocked: { count: number }): Variant {
  const run = new LoopRun({ config: resolveLoopDetectionConfig({ enabled: true, historySize }), runId: 'run-1' });
  let i = 0;
  const one = () => {
    const s = steps[i++ % steps.length];
    const call = { toolName: s.toolName, argsHash: s.argsHash, knownPoll: false };
    if (run.check(call).blocked) {
      blocked.count += 1;
      return;
    }
    run.recordCall(call, s.toolCallId);
    run.complete(call, s.toolCallId, { resultHash: s.resultHash });
  };
  for (let n = 0; n < 2 * historySize; n += 1) one(); // fill the history
  return {
    name,
    batch: (ops) => {
      for (let n = 0; n < ops; n += 1) one();
    },
  };
}

async function engine(): Promise<void> {
  const mixed = mixedSteps(1 << 16);
  const pp = pingPongSteps(1 << 16);
  const blocked = { count: 0 };
  const m = await measure(
    [
      engineVariant('mixed @30', mixed, 30, blocked),
      engineVariant('mixed @1000', mixed, 1000, blocked),
      engineVariant('ping-pong @30', pp, 30, blocked),
      engineVariant('ping-pong @1000', pp, 1000, blocked),
    ],
    T,
  );
  table('engine per call (check + recordCall + complete), history full', m, 'mixed @30');
  figures['engine: mixed @1000 / @30'] = ratio(m, 'mixed @1000', 'mixed @30');
  figures['engine: ping-pong @1000 / @30'] = ratio(m, 'ping-pong @1000', 'ping-pong @30');
  if (blocked.count !== 0) sanity.push(`engine: a progressing workload was blocked ${blocked.count} times`);
  details.engine = m;
}

// ---------------------------------------------------------------------------------------------
// Memory, in fresh child processes (clean heaps, --expose-gc).
function memory(): void {
  for (const mode of ['live', 'sequential'] as const) {
    const child = spawnSync(
      process.execPath,
      ['--expose-gc', join(here, 'memory.js'), mode, ...(SMOKE ? ['--smoke'] : [])],
      { encoding: 'utf8', maxBuffer: 1 << 24 },
    );
    if (child.status !== 0) {
      sanity.push(`memory (${mode}): child failed: ${child.stderr}`);
      continue;
    }
    const r = JSON.parse(child.stdout.trim().split('\n').pop()!) as Record<string, number>;
    details[`memory_${mode}`] = r;
    if (mode === 'live') {
      console.log(
        `\nmemory (live): ${r.runs} live runs x ${r.recordsPerRun} records: heap + ArrayBuffers +${(r.deltaBytes / 1048576).toFixed(1)} MB (${r.bytesPerRun.toFixed(0)} B/run); liveRuns=${r.liveRuns}`,
      );
      if (r.liveRuns !== r.runs) sanity.push(`memory (live): expected ${r.runs} live runs, got ${r.liveRuns}`);
      liveRunsMB = (r.deltaBytes / r.runs / 1048576) * 10_000;
      figures[`memory: 10 000 live runs x 30 records, MB${SMOKE ? ' (extrapolated)' : ''}`] = liveRunsMB;
    } else {
      console.log(
        `\nmemory (sequential): ${r.runs} runs; heap + ArrayBuffers after GC: baseline ${(r.baselineBytes / 1048576).toFixed(1)} MB, final ${(r.finalBytes / 1048576).toFixed(1)} MB; liveRuns=${r.liveRuns}`,
      );
      if (r.liveRuns !== 0) sanity.push(`memory (sequential): ${r.liveRuns} runs still live after their roots ended`);
      figures['memory: sequential runs, final / baseline heap'] = r.finalBytes / r.baselineBytes;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// The bounds: the instructions of the variants they compare, each in a probe process of its own
// under callgrind (in smoke mode with short warm-ups), and the memory of live runs.
async function bounds(): Promise<BoundRow[]> {
  let counted: Map<Probe, Count> | undefined;
  if (!hasCallgrind())
    console.warn('\nbench: valgrind or callgrind_annotate not found: the instruction bounds are not measured');
  else {
    const probes = boundProbes().map((p) =>
      SMOKE ? { ...p, warm: Math.ceil(p.warm / 10 / 5) * 5, spans: Math.ceil(p.spans / 10 / 5) * 5 } : p,
    );
    console.log(`\ncounting the instructions of ${probes.length} probes under callgrind (about a minute each)…`);
    counted = await countAll(probes);
    details.instructions = [...counted].map(([p, n]) => ({ ...p, ...n }));
  }
  const per = (kind: string, variant: string) =>
    counted && [...counted].find(([p]) => p.kind === kind && p.variant === variant)?.[1].perSpan;
  const time = (kind: string, numerator: string, denominator: string): string => {
    const m = details[kind] as Measurement | undefined;
    return m && numerator in m.nsPerOp && denominator in m.nsPerOp ? fmt(ratio(m, numerator, denominator)) : '';
  };
  return [
    ...instructionBoundRows(per).map((row, i) => {
      const b = INSTRUCTION_BOUNDS[i];
      return { ...row, 'time, same ratio': time(b.kind, b.numerator, b.denominator) };
    }),
    { ...memoryBoundRow(liveRunsMB, SMOKE), 'time, same ratio': '' },
  ];
}

async function main(): Promise<void> {
  console.log(
    `tool-loop-guard bench${SMOKE ? ' (smoke: few rounds, figures not meaningful)' : ''} — node ${process.version}, ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}${againstEntry !== undefined ? `; ours: ${oursLabel}, against: ${againstLabel}` : ''}`,
  );
  await spanKinds();
  if (run('hashing')) {
    const ab = await hashingTrees();
    if (againstEntry === undefined || ab !== undefined) await hashing(ab);
  }
  if (run('engine')) await engine();
  if (run('memory') || run('bounds')) memory();

  console.log('\nAll figures (value over all rounds; per-round quartiles in parentheses)');
  console.table(Object.entries(figures).map(([figure, value]) => ({ figure, value: fmt(value) })));
  const boundRows = run('bounds') ? await bounds() : [];
  if (boundRows.length > 0) {
    console.log(
      `\nBounds: instructions per span (callgrind) and memory${SMOKE ? ' (smoke: short warm-ups, figures not meaningful)' : ''}; the time of the same ratio in this run beside them`,
    );
    console.table(boundRows);
  }
  for (const s of sanity) console.error(`SANITY: ${s}`);
  writeReport(outFile, {
    cpus: cpus().length,
    load: loadavg(),
    smoke: SMOKE,
    ...(againstEntry !== undefined ? { ours: oursLabel, against: againstLabel } : {}),
    figures,
    bounds: boundRows,
    sanity,
    details,
  });
  console.log(`\nwritten ${outFile}`);
  if (sanity.length > 0) process.exitCode = 2;
  else if (!SMOKE && boundRows.some((row) => row.met === 'no')) {
    console.error('bench: a bound is not met (above)');
    process.exitCode = 1;
  }
}

await main();
