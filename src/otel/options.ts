import { diag, type DiagLogger, type MeterProvider, type TracerProvider } from '@opentelemetry/api';
import { snapshotConfig } from '../config/snapshot.js';
import type { ToolLoopGuardConfig } from '../config/types.js';
import type { LoopBudget } from '../engine/cost/loop-budget.js';
import type { ToolSpanAdapter } from '../spans/adapters/adapter.js';
import { DEFAULT_ADAPTERS } from '../spans/adapters/index.js';
import { declaresTriggers } from '../spans/span-triggers.js';
import { describeValue } from '../util/describe-value.js';
import { isRecord } from '../util/is-record.js';
import { ownValue } from '../util/own-value.js';
import { PACKAGE_NAME } from '../version.js';
import type { LoopAbortEvent, LoopEvent } from './loop-event.js';

/** Options of {@link ToolLoopSpanProcessor.create}. Each is resolved once: explicit value → env var → default. */
export interface ToolLoopSpanProcessorOptions {
  /**
   * OpenClaw-shaped config (`{ tools: { loopDetection }, agents: { list } }`).
   * Default: the JSON5 file named by `configFile` / `TOOL_LOOP_GUARD_CONFIG`, else `{}`
   * (rolling detectors off, post-compaction guard on).
   */
  config?: ToolLoopGuardConfig;
  /** Path of a JSON5 config file, used when `config` is absent. Env: `TOOL_LOOP_GUARD_CONFIG`. */
  configFile?: string;
  /**
   * Called synchronously for every emitted warning and every critical. An exception, or the
   * rejection of the promise an async callback returns, is caught and logged through `diag`;
   * the span is not held while the promise is pending.
   */
  onLoopEvent?: (event: LoopEvent) => void;
  /**
   * Called synchronously when the post-compaction guard aborts a run. An exception or a
   * rejection is caught and logged, as for `onLoopEvent`.
   */
  onAbort?: (event: LoopAbortEvent) => void;
  /**
   * Also abort the run's signal on a critical verdict (for spans that cannot be blocked
   * before they run). Default `false`. Env: `TOOL_LOOP_GUARD_ABORT_ON_CRITICAL` (same words as
   * `redactContent`); an unrecognised value keeps the default `false`, with a `diag` warning.
   */
  abortOnCritical?: boolean;
  /**
   * Remove raw `gen_ai.tool.call.arguments` / `gen_ai.tool.call.result` (and the adapters'
   * content attributes) after hashing, before export — the GenAI ones from any span, each
   * adapter's from the spans that carry its triggers. Default `false`. Env:
   * `TOOL_LOOP_GUARD_REDACT_CONTENT` (`true`/`yes`/`on`/`1` or `false`/`no`/`off`/`0`, any
   * case); any other value, or a non-boolean option, turns it **on** with a `diag` warning.
   * Needs an SDK that calls `onEnding` (sdk-trace-base >= 2.3), or `wrapExporter`.
   */
  redactContent?: boolean;
  /**
   * Idle time after which a run's state is released, ms. A run with a tool span in flight is never
   * idle: its idle time starts when its last tool span ends. Default 900 000 (15 min). Env:
   * `TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS`.
   */
  runIdleTtlMs?: number;
  /** Most runs tracked at once; the least recently active is evicted first. Default 10 000. Env: `TOOL_LOOP_GUARD_MAX_LIVE_RUNS`. */
  maxLiveRuns?: number;
  /**
   * Seed of the xxhash64 digests. Default `0` (hashes comparable across processes); `'random'`
   * draws a per-process seed (hashes of short secrets cannot be brute-forced from exported
   * spans, but no longer match across processes). Env: `TOOL_LOOP_GUARD_HASH_SEED`.
   */
  hashSeed?: bigint | number | 'random';
  /** Span conventions to recognise, tried in order. Default: all built-in adapters. */
  adapters?: readonly ToolSpanAdapter[];
  /** Meter provider for the `tool_loop.events` counter. Default: the global one (no-op until set). */
  meterProvider?: MeterProvider;
  /** Clock in ms, for tests. Default `Date.now`. */
  clock?: () => number;
  /**
   * `'enforce'` (default): criticals block and the post-compaction guard aborts. `'shadow'`:
   * every verdict is reached and reported as `tool_loop.would_warn` / `tool_loop.would_block` /
   * `tool_loop.would_abort` events (actions `would_warn` / `would_block` / `would_abort`), and
   * nothing is blocked or aborted: no verdict reaches the helpers, so `traceToolCall` runs every
   * tool, and `onLoopEvent` / `onAbort` are not called. Env: `TOOL_LOOP_GUARD_MODE`; any other
   * value keeps `'enforce'`, with a `diag` warning.
   */
  mode?: 'enforce' | 'shadow';
  /**
   * Token budget of a detected loop: once a loop's warning finds that the run's model calls
   * reported at least this many tokens (`gen_ai.usage.input_tokens` + `output_tokens` of its
   * chat spans) since the loop's first member call, the call is critical (`tool_loop.budget` =
   * `tokens`), before the count thresholds. Default: none. Env: `TOOL_LOOP_GUARD_BUDGET_TOKENS`;
   * anything but a positive integer means none, with a `diag` warning.
   */
  budgetTokens?: number;
  /**
   * Time budget of a detected loop, ms since its first member call, as `budgetTokens` does for
   * tokens (`tool_loop.budget` = `time`). Default: none. Env: `TOOL_LOOP_GUARD_BUDGET_MS`.
   */
  budgetMs?: number;
  /**
   * Emit an evidence span for each critical: `run_guardrail tool-loop-guard` (INTERNAL, a child
   * of the judged tool span) with a span link to every member call of the loop, the GenAI
   * guardrail drafts' attributes and status ERROR (UNSET in shadow mode). Default `true`; it
   * needs a tracer (see `tracerProvider`). Env: `TOOL_LOOP_GUARD_EVIDENCE_SPANS` (the words of
   * `redactContent`); an unrecognised value keeps `true`, with a `diag` warning.
   */
  evidenceSpans?: boolean;
  /**
   * Where evidence spans are created: a provider, or a function returning one (asked at each
   * judged call), for the provider this processor is registered with, which does not exist yet
   * when the processor is created. Default: the global tracer provider, once one is registered
   * (`trace.setGlobalTracerProvider`, as `NodeSDK.start()` does). Without a provider there are
   * no evidence spans, and calls keep no span references.
   */
  tracerProvider?: TracerProvider | (() => TracerProvider | undefined);
  /**
   * Recovery tracking: calls watched after each surfaced warning or block. The next call with
   * one of the loop's signatures counts as `repeated`, this many calls without one as
   * `recovered`, the run's end before either as `run_ended` (counter `tool_loop.recovery`, per
   * run on its state). `0` turns it off. Default 5. Env: `TOOL_LOOP_GUARD_RECOVERY_WINDOW`.
   */
  recoveryWindow?: number;
}

