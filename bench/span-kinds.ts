/**
 * The span kinds the bench measures, each with its variants (the bare SDK, ours, the naive
 * baseline, the realistic pipeline, lower bounds). The timing bench (`main.ts`) interleaves a
 * kind's variants; the instruction probe (`instruction-probe.ts`) runs one variant per process.
 * A variant is set up only when asked for, so a probe process holds nothing of the others.
 */
import { ROOT_CONTEXT, SpanKind, trace, type Tracer } from '@opentelemetry/api';
import { pathToFileURL } from 'node:url';
import xxhash from 'xxhash-wasm';
import { NaiveLoopSpanProcessor } from './naive-processor.js';
import { EXPORT_BATCH, PIPELINE_YIELD_EVERY, realisticPipeline } from './pipeline.js';
import {
  EMPTY_PROCESSOR,
  ours,
  processorOf,
  startRun,
  toolSpan,
  tracerWith,
  type BenchProfile,
  type ProcessorFactory,
} from './spans.js';
import {
  argsJson,
  httpAttributes,
  httpClientAttributes,
  smallArgsJson,
  smallResultJson,
  structuredResultJson,
  textResultJson,
} from './workloads.js';

export type Batch = (ops: number) => void | Promise<void>;

export interface KindVariant {
  readonly name: string;
  make(): Promise<Batch>;
  /** Batches hold a multiple of this many spans (see `PIPELINE_YIELD_EVERY`). */
  readonly quantum?: number;
}

export interface MeasuredKind {
  readonly name: string;
  readonly title: string;
  readonly variants: readonly KindVariant[];
  /** Problems seen after the variants ran (loop events on healthy traffic, dropped spans). */
  problems(): string[];
}

/**
 * A batch running `one` per `size` operations; with `yieldEvery` > 0, one that lets microtasks
 * run after about every `yieldEvery` operations (the batch processor needs them to start its
 * next export).
 */
function repeated(one: () => void, yieldEvery: number, size = 1): Batch {
  if (yieldEvery === 0)
    return (ops) => {
      for (let n = 0; n < ops; n += size) one();
    };
  const every = Math.max(1, Math.floor(yieldEvery / size));
  return async (ops) => {
    for (let n = 0, k = 1; n < ops; n += size, k += 1) {
      one();
      if (k % every === 0) await Promise.resolve();
    }
  };
}

interface ToolTraffic {
  readonly name: string;
  readonly title: string;
  /** Distinct argument / result pairs, used in turn. */
  readonly pool: number;
  args(i: number): string;
  result(i: number): string;
  /** The lower-bound variants: floor + xxh64 of both strings, floor + JSON.parse of both. */
  readonly bounds: boolean;
  readonly naive: boolean;
  readonly pipeline: boolean;
  /** Whether ours with the recommended profile runs too ({@link SMALL_MODEL_VARIANT}). */
  readonly smallModel: boolean;
}

/** The variant name of ours with `profile: 'small-model'`. */
export const SMALL_MODEL_VARIANT = 'ours (small-model)';

/** The variant name of the other tree's processor when the bench runs `--against` one. */
export const AGAINST = 'against';

/**
 * The trees an A/B compares (`--against`): `against`, the other tree's processor class; `ours`,
 * when given, replaces this tree's (`--against=<old>..<new>`).
 */
export interface Trees {
  readonly against: ProcessorFactory;
  readonly ours?: ProcessorFactory;
}

/** A build `run.mjs --against` made: its processor entry (`index.js`) and what the bench calls it. */
export interface TreeBuild {
  readonly entry: string;
  readonly label?: string;
}

/** The processor class of a build; throws, naming the build, when its entry exports none. */
async function processorFactoryAt({ entry, label }: TreeBuild): Promise<ProcessorFactory> {
  const built = (await import(pathToFileURL(entry).href)) as { ToolLoopSpanProcessor?: Partial<ProcessorFactory> };
  if (typeof built.ToolLoopSpanProcessor?.create !== 'function')
    throw new Error(`${label ?? entry}: its src/index.ts exports no ToolLoopSpanProcessor with a create()`);
  return built.ToolLoopSpanProcessor as ProcessorFactory;
}

/** The {@link Trees} of an A/B against `against`, with `ours` (when given) in place of this tree. */
export async function treesAt(against: TreeBuild, ours?: TreeBuild): Promise<Trees> {
  const factory = await processorFactoryAt(against);
  return ours === undefined ? { against: factory } : { against: factory, ours: await processorFactoryAt(ours) };
}

