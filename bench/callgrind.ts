/**
 * Instructions per span, counted by valgrind's callgrind: counts are repeatable where times on a
 * shared machine are not. Used by the instruction gate (`instructions.ts`) and by the bounds of
 * `npm run bench` (`bounds.ts`). How the count is made repeatable: docs/contributing/bench.md.
 *
 * Each variant runs in its own process (`instruction-probe.ts`), so no other variant's code
 * shapes its inline caches. The probe's clocks are counters (`fixed-clock.ts`), the warm-up runs
 * until the hot code is optimised, and the count leaves out what is left of V8's compiler and
 * collector in the measured phase (reported beside it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

/** How {@link countAll} counts. */
export interface CountOptions {
  /** Also simulate the caches and the branch predictor (several times slower). */
  readonly cacheSim?: boolean;
  /** The processor entry of another tree's build, for its `against` variants (`run.mjs --against`). */
  readonly againstEntry?: string;
  /** With `againstEntry`: the build whose processor is counted as ours. */
  readonly oursEntry?: string;
}

/** Whether valgrind and `callgrind_annotate` are on the PATH. */
export function hasCallgrind(): boolean {
  // Whether it started: `callgrind_annotate --version` exits with status 255.
  const found = (command: string) => spawnSync(command, ['--version'], { stdio: 'ignore' }).error === undefined;
  return found('valgrind') && found('callgrind_annotate');
}

export interface Probe {
  readonly kind: string;
  readonly variant: string;
  readonly warm: number;
  readonly spans: number;
}

/**
 * Every variant the instructions are counted of, with its warm-up and measured spans: enough
 * warm-up for V8 to optimise the hot code (docs/contributing/bench.md). The gate counts `ours`
 * on every kind; the others give the ratios. A plain probe's spans are whole traces (multiples of
 * five). A pipeline probe's span counts are multiples of the batch processor's 512-span export,
 * so both pipeline variants export at the same spans; its scheduled export (a timer) never fires,
 * because a probe yields only to microtasks.
 */
export const PROBES: readonly Probe[] = [
  { kind: 'plain', variant: 'floor', warm: 10000, spans: 4000 },
  { kind: 'plain', variant: 'empty processor', warm: 10000, spans: 4000 },
  { kind: 'plain', variant: 'ours', warm: 10000, spans: 4000 },
  { kind: 'tool-100b', variant: 'floor', warm: 3000, spans: 2000 },
  { kind: 'tool-100b', variant: 'ours', warm: 3000, spans: 2000 },
  { kind: 'tool-100b', variant: 'ours (small-model)', warm: 3000, spans: 2000 },
  { kind: 'tool-10k-text', variant: 'floor', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text', variant: 'floor + xxh64', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text', variant: 'floor + JSON.parse', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text', variant: 'ours', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text', variant: 'naive', warm: 600, spans: 200 },
  { kind: 'tool-10k-text', variant: 'pipeline', warm: 3072, spans: 512 },
  { kind: 'tool-10k-text', variant: 'pipeline + ours', warm: 3072, spans: 512 },
  { kind: 'tool-10k-text-unique', variant: 'floor + JSON.parse', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text-unique', variant: 'ours', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text-unique', variant: 'ours (small-model)', warm: 1500, spans: 600 },
  { kind: 'tool-10k-text-unique', variant: 'naive', warm: 600, spans: 200 },
  { kind: 'tool-10k-text-unique', variant: 'pipeline', warm: 3072, spans: 512 },
  { kind: 'tool-10k-text-unique', variant: 'pipeline + ours', warm: 3072, spans: 512 },
  { kind: 'tool-10k-structured', variant: 'floor + JSON.parse', warm: 1200, spans: 400 },
  { kind: 'tool-10k-structured', variant: 'ours', warm: 1200, spans: 400 },
];

/**
 * One thread (compilation and collection on the main one, in program order), fixed seeds, a
 * collector schedule that does not depend on measured speeds, no incremental marking (whose
 * steps are timed), a fixed young generation, and an old generation large enough that no full
 * collection runs in a probe. The interrupt budget (1/8 of the default) makes hot functions
 * reach the optimising compiler in an eighth of the calls.
 */