/** Options after resolution. */
export interface ResolvedProcessorOptions {
  readonly configFile?: string;
  readonly abortOnCritical: boolean;
  readonly redactContent: boolean;
  readonly runIdleTtlMs: number;
  readonly maxLiveRuns: number;
  readonly hashSeed: bigint;
  readonly adapters: readonly ToolSpanAdapter[];
  readonly clock: () => number;
  readonly onLoopEvent?: (event: LoopEvent) => void;
  readonly onAbort?: (event: LoopAbortEvent) => void;
  readonly mode: 'enforce' | 'shadow';
  /** Absent when neither budget is set. */
  readonly budget?: LoopBudget;
  readonly evidenceSpans: boolean;
  readonly tracerProvider?: TracerProvider | (() => TracerProvider | undefined);
  readonly recoveryWindow: number;
}

/** Default `runIdleTtlMs`: 15 minutes. */
export const DEFAULT_RUN_IDLE_TTL_MS = 15 * 60 * 1000;
/** Default `maxLiveRuns`. */
export const DEFAULT_MAX_LIVE_RUNS = 10_000;
/** Default `recoveryWindow`. */
export const DEFAULT_RECOVERY_WINDOW = 5;

type Env = Readonly<Record<string, string | undefined>>;

/** Words a boolean environment variable may hold, compared trimmed and in any case. */
const TRUE_WORDS: ReadonlySet<string> = new Set(['true', '1', 'yes', 'on']);
const FALSE_WORDS: ReadonlySet<string> = new Set(['false', '0', 'no', 'off']);

/**
 * The options object as given to `create`, read once: own properties only, each read once (its
 * values as they are). Anything but an object (`null` included) warns and means the defaults;
 * a property that cannot be read warns and is left out.
 */
