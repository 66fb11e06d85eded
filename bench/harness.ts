/**
 * Interleaved, paired timing for ratios on a noisy shared machine.
 *
 * Each round runs one batch of every variant, in an order rotated from round to round, right
 * after a full GC (so one variant's garbage is not collected on another's clock; the
 * scavenges a variant triggers within its own batch are still charged to it). A batch is a
 * tight loop of `ops` operations timed once with `process.hrtime.bigint()`, so the timer
 * costs nothing per operation. A round gives each variant's ns/op and the ratio of each
 * variant to the base measured within the same round; the reported figure is the median
 * over rounds, which discards rounds disturbed by other tenants.
 */

export interface Variant {
  readonly name: string;
  /** Runs `ops` operations. */
  batch(ops: number): void;
}

export interface Measurement {
  readonly ops: number;
  readonly rounds: number;
  /** Median ns per operation. */
  readonly nsPerOp: Record<string, number>;
  /** Median over rounds of `variant / base` (same-round pairs). */
  readonly ratioToBase: Record<string, number>;
  /** Per-round ns/op, for the JSON output. */
  readonly samples: Record<string, number[]>;
}

export interface MeasureOptions {
  /** The variant ratios are taken against. */
  readonly base: string;
  readonly rounds: number;
  /** Target duration of the base variant's batch, ms (sets `ops`). */
  readonly batchMs: number;
  /** Untimed rounds first (JIT warm-up, steady state). */
  readonly warmupRounds?: number;
  /** Fixed ops per batch (skips calibration). */
  readonly ops?: number;
}

const gc: () => void = (globalThis as { gc?: () => void }).gc ?? (() => undefined);

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function time(variant: Variant, ops: number): number {
  const start = process.hrtime.bigint();
  variant.batch(ops);
  return Number(process.hrtime.bigint() - start);
}

/** Ops such that the base batch lasts about `batchMs`. */
function calibrate(base: Variant, batchMs: number): number {
  let ops = 16;
  for (;;) {
    const ns = time(base, ops);
    if (ns >= batchMs * 1e6 * 0.25 || ops >= 1 << 24)
      return Math.max(1, Math.round((ops * batchMs * 1e6) / Math.max(ns, 1)));
    ops *= 4;
  }
}

export function measure(variants: readonly Variant[], options: MeasureOptions): Measurement {
  const base = variants.find((v) => v.name === options.base);
  if (!base) throw new Error(`no base variant ${options.base}`);
  for (const v of variants) v.batch(8); // first call of every path before calibration
  const ops = options.ops ?? calibrate(base, options.batchMs);
  const samples: Record<string, number[]> = {};
  for (const v of variants) samples[v.name] = [];
  const warmup = options.warmupRounds ?? 2;
  for (let round = -warmup; round < options.rounds; round += 1) {
    const r = ((round % variants.length) + variants.length) % variants.length;
    const order = [...variants.slice(r), ...variants.slice(0, r)];
    const ns: Record<string, number> = {};
    for (const v of order) {
      gc();
      ns[v.name] = time(v, ops) / ops;
    }
    if (round < 0) continue;
    for (const v of variants) samples[v.name].push(ns[v.name]);
  }
  const nsPerOp: Record<string, number> = {};
  const ratioToBase: Record<string, number> = {};
  const m = { ops, rounds: options.rounds, nsPerOp, ratioToBase, samples };
  for (const v of variants) {
    nsPerOp[v.name] = median(samples[v.name]);
    ratioToBase[v.name] = pairedRatio(m, v.name, base.name);
  }
  return m;
}

/** Median over rounds of `a / b` for two variants of one measurement. */
export function pairedRatio(m: Measurement, a: string, b: string): number {
  return median(m.samples[a].map((x, i) => x / m.samples[b][i]));
}
