import { ownValue } from '../../util/own-value.js';
import { OVERRIDE_OPTIONS, UsageError, positiveInteger, readOverrides, type ConfigOverrides } from '../options.js';
import { LOG_LEVELS, type LogLevel } from './serve-log.js';

/** Where a receiver listens. */
export interface ListenAddress {
  readonly host: string;
  /** 0: a free port (the service logs the one it got). */
  readonly port: number;
}

/** The options of `serve` that are its own (the detection options are the processor's: see {@link ServeArguments.processor}). */
export interface ServeSettings {
  /** OTLP/gRPC listen address; absent: off. */
  readonly grpc?: ListenAddress;
  /** OTLP/HTTP listen address; absent: off. */
  readonly http?: ListenAddress;
  /**
   * Base URL of the OTLP/HTTP endpoint evidence spans and metrics go to (`/v1/traces`,
   * `/v1/metrics` are appended); `undefined`: the OTLP exporters' own environment variables, else
   * `http://localhost:4318`; `null`: no export.
   */
  readonly exportUrl: string | undefined | null;
  readonly graceMs: number;
  readonly maxWaitMs: number;
  readonly maxBufferedSpans: number;
  readonly maxTraceSpans: number;
  readonly maxRequestBytes: number;
  readonly maxProcesses: number;
  readonly metricIntervalMs: number;
  /** 0: no periodic status line. */
  readonly reportIntervalMs: number;
  readonly logLevel: LogLevel;
  /** `service.instance.id` of this replica's own telemetry and of the loop counters it exports; absent: a random UUID. */
  readonly instanceId?: string;
  /** Where the replica records what it holds, to report at its next start what a kill lost; absent: nowhere. */
  readonly stateFile?: string;
}

/** Processor options given on the command line (each falls back to its `TOOL_LOOP_GUARD_*` variable). */
export interface ProcessorFlags {
  readonly configFile?: string;
  readonly mode?: 'enforce' | 'shadow';
  readonly runIdleTtlMs?: number;
  readonly maxLiveRuns?: number;
  readonly recoveryWindow?: number;
  readonly budgetTokens?: number;
  readonly budgetMs?: number;
  readonly hashSeed?: bigint | 'random';
  readonly redactContent?: boolean;
  readonly evidenceSpans?: boolean;
}

/** The command line of `serve`, read. */
export interface ServeArguments {
  readonly settings: ServeSettings;
  readonly processor: ProcessorFlags;
  readonly overrides: ConfigOverrides;
}

/** Defaults of {@link ServeSettings}. */
export const SERVE_DEFAULTS = {
  grpc: '127.0.0.1:4417',
  http: '127.0.0.1:4418',
  graceMs: 2000,
  maxWaitMs: 15_000,
  maxBufferedSpans: 100_000,
  maxTraceSpans: 10_000,
  maxRequestBytes: 16 * 1024 * 1024,
  maxProcesses: 1000,
  metricIntervalMs: 10_000,
  reportIntervalMs: 60_000,
  logLevel: 'info',
} as const;

/** The numeric settings: flag, environment variable, default, smallest value. */
const NUMBERS = {
  graceMs: ['grace-ms', 'TOOL_LOOP_GUARD_SERVE_GRACE_MS', SERVE_DEFAULTS.graceMs, 0],
  maxWaitMs: ['max-wait-ms', 'TOOL_LOOP_GUARD_SERVE_MAX_WAIT_MS', SERVE_DEFAULTS.maxWaitMs, 1],
  maxBufferedSpans: [
    'max-buffered-spans',
    'TOOL_LOOP_GUARD_SERVE_MAX_BUFFERED_SPANS',
    SERVE_DEFAULTS.maxBufferedSpans,
    1,
  ],
  maxTraceSpans: ['max-trace-spans', 'TOOL_LOOP_GUARD_SERVE_MAX_TRACE_SPANS', SERVE_DEFAULTS.maxTraceSpans, 1],
  maxRequestBytes: ['max-request-bytes', 'TOOL_LOOP_GUARD_SERVE_MAX_REQUEST_BYTES', SERVE_DEFAULTS.maxRequestBytes, 1],
  maxProcesses: ['max-processes', 'TOOL_LOOP_GUARD_SERVE_MAX_PROCESSES', SERVE_DEFAULTS.maxProcesses, 1],
  metricIntervalMs: [
    'metric-interval-ms',
    'TOOL_LOOP_GUARD_SERVE_METRIC_INTERVAL_MS',
    SERVE_DEFAULTS.metricIntervalMs,
    1,
  ],
  reportIntervalMs: [
    'report-interval-ms',
    'TOOL_LOOP_GUARD_SERVE_REPORT_INTERVAL_MS',
    SERVE_DEFAULTS.reportIntervalMs,
    0,
  ],
} as const;