const V8_DETERMINISM = [
  '--single-threaded',
  '--random-seed=1',
  '--hash-seed=1',
  '--predictable-gc-schedule',
  '--no-incremental-marking',
  '--min-semi-space-size=16',
  '--max-semi-space-size=16',
  '--initial-old-space-size=1024',
  '--interrupt-budget=8448',
];

/**
 * The simulated caches (size in bytes, ways, line bytes), those of a current x86-64 core: a
 * 32 KiB 8-way L1 instruction cache, a 48 KiB 12-way L1 data cache, a 32 MiB 16-way last
 * level. Fixed rather than read from the host (callgrind's default), which would make the
 * misses differ from one CI machine to the next.
 */
export const SIMULATED_CACHES = ['--I1=32768,8,64', '--D1=49152,12,64', '--LL=33554432,16,64'];

/** Callgrind's events that `--cache-sim` and `--branch-sim` add, and how they are reported. */
const SIMULATED_EVENTS = {
  'L1i misses': ['I1mr'],
  'L1d misses': ['D1mr', 'D1mw'],
  'LL misses': ['ILmr', 'DLmr', 'DLmw'],
  mispredicts: ['Bcm', 'Bim'],
} as const;
export type SimulatedEvent = keyof typeof SIMULATED_EVENTS;

/** A probe's measured phase, per span: what the gate counts, and what it leaves out. */
export interface Count {
  /** Instructions of the measured spans without the JIT compiler and the garbage collector. */
  readonly perSpan: number;
  /** V8's compilers (optimising, on-stack replacement, lazy, baseline) and deoptimisation. */
  readonly jit: number;
  /** Garbage collections (scavenges; the probe's heap leaves no room for a full one). */
  readonly gc: number;
  /** With `--cache-sim`: the simulated misses and mispredicts, without those of the JIT and GC entries. */
  readonly simulated?: Readonly<Record<SimulatedEvent, number>>;
}

/**
 * C++ entries whose inclusive cost is taken out of the count: the runtime functions JavaScript
 * calls to compile or deoptimise, and the collector's entry. Builtins are not listed: a builtin
 * that tail-calls into JavaScript (`CompileLazy`) would carry that code's cost with it.
 */