/**
 * Tool spans under one run root: arguments at start, result before end, full detection. With
 * `trees`, the variants are the floor, ours and the other tree's processor only: an A/B of two
 * trees, with nothing else in the rounds.
 */
function toolKind(traffic: ToolTraffic, trees: Trees | undefined): MeasuredKind {
  const problems: string[] = [];
  let data: { args: string[]; results: string[]; ids: string[] } | undefined;
  const workload = () =>
    (data ??= {
      args: Array.from({ length: traffic.pool }, (_, i) => traffic.args(i)),
      results: Array.from({ length: traffic.pool }, (_, i) => traffic.result(i)),
      ids: Array.from({ length: 4096 }, (_, i) => `call_${i.toString(36).padStart(8, '0')}`),
    });
  const spans = (tracer: Tracer, extra?: (k: number) => void, yieldEvery = 0): Batch => {
    const { args, results, ids } = workload();
    const { ctx } = startRun(tracer, `run-${traffic.name}`);
    let i = 0;
    const one = () => {
      const k = i % traffic.pool;
      toolSpan(tracer, ctx, 'write', ids[i & 4095], args[k], results[k]);
      extra?.(k);
      i += 1;
    };
    return repeated(one, yieldEvery);
  };
  const oursWith = async (
    pipeline: boolean,
    from?: ProcessorFactory,
    profile: BenchProfile = 'default',
  ): Promise<Batch> => {
    let events = 0;
    const onEvent = () => void (events += 1);
    const processor = from === undefined ? await ours(onEvent, profile) : await processorOf(from, onEvent);
    const p = pipeline ? realisticPipeline() : undefined;
    const batch = spans(
      tracerWith(...(p ? [processor, p.processor] : [processor])),
      undefined,
      p ? PIPELINE_YIELD_EVERY : 0,
    );
    return async (ops) => {
      await batch(ops);
      if (events > 0) problems.push(`${traffic.name}: ${events} loop events on healthy traffic`);
      events = 0;
    };
  };
  const variants: KindVariant[] = [
    { name: 'floor', make: () => Promise.resolve(spans(tracerWith())) },
    { name: 'ours', make: () => oursWith(false, trees?.ours) },
  ];
  if (trees !== undefined) {
    variants.push({ name: AGAINST, make: () => oursWith(false, trees.against) });
    return { name: traffic.name, title: traffic.title, variants, problems: () => problems.splice(0) };
  }
  if (traffic.bounds) {
    variants.push(
      {
        name: 'floor + xxh64',
        make: async () => {
          const api = await xxhash();
          const { args, results } = workload();
          return spans(tracerWith(), (k) => {
            api.h64(args[k]);
            api.h64(results[k]);
          });
        },
      },
      {
        name: 'floor + JSON.parse',
        make: () => {
          const { args, results } = workload();
          return Promise.resolve(
            spans(tracerWith(), (k) => {
              JSON.parse(args[k]);
              JSON.parse(results[k]);
            }),
          );
        },
      },
    );
  }
  if (traffic.smallModel)
    variants.push({ name: SMALL_MODEL_VARIANT, make: () => oursWith(false, undefined, 'small-model') });
  if (traffic.naive)
    variants.push({ name: 'naive', make: () => Promise.resolve(spans(tracerWith(new NaiveLoopSpanProcessor()))) });
  if (traffic.pipeline)
    variants.push(
      {
        name: 'pipeline',
        make: () => Promise.resolve(spans(tracerWith(realisticPipeline().processor), undefined, PIPELINE_YIELD_EVERY)),
        quantum: EXPORT_BATCH,
      },
      { name: 'pipeline + ours', make: () => oursWith(true), quantum: EXPORT_BATCH },
    );
  return { name: traffic.name, title: traffic.title, variants, problems: () => problems.splice(0) };
}

/** Spans in one plain trace: a SERVER root and its four CLIENT children. */
const TRACE_SPANS = 5;

/**
 * Plain spans as a host service makes them (`trees`: see {@link toolKind}): a SERVER root with
 * four CLIENT children, ten HTTP attributes each, no tool and no run. An operation is one span;
 * batches hold whole traces.
 */