/** Processor options with a flag of their own (their variables are read by the processor's resolution). */
const PROCESSOR_NUMBERS = {
  runIdleTtlMs: 'run-idle-ttl-ms',
  maxLiveRuns: 'max-live-runs',
  recoveryWindow: 'recovery-window',
  budgetTokens: 'budget-tokens',
  budgetMs: 'budget-ms',
} as const;

/** The `parseArgs` options of `serve`. */
export const SERVE_PARSE_OPTIONS = {
  ...OVERRIDE_OPTIONS,
  grpc: { type: 'string' },
  http: { type: 'string' },
  export: { type: 'string' },
  config: { type: 'string' },
  mode: { type: 'string' },
  'hash-seed': { type: 'string' },
  'redact-content': { type: 'boolean' },
  'evidence-spans': { type: 'string' },
  'instance-id': { type: 'string' },
  'state-file': { type: 'string' },
  'log-level': { type: 'string' },
  ...Object.fromEntries(Object.values(NUMBERS).map(([flag]) => [flag, { type: 'string' }])),
  ...Object.fromEntries(Object.values(PROCESSOR_NUMBERS).map((flag) => [flag, { type: 'string' }])),
  help: { type: 'boolean', short: 'h' },
} as const;

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Reads the command line of `serve`. Each setting resolves once: the flag, else its
 * `TOOL_LOOP_GUARD_SERVE_*` variable, else the default. A bad flag is a {@link UsageError}; a bad
 * variable falls back to the default with a warning naming it (`warn`).
 */