export function readProcessorOptions(given: unknown, logger: DiagLogger): ToolLoopSpanProcessorOptions {
  // Without a prototype, as the snapshot: an option inherited through a polluted
  // `Object.prototype` (say `config` or `mode`) is never read.
  const defaults = (): ToolLoopSpanProcessorOptions => Object.create(null) as ToolLoopSpanProcessorOptions;
  if (given === undefined) return defaults();
  const snapshot = snapshotConfig(given, '(options)', 1);
  for (const issue of snapshot.issues) logger.warn(`option ${issue.path}: ${issue.message}`);
  if (isRecord(snapshot.value)) return snapshot.value;
  logger.warn(`options must be an object, got ${describeValue(snapshot.value)}; using the defaults`);
  return defaults();
}

/** Resolves processor options: explicit value → env var → default; invalid values warn and fall back. */
export function resolveProcessorOptions(
  options: ToolLoopSpanProcessorOptions,
  env: Env = process.env,
  logger: DiagLogger = diag.createComponentLogger({ namespace: PACKAGE_NAME }),
): ResolvedProcessorOptions {
  /**
   * A switch: `fallback` when unset, `safe` when set to something that is not a boolean (for
   * `redactContent`, on: a mistyped switch must not export content).
   */
  const bool = (key: keyof ToolLoopSpanProcessorOptions, envKey: string, fallback: boolean, safe: boolean): boolean => {
    const explicit = options[key];
    if (explicit !== undefined) {
      if (typeof explicit === 'boolean') return explicit;
      logger.warn(`option ${key} must be a boolean, got ${describeValue(explicit)}; using ${safe}`);
      return safe;
    }
    const raw = ownValue(env, envKey)?.trim().toLowerCase();
    if (raw === undefined || raw === '') return fallback;
    if (TRUE_WORDS.has(raw)) return true;
    if (FALSE_WORDS.has(raw)) return false;
    logger.warn(`${envKey}=${describeValue(raw)} is not a boolean (true/false, yes/no, on/off, 1/0); using ${safe}`);
    return safe;
  };
  /** An integer of at least `min`; `fallback` when unset or invalid (`undefined`: none). */
  const integer = <F extends number | undefined>(
    key: keyof ToolLoopSpanProcessorOptions,
    envKey: string,
    fallback: F,
    min = 1,
  ): number | F => {
    const explicit = options[key];
    const fromEnv = ownValue(env, envKey);
    const source = explicit !== undefined ? `option ${key}` : `${envKey}`;
    const value =
      explicit !== undefined ? explicit : fromEnv !== undefined && fromEnv.trim() !== '' ? Number(fromEnv) : undefined;
    if (value === undefined) return fallback;
    if (typeof value === 'number' && Number.isSafeInteger(value) && value >= min) return value;
    const kind = min === 0 ? 'a non-negative integer' : 'a positive integer';
    logger.warn(`${source} must be ${kind}, got ${describeValue(value)}; using ${fallback ?? 'none'}`);
    return fallback;
  };
  const positive = (key: keyof ToolLoopSpanProcessorOptions, envKey: string, fallback: number): number =>
    integer(key, envKey, fallback);

  const given: unknown = options.adapters ?? DEFAULT_ADAPTERS;
  let adapters: readonly ToolSpanAdapter[] = DEFAULT_ADAPTERS;
  if (isAdapterList(given)) adapters = given;
  else logger.warn('option adapters must be an array of ToolSpanAdapter; using the built-in adapters');
  const malformed = adapters.filter((a) => a.triggers !== undefined && !declaresTriggers(a));
  if (malformed.length > 0) {
    logger.warn(
      `adapter triggers must be {attributes: string[], spanNames?: string[]} (${malformed.map((a) => a.name).join(', ')}); every span is shown to every adapter`,
    );
  }
  const clock = typeof options.clock === 'function' ? options.clock : Date.now;
  const callback = <K extends 'onLoopEvent' | 'onAbort'>(key: K): ToolLoopSpanProcessorOptions[K] => {
    const value = options[key];
    if (value === undefined || typeof value === 'function') return value;
    logger.warn(`option ${key} must be a function; ignored`);
    return undefined;
  };
  const configFile = options.configFile ?? (ownValue(env, 'TOOL_LOOP_GUARD_CONFIG')?.trim() || undefined);
  const budgetTokens = integer('budgetTokens', 'TOOL_LOOP_GUARD_BUDGET_TOKENS', undefined);
  const budgetMs = integer('budgetMs', 'TOOL_LOOP_GUARD_BUDGET_MS', undefined);
  const budget: LoopBudget | undefined =
    budgetTokens === undefined && budgetMs === undefined
      ? undefined
      : {
          ...(budgetTokens !== undefined ? { tokens: budgetTokens } : {}),
          ...(budgetMs !== undefined ? { ms: budgetMs } : {}),
        };
  const tracerProvider = options.tracerProvider;
  const validProvider =
    tracerProvider === undefined || typeof tracerProvider === 'function' || isTracerProvider(tracerProvider);
  if (!validProvider)
    logger.warn(
      'option tracerProvider must be a TracerProvider (with getTracer) or a function returning one; using the global tracer provider',
    );

  return {
    configFile: options.config === undefined ? configFile : undefined,
    // An unreadable abortOnCritical keeps its default: a typo must not start stopping runs.
    abortOnCritical: bool('abortOnCritical', 'TOOL_LOOP_GUARD_ABORT_ON_CRITICAL', false, false),
    redactContent: bool('redactContent', 'TOOL_LOOP_GUARD_REDACT_CONTENT', false, true),
    runIdleTtlMs: positive('runIdleTtlMs', 'TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS', DEFAULT_RUN_IDLE_TTL_MS),
    maxLiveRuns: positive('maxLiveRuns', 'TOOL_LOOP_GUARD_MAX_LIVE_RUNS', DEFAULT_MAX_LIVE_RUNS),
    hashSeed:
      options.hashSeed !== undefined
        ? resolveSeed(options.hashSeed, 'option hashSeed', logger)
        : resolveSeed(ownValue(env, 'TOOL_LOOP_GUARD_HASH_SEED'), 'TOOL_LOOP_GUARD_HASH_SEED', logger),
    adapters,
    clock,
    onLoopEvent: callback('onLoopEvent'),
    onAbort: callback('onAbort'),
    mode: resolveMode(options.mode, ownValue(env, 'TOOL_LOOP_GUARD_MODE'), logger),
    ...(budget ? { budget } : {}),
    evidenceSpans: bool('evidenceSpans', 'TOOL_LOOP_GUARD_EVIDENCE_SPANS', true, true),
    ...(validProvider && tracerProvider !== undefined ? { tracerProvider } : {}),
    recoveryWindow: integer('recoveryWindow', 'TOOL_LOOP_GUARD_RECOVERY_WINDOW', DEFAULT_RECOVERY_WINDOW, 0),
  };
}

