/**
 * Interleaved timing in CPU time, for ratios that hold on a busy shared machine.
 *
 * - Each variant's batch size is calibrated on that variant (and re-scaled in the warm-up
 *   rounds), so every batch lasts about the same CPU time (`batchMs`): a cheap floor and an
 *   expensive processor are sampled alike.
 * - Each round runs one batch of every variant, in an order rotated from round to round.
 * - The untimed warm-up rounds go on until every variant ran enough operations to be optimised
 *   (`warmupOps`, or `warmupMs` of CPU time for slow ones), not a fixed number of rounds: a
 *   costly variant's batches hold few operations, and it would be timed half-optimised.
 * - A batch is timed in the process's CPU time (`cpu-clock.ts`), not wall time, so the
 *   time it waits for a core while other tenants run is not charged to it.
 * - No `gc()` between batches: the collections a variant's garbage and retained objects cause
 *   land, in steady state, mostly in its own batches, and are part of its cost.
 * The figure per variant is its total CPU time over total operations (GC pauses included);
 * the per-round values give the spread.
 */
import { cpuClock, type CpuClock } from './cpu-clock.js';

export interface Variant {
  readonly name: string;
  /** Runs `ops` operations (a returned promise is awaited inside the timed span). */
  batch(ops: number): void | Promise<void>;
  /** Batches hold a multiple of this many operations (a pipeline exporting every 512 spans). */
  readonly quantum?: number;
}

export interface Measurement {
  readonly clock: CpuClock['kind'];
  readonly rounds: number;
  readonly batchMs: number;
  /** Untimed rounds run before the timed ones. */
  readonly warmupRounds: number;
  /** Operations per batch, per variant. */
  readonly ops: Record<string, number>;
  /** CPU ns per operation over all rounds (total time / total operations). */
  readonly nsPerOp: Record<string, number>;
  /** CPU ns per operation in each round. */
  readonly samples: Record<string, number[]>;
}

export interface MeasureOptions {
  readonly rounds: number;
  /** Target CPU time of every batch, ms. */
  readonly batchMs: number;
  /** Untimed rounds first (JIT warm-up, heap in steady state): at least this many. Default 2. */
  readonly warmupRounds?: number;
  /**
   * Untimed rounds go on until every variant ran at least this many operations in them, or
   * spent `warmupMs` of CPU time in them: V8 optimises a function after enough calls, not after
   * enough rounds, so a costly variant with small batches would otherwise be timed while it is
   * still partly unoptimised. Default 0 (the rounds alone).
   */
  readonly warmupOps?: number;
  /** CPU time after which a variant counts as warm whatever its operations, ms. Default: no limit. */
  readonly warmupMs?: number;
  /** Upper bound of operations per batch (for very slow operations: 1 = one per batch). */
  readonly maxOps?: number;
}

/** A ratio of two variants: over all rounds, and the quartiles of the per-round ratios. */
export interface Ratio {
  readonly value: number;
  readonly q1: number;
  readonly q3: number;
}

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

async function timed(clock: CpuClock, variant: Variant, ops: number): Promise<number> {
  const start = clock.now();
  const pending = variant.batch(ops);
  if (pending) await pending;
  return clock.now() - start;
}

/** Operations that would take `batchMs` at `ns` per `ops`, within bounds, a multiple of the quantum. */
function scaled(variant: Variant, ops: number, ns: number, batchMs: number, maxOps: number): number {
  const q = variant.quantum ?? 1;
  const want = Math.min(maxOps, Math.max(1, Math.round((ops * batchMs * 1e6) / Math.max(ns, 1))));
  return Math.max(q, Math.round(want / q) * q);
}

async function calibrate(clock: CpuClock, variant: Variant, batchMs: number, maxOps: number): Promise<number> {
  let ops = 1;
  for (;;) {
    const ns = await timed(clock, variant, ops);
    if (ns >= batchMs * 1e6 * 0.25 || ops >= maxOps) return scaled(variant, ops, ns, batchMs, maxOps);
    ops *= 4;
  }
}

export async function measure(variants: readonly Variant[], options: MeasureOptions): Promise<Measurement> {
  const clock = cpuClock();
  const maxOps = options.maxOps ?? 1 << 24;
  const ops: Record<string, number> = {};
  for (const v of variants) ops[v.name] = await calibrate(clock, v, options.batchMs, maxOps);
  const samples: Record<string, number[]> = {};
  const total: Record<string, number> = {};
  for (const v of variants) {
    samples[v.name] = [];
    total[v.name] = 0;
  }
  const minWarmup = options.warmupRounds ?? 2;
  const warmupOps = options.warmupOps ?? 0;
  const warmupNs = (options.warmupMs ?? Number.POSITIVE_INFINITY) * 1e6;
  const warmed: Record<string, { ops: number; ns: number }> = {};
  for (const v of variants) warmed[v.name] = { ops: 0, ns: 0 };
  const warm = (v: Variant): boolean => warmed[v.name].ops >= warmupOps || warmed[v.name].ns >= warmupNs;
  let warmupRounds = 0;
  for (let round = 0; ; round += 1) {
    const warming = warmupRounds < minWarmup || !variants.every(warm);
    if (!warming && round - warmupRounds >= options.rounds) break;
    const r = round % variants.length;
    for (const v of [...variants.slice(r), ...variants.slice(0, r)]) {
      const ns = await timed(clock, v, ops[v.name]);
      if (warming) {
        warmed[v.name].ops += ops[v.name];
        warmed[v.name].ns += ns;
        // Calibrated cold; warm code is faster, so the warm-up rounds re-scale the batch.
        ops[v.name] = scaled(v, ops[v.name], ns, options.batchMs, maxOps);
        continue;
      }
      samples[v.name].push(ns / ops[v.name]);
      total[v.name] += ns;
    }
    if (warming) warmupRounds += 1;
  }
  const nsPerOp: Record<string, number> = {};
  for (const v of variants) nsPerOp[v.name] = total[v.name] / (ops[v.name] * options.rounds);
  return { clock: clock.kind, rounds: options.rounds, batchMs: options.batchMs, warmupRounds, ops, nsPerOp, samples };
}

/** `a / b`: total CPU per operation, with the quartiles of the same-round ratios. */
export function ratio(m: Measurement, a: string, b: string): Ratio {
  const perRound = m.samples[a].map((x, i) => x / m.samples[b][i]);
  return { value: m.nsPerOp[a] / m.nsPerOp[b], q1: quantile(perRound, 0.25), q3: quantile(perRound, 0.75) };
}