export function readServeArguments(
  values: Record<string, string | boolean | undefined>,
  env: Env,
  warn: (message: string) => void,
): ServeArguments {
  const flag = (name: string): string | undefined => (typeof values[name] === 'string' ? values[name] : undefined);
  const fromEnv = (key: string): string | undefined => {
    const value = ownValue(env, key)?.trim();
    return value === undefined || value === '' ? undefined : value;
  };

  const number = ([name, envKey, fallback, min]: readonly [string, string, number, number]): number => {
    const given = flag(name);
    if (given !== undefined) return integerFlag(name, given, min);
    const raw = fromEnv(envKey);
    if (raw === undefined) return fallback;
    if (/^\d+$/.test(raw) && Number(raw) >= min && Number.isSafeInteger(Number(raw))) return Number(raw);
    warn(`${envKey}=${JSON.stringify(raw)} must be an integer of at least ${min}; using ${fallback}`);
    return fallback;
  };
  const setting = (name: string, envKey: string): string | undefined => flag(name) ?? fromEnv(envKey);

  const listen = (name: 'grpc' | 'http', envKey: string, fallback: string): ListenAddress | undefined => {
    const given = flag(name);
    if (given !== undefined) return listenAddress(name, given);
    const raw = fromEnv(envKey);
    if (raw === undefined) return listenAddress(name, fallback);
    try {
      return listenAddress(name, raw);
    } catch (error) {
      warn(`${envKey}: ${(error as Error).message}; using ${fallback}`);
      return listenAddress(name, fallback);
    }
  };

  const grpc = listen('grpc', 'TOOL_LOOP_GUARD_SERVE_GRPC', SERVE_DEFAULTS.grpc);
  const http = listen('http', 'TOOL_LOOP_GUARD_SERVE_HTTP', SERVE_DEFAULTS.http);
  if (!grpc && !http) throw new UsageError('--grpc and --http are both off: nothing would receive spans');

  const exportUrl = exportSetting(flag('export'), fromEnv('TOOL_LOOP_GUARD_SERVE_EXPORT'), warn);

  const logText = setting('log-level', 'TOOL_LOOP_GUARD_SERVE_LOG_LEVEL') ?? SERVE_DEFAULTS.logLevel;
  let logLevel: LogLevel = SERVE_DEFAULTS.logLevel;
  if ((LOG_LEVELS as readonly string[]).includes(logText)) logLevel = logText as LogLevel;
  else if (flag('log-level') !== undefined)
    throw new UsageError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got ${JSON.stringify(logText)}`);
  else warn(`TOOL_LOOP_GUARD_SERVE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; using info`);

  const instanceId = setting('instance-id', 'TOOL_LOOP_GUARD_SERVE_INSTANCE_ID');
  const stateFile = setting('state-file', 'TOOL_LOOP_GUARD_SERVE_STATE_FILE');
  const settings: ServeSettings = {
    ...(grpc ? { grpc } : {}),
    ...(http ? { http } : {}),
    exportUrl,
    graceMs: number(NUMBERS.graceMs),
    maxWaitMs: number(NUMBERS.maxWaitMs),
    maxBufferedSpans: number(NUMBERS.maxBufferedSpans),
    maxTraceSpans: number(NUMBERS.maxTraceSpans),
    maxRequestBytes: number(NUMBERS.maxRequestBytes),
    maxProcesses: number(NUMBERS.maxProcesses),
    metricIntervalMs: number(NUMBERS.metricIntervalMs),
    reportIntervalMs: number(NUMBERS.reportIntervalMs),
    logLevel,
    ...(instanceId !== undefined ? { instanceId } : {}),
    ...(stateFile !== undefined ? { stateFile } : {}),
  };

  const mode = flag('mode');
  if (mode !== undefined && mode !== 'enforce' && mode !== 'shadow')
    throw new UsageError(`--mode must be enforce or shadow, got ${JSON.stringify(mode)}`);
  const evidence = flag('evidence-spans');
  if (evidence !== undefined && evidence !== 'on' && evidence !== 'off')
    throw new UsageError(`--evidence-spans must be on or off, got ${JSON.stringify(evidence)}`);
  const processor: ProcessorFlags = {
    ...(flag('config') !== undefined ? { configFile: flag('config') } : {}),
    ...(mode !== undefined ? { mode } : {}),
    ...(flag('hash-seed') !== undefined ? { hashSeed: hashSeedFlag(flag('hash-seed')!) } : {}),
    ...(values['redact-content'] === true ? { redactContent: true } : {}),
    ...(evidence !== undefined ? { evidenceSpans: evidence === 'on' } : {}),
    ...Object.fromEntries(
      Object.entries(PROCESSOR_NUMBERS).flatMap(([key, name]) => {
        const given = flag(name);
        return given === undefined ? [] : [[key, integerFlag(name, given, key === 'recoveryWindow' ? 0 : 1)]];
      }),
    ),
  };
  return { settings, processor, overrides: readOverrides(values) };
}

function hashSeedFlag(value: string): bigint | 'random' {
  const text = value.trim();
  if (text === 'random') return text;
  if (/^\d+$/.test(text) && BigInt(text) < 1n << 64n) return BigInt(text);
  throw new UsageError(`--hash-seed must be random or an integer in [0, 2^64), got ${JSON.stringify(value)}`);
}

function integerFlag(name: string, value: string, min: number): number {
  if (min > 0) return positiveInteger(name, value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(Number(value)))
    throw new UsageError(`--${name} must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `host:port`, `[v6]:port` or a bare port (on 127.0.0.1); `off`: none. */
export function listenAddress(name: string, text: string): ListenAddress | undefined {
  const value = text.trim();
  if (value === 'off') return undefined;
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[^:[\]\s]+):)?(\d{1,5})$/.exec(value);
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65_535)
    throw new UsageError(`--${name} must be host:port, a port, or off, got ${JSON.stringify(text)}`);
  const host = match[1] === undefined ? '127.0.0.1' : match[1].replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}

/** `--export`, else `TOOL_LOOP_GUARD_SERVE_EXPORT` (a bad value warns: the exporters' environment decides). */
function exportSetting(
  given: string | undefined,
  fromEnv: string | undefined,
  warn: (message: string) => void,
): ServeSettings['exportUrl'] {
  if (given !== undefined) return given === 'none' ? null : exportUrlOf(given);
  if (fromEnv === undefined) return undefined;
  try {
    return fromEnv === 'none' ? null : exportUrlOf(fromEnv);
  } catch (error) {
    warn(`TOOL_LOOP_GUARD_SERVE_EXPORT: ${(error as Error).message}; using the OTLP exporters' environment`);
    return undefined;
  }
}

/** The export base URL (an `http:` or `https:` URL; a trailing slash is dropped). */
function exportUrlOf(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--export must be an http(s) URL or none, got ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError(`--export must be an http(s) URL or none, got ${JSON.stringify(text)}`);
  return text.replace(/\/+$/, '');
}