/** `mode`: explicit → `TOOL_LOOP_GUARD_MODE` → `'enforce'`; anything else warns and enforces (a typo must not stop guarding). */
function resolveMode(explicit: unknown, fromEnv: string | undefined, logger: DiagLogger): 'enforce' | 'shadow' {
  const source = explicit !== undefined ? 'option mode' : 'TOOL_LOOP_GUARD_MODE';
  const value = explicit !== undefined ? explicit : fromEnv?.trim().toLowerCase() || undefined;
  if (value === undefined || value === 'enforce') return 'enforce';
  if (value === 'shadow') return 'shadow';
  logger.warn(`${source} must be 'enforce' or 'shadow', got ${describeValue(value)}; using 'enforce'`);
  return 'enforce';
}

function resolveSeed(value: unknown, source: string, logger: DiagLogger): bigint {
  if (value === undefined || value === '') return 0n;
  if (value === 'random') {
    const bytes = crypto.getRandomValues(new Uint8Array(8));
    return bytes.reduce((seed, byte) => (seed << 8n) | BigInt(byte), 0n);
  }
  try {
    const seed = BigInt(value as bigint | number | string);
    if (seed >= 0n && seed < 1n << 64n) return seed;
  } catch {
    // fall through to the warning
  }
  logger.warn(`${source} must be 'random' or an integer in [0, 2^64), got ${describeValue(value)}; using 0`);
  return 0n;
}

function isTracerProvider(value: unknown): value is TracerProvider {
  return isRecord(value) && typeof value.getTracer === 'function';
}

/** Whether a value is a list of objects that have the two methods every adapter must have. */
function isAdapterList(value: unknown): value is readonly ToolSpanAdapter[] {
  return (
    Array.isArray(value) &&
    value.every((a) => isRecord(a) && typeof a.matchStart === 'function' && typeof a.readEnd === 'function')
  );
}