function plainKind(trees: Trees | undefined): MeasuredKind {
  const roots = Array.from({ length: 64 }, (_, i) => httpAttributes(i));
  const calls = Array.from({ length: 64 }, (_, i) => [0, 1, 2, 3].map((k) => httpClientAttributes(i, k)));
  const spans = (tracer: Tracer, yieldEvery = 0): Batch => {
    let i = 0;
    const one = () => {
      const j = i++ & 63;
      const root = tracer.startSpan(
        'GET /api/items/:id',
        { kind: SpanKind.SERVER, attributes: roots[j] },
        ROOT_CONTEXT,
      );
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      for (let k = 0; k < TRACE_SPANS - 1; k += 1) {
        const attributes = calls[j][k];
        tracer.startSpan(attributes['http.request.method'] as string, { kind: SpanKind.CLIENT, attributes }, ctx).end();
      }
      root.end();
    };
    return repeated(one, yieldEvery, TRACE_SPANS);
  };
  const oursFrom = (factory?: ProcessorFactory) => async () => spans(tracerWith(await processorOf(factory)));
  const floor: KindVariant = { name: 'floor', make: () => Promise.resolve(spans(tracerWith())), quantum: TRACE_SPANS };
  const variants: KindVariant[] =
    trees !== undefined
      ? [
          floor,
          { name: 'ours', make: oursFrom(trees.ours), quantum: TRACE_SPANS },
          { name: AGAINST, make: oursFrom(trees.against), quantum: TRACE_SPANS },
        ]
      : [
          floor,
          {
            name: 'empty processor',
            make: () => Promise.resolve(spans(tracerWith(EMPTY_PROCESSOR))),
            quantum: TRACE_SPANS,
          },
          { name: 'ours', make: oursFrom(), quantum: TRACE_SPANS },
        ];
  return {
    name: 'plain',
    title: 'plain spans: a SERVER root with four CLIENT children, 10 HTTP attributes each',
    variants,
    problems: () => [],
  };
}

const MB = 1024 * 1024;

/** The tool-span traffic the bench runs, in the order it reports them. */
const TOOL_TRAFFIC: readonly ToolTraffic[] = [
  {
    name: 'tool-100b',
    title: 'tool span: ~100 B args, ~100 B result, unique calls',
    pool: 4096,
    args: smallArgsJson,
    result: smallResultJson,
    bounds: true,
    naive: true,
    pipeline: true,
    smallModel: true,
  },
  {
    name: 'tool-10k-text',
    title: 'tool span: 1 KB args, 10 KB text result, 16 calls repeating',
    pool: 16,
    args: argsJson,
    result: (i) => textResultJson(i),
    bounds: true,
    naive: true,
    pipeline: true,
    smallModel: false,
  },
  {
    name: 'tool-10k-text-unique',
    title: 'tool span: 1 KB args, 10 KB text result, unique calls',
    pool: 512,
    args: argsJson,
    result: (i) => textResultJson(i),
    bounds: true,
    naive: true,
    pipeline: true,
    smallModel: true,
  },
  {
    name: 'tool-10k-structured',
    title: 'tool span: 1 KB args, 10 KB structured result, unique calls',
    pool: 512,
    args: argsJson,
    result: (i) => structuredResultJson(i),
    bounds: true,
    naive: true,
    pipeline: false,
    smallModel: false,
  },
  {
    name: 'tool-1m-text',
    title: 'tool span: 1 KB args, 1 MB text result, 4 calls in turn',
    pool: 4,
    args: argsJson,
    result: (i) => textResultJson(i, MB),
    bounds: true,
    naive: false,
    pipeline: false,
    smallModel: false,
  },
  {
    name: 'tool-10m-text',
    title: 'tool span: 1 KB args, 10 MB text result, 4 calls in turn',
    pool: 4,
    args: argsJson,
    result: (i) => textResultJson(i, 10 * MB),
    bounds: true,
    naive: false,
    pipeline: false,
    smallModel: false,
  },
];

/**
 * One variant of one kind, for a process that runs it alone (the instruction probe, the
 * profiler); with the entries of builds `run.mjs --against` made, among the kind's A/B variants.
 * Throws, naming both, when the kind has no such variant.
 */
export async function findVariant(
  kindName: string,
  variantName: string,
  againstEntry?: string,
  oursEntry?: string,
): Promise<{ kind: MeasuredKind; variant: KindVariant }> {
  const trees =
    againstEntry === undefined
      ? undefined
      : await treesAt({ entry: againstEntry }, oursEntry === undefined ? undefined : { entry: oursEntry });
  const kind = measuredKinds(trees).find((k) => k.name === kindName);
  const variant = kind?.variants.find((v) => v.name === variantName);
  if (!kind || !variant) throw new Error(`no variant '${variantName}' of span kind '${kindName}'`);
  return { kind, variant };
}

/** Every kind, in the order the bench reports them; with `trees`, as an A/B of those (see {@link Trees}). */
export function measuredKinds(trees?: Trees): MeasuredKind[] {
  return [plainKind(trees), ...TOOL_TRAFFIC.map((traffic) => toolKind(traffic, trees))];
}