const JIT_ENTRY = /^v8::internal::Runtime_(?:Compile\w*|InstallBaselineCode|NotifyDeoptimized\w*)\(/;
const GC_ENTRY = /^v8::internal::Heap::CollectGarbage\(/;

/** Per event (callgrind's names): a callgrind dump's total, and the inclusive cost of its JIT and GC entries. */
interface Breakdown {
  readonly total: Map<string, number>;
  readonly jit: Map<string, number>;
  readonly gc: Map<string, number>;
}

/** One event's column of a `callgrind_annotate` row: a count and its share, `0`, or `.` (not counted). */
const COLUMN = /^\s*([\d,]+|\.)(?: \([\s\d.]+%\))?/;

/** The counts and the rest (`file:function [object]`) of a row with `events` columns, or `undefined`. */
function parseRow(line: string, events: number): { counts: number[]; name: string } | undefined {
  const counts: number[] = [];
  let rest = line;
  for (let i = 0; i < events; i += 1) {
    const m = COLUMN.exec(rest);
    if (!m) return undefined;
    counts.push(m[1] === '.' ? 0 : Number(m[1].replaceAll(',', '')));
    rest = rest.slice(m[0].length);
  }
  if (rest.trim() === 'PROGRAM TOTALS') return { counts, name: 'PROGRAM TOTALS' };
  const name = /^\s+(?:\?\?\?|[^:]*):(.*?) \[/.exec(rest);
  return name ? { counts, name: name[1] } : undefined;
}

/** Every event's total in a callgrind dump, and the inclusive cost of its JIT and GC entries. */
function breakdown(dump: string): Breakdown {
  const annotate = spawnSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', dump], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
  });
  if (annotate.status !== 0) throw new Error(`callgrind_annotate ${dump}: ${annotate.stderr || annotate.error}`);
  const shown = /^Events shown:\s+(.+)$/m.exec(annotate.stdout)?.[1].trim().split(/\s+/);
  if (!shown || shown[0] !== 'Ir') throw new Error(`callgrind_annotate ${dump}: no event list`);
  const zero = () => new Map(shown.map((event) => [event, 0]));
  const result: Breakdown = { total: zero(), jit: zero(), gc: zero() };
  const add = (into: Map<string, number>, counts: number[]) =>
    counts.forEach((n, i) => into.set(shown[i], (into.get(shown[i]) ?? 0) + n));
  for (const line of annotate.stdout.split('\n')) {
    const row = parseRow(line, shown.length);
    if (!row) continue;
    if (row.name === 'PROGRAM TOTALS') add(result.total, row.counts);
    else if (JIT_ENTRY.test(row.name)) add(result.jit, row.counts);
    else if (GC_ENTRY.test(row.name)) add(result.gc, row.counts);
  }
  if (!result.total.get('Ir')) throw new Error(`callgrind_annotate ${dump}: no totals`);
  return result;
}

/** Per span, a measured phase's events beyond the JIT and GC entries. */
function perSpan(b: Breakdown, spans: number, events: readonly string[]): number {
  let n = 0;
  for (const event of events) n += (b.total.get(event) ?? 0) - (b.jit.get(event) ?? 0) - (b.gc.get(event) ?? 0);
  return n / spans;
}

function countOf(b: Breakdown, spans: number, cacheSim: boolean): Count {
  const count: Count = {
    perSpan: perSpan(b, spans, ['Ir']),
    jit: (b.jit.get('Ir') ?? 0) / spans,
    gc: (b.gc.get('Ir') ?? 0) / spans,
  };
  if (!cacheSim) return count;
  const simulated = {} as Record<SimulatedEvent, number>;
  for (const [name, events] of Object.entries(SIMULATED_EVENTS) as [SimulatedEvent, readonly string[]][])
    simulated[name] = perSpan(b, spans, events);
  return { ...count, simulated };
}

function count(probe: Probe, dir: string, options: CountOptions): Promise<Count> {
  const { cacheSim = false, againstEntry, oursEntry } = options;
  const out = join(dir, `${probe.kind}.${probe.variant}`.replace(/[^a-z0-9.-]+/gi, '_'));
  const args = [
    '--tool=callgrind',
    `--callgrind-out-file=${out}`,
    '--dump-before=node::CPUUsage*',
    '--dump-instr=no',
    '--compress-strings=no',
    ...(cacheSim ? ['--cache-sim=yes', '--branch-sim=yes', ...SIMULATED_CACHES] : []),
    process.execPath,
    ...V8_DETERMINISM,
    join(here, 'instruction-probe.js'),
    probe.kind,
    probe.variant,
    String(probe.warm),
    String(probe.spans),
    ...(againstEntry === undefined ? [] : [againstEntry, ...(oursEntry === undefined ? [] : [oursEntry])]),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn('valgrind', args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0)
        return reject(new Error(`${probe.kind} / ${probe.variant}: exit ${code}\n${stderr.slice(-2000)}`));
      const dump = readdirSync(dir).find((f) => join(dir, f).startsWith(out) && f.endsWith('.2'));
      if (!dump) return reject(new Error(`${probe.kind} / ${probe.variant}: no second callgrind dump`));
      try {
        resolve(countOf(breakdown(join(dir, dump)), probe.spans, cacheSim));
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}

/**
 * Counts each probe in a process of its own under callgrind, two at a time. Throws when valgrind
 * fails or a probe reports problems.
 */
export async function countAll(probes: readonly Probe[], options: CountOptions = {}): Promise<Map<Probe, Count>> {
  const dir = mkdtempSync(join(tmpdir(), 'tlg-callgrind-'));
  const counts = new Map<Probe, Count>();
  const queue = [...probes];
  const worker = async () => {
    for (let p = queue.shift(); p; p = queue.shift()) counts.set(p, await count(p, dir, options));
  };
  try {
    await Promise.all(Array.from({ length: Math.max(1, Math.min(cpus().length, 2)) }, worker));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return counts;
}
