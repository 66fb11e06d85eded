import type { DiagLogger } from '@opentelemetry/api';
import type { ToolSpanAdapter } from '../spans/adapters/adapter.js';
import { DEFAULT_ADAPTERS } from '../spans/adapters/index.js';
import { describeValue } from '../util/describe-value.js';
import { snapshotConfig } from '../config/snapshot.js';
import { isRecord } from '../util/is-record.js';
import { ownValue } from '../util/own-value.js';

/**
 * Which spans {@link ToolLoopSampler} records when its delegate drops them:
 * - `'marked'`: spans that carry, as they are created, an attribute key or name by which an
 *   adapter recognises a tool call, a run or an agent (`gen_ai.tool.name`, `gen_ai.operation.name`,
 *   `tool_loop.run_id`, `ai.operationId`, `openinference.span.kind`, `openclaw.tool.execution`, …).
 * - `'traces'`: those, and every later span of a trace in which such a span was recorded, and
 *   every span started under a recording span that is not sampled: the rest of an agent run,
 *   including spans whose convention marks them only after they start, and the spans between a
 *   run and its tool calls that carry the run's scope down to them.
 * - `'all'`: every span (for conventions that mark nothing at creation, outside a `traceRun`).
 */
export type SamplerRecordMode = 'marked' | 'traces' | 'all';

/** Options of {@link ToolLoopSampler}. Each is resolved once: explicit value → env var → default. */
export interface ToolLoopSamplerOptions {
  /** Which dropped spans to record (see {@link SamplerRecordMode}). Default `'traces'`. Env: `TOOL_LOOP_GUARD_SAMPLER_RECORD`. */
  record?: SamplerRecordMode;
  /**
   * Most looping traces remembered, and as many looping run ids; past it the least recently
   * looping are forgotten and their later spans get the delegate's decision again. Default
   * 10 000 (about 1 MB each). Env: `TOOL_LOOP_GUARD_SAMPLER_MAX_LOOPING_RUNS`.
   */
  maxLoopingRuns?: number;
  /**
   * With `record: 'traces'`, most traces remembered as recorded for a run; past it the least
   * recently active is forgotten, and its later spans are recorded only when marked or under a
   * recording parent. Default 10 000 (about 1 MB). Env: `TOOL_LOOP_GUARD_SAMPLER_MAX_RECORDED_TRACES`.
   */
  maxRecordedTraces?: number;
  /** Span conventions whose marks make a span worth recording: pass the processor's. Default: all built-in adapters. */
  adapters?: readonly ToolSpanAdapter[];
}

/** Options after resolution. */
export interface ResolvedSamplerOptions {
  readonly record: SamplerRecordMode;
  readonly maxLoopingRuns: number;
  readonly maxRecordedTraces: number;
  readonly adapters: readonly ToolSpanAdapter[];
}

/** Default `record`. */
export const DEFAULT_SAMPLER_RECORD: SamplerRecordMode = 'traces';
/** Default `maxLoopingRuns`. */
export const DEFAULT_MAX_LOOPING_RUNS = 10_000;
/** Default `maxRecordedTraces`. */
export const DEFAULT_MAX_RECORDED_TRACES = 10_000;

const RECORD_MODES: ReadonlySet<string> = new Set<SamplerRecordMode>(['marked', 'traces', 'all']);

type Env = Readonly<Record<string, string | undefined>>;

/** Resolves the sampler's options: explicit value → env var → default; invalid values warn (naming the key) and fall back. */
export function resolveSamplerOptions(given: unknown, env: Env, logger: DiagLogger): ResolvedSamplerOptions {
  // Own properties only, each read once (see `snapshotConfig`).
  const snapshot = snapshotConfig(given, '(sampler options)', 1);
  for (const issue of snapshot.issues) logger.warn(`sampler option ${issue.path}: ${issue.message}`);
  let options: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  if (isRecord(snapshot.value)) options = snapshot.value;
  else if (given !== undefined)
    logger.warn(`sampler options must be an object, got ${describeValue(given)}; using the defaults`);

  /** The explicit value, else the trimmed env text, with the name to warn under. */
  const source = (key: string, envKey: string): { value: unknown; name: string } => {
    if (options[key] !== undefined) return { value: options[key], name: `option ${key}` };
    return { value: ownValue(env, envKey)?.trim() || undefined, name: envKey };
  };
  const positive = (key: string, envKey: string, fallback: number): number => {
    const { value, name } = source(key, envKey);
    if (value === undefined) return fallback;
    const number = typeof value === 'string' ? Number(value) : value;
    if (typeof number === 'number' && Number.isSafeInteger(number) && number > 0) return number;
    logger.warn(`${name} must be a positive integer, got ${describeValue(value)}; using ${fallback}`);
    return fallback;
  };

  const record = source('record', 'TOOL_LOOP_GUARD_SAMPLER_RECORD');
  let mode = DEFAULT_SAMPLER_RECORD;
  if (typeof record.value === 'string' && RECORD_MODES.has(record.value)) mode = record.value as SamplerRecordMode;
  else if (record.value !== undefined)
    logger.warn(
      `${record.name} must be 'marked', 'traces' or 'all', got ${describeValue(record.value)}; using '${DEFAULT_SAMPLER_RECORD}'`,
    );

  let adapters = DEFAULT_ADAPTERS;
  const givenAdapters = options.adapters;
  if (Array.isArray(givenAdapters) && givenAdapters.every(isAdapter)) adapters = givenAdapters as ToolSpanAdapter[];
  else if (givenAdapters !== undefined)
    logger.warn('option adapters must be an array of ToolSpanAdapter; using the built-in adapters');

  return {
    record: mode,
    maxLoopingRuns: positive('maxLoopingRuns', 'TOOL_LOOP_GUARD_SAMPLER_MAX_LOOPING_RUNS', DEFAULT_MAX_LOOPING_RUNS),
    maxRecordedTraces: positive(
      'maxRecordedTraces',
      'TOOL_LOOP_GUARD_SAMPLER_MAX_RECORDED_TRACES',
      DEFAULT_MAX_RECORDED_TRACES,
    ),
    adapters,
  };
}

function isAdapter(value: unknown): boolean {
  return isRecord(value) && typeof value.matchStart === 'function' && typeof value.readEnd === 'function';
}
