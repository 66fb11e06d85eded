/**
 * A small harness for the engine acceptance tests. It mirrors the notation of OpenClaw's loop-detection scenarios:
 *
 * - `C0` = `{enabled: true}` (W 10, C 20, B 30, U 10, history 30).
 * - `R(x, D)` = result `{content: [{type: "text", text: x}], details: D}`.
 * - `h.calls(n, tool, params)` = "N× tool{args} (calls)": pre-call records only.
 * - `h.completed(n, tool, params, resultFn)` = "N× tool{args}→R": a pre-call record, then
 *   the outcome matched by toolCallId.
 * - `h.check(tool, params)` = the detection for the next call, before it is recorded.
 *
 * It drives the real digester, real `LoopRun`s (one per run id, sharing one history window as
 * the runs of an OpenClaw session do) and the real config resolution; no engine internals are
 * mocked. `params` may be a value or a function of the iteration
 * index `i` (0-based), so "read{/file<i>.txt}" is `(i) => ({ path: `/file${i}.txt` })`.
 */
import {
  createDigester,
  describeToolCall,
  detectToolCallLoop,
  hashToolOutcome,
  LoopRun,
  ToolCallHistory,
  type Digester,
  type EngineLogger,
  type LoopCheck,
  type LoopVerdict,
  type OutcomeHash,
  type ToolCallRecord,
  type ToolCallSignature,
} from '../../src/engine-entry.js';
import {
  resolveLoopDetectionConfig,
  type LoopDetectionConfig,
  type ResolvedLoopDetectionConfig,
} from '../../src/config/index.js';

/** `C0` of the scenarios: detection on, every other key at its default. */
export const C0: LoopDetectionConfig = Object.freeze({ enabled: true });

/** An OpenClaw-shaped tool result (the scenarios' `R(x, D)`). */
export interface ToolResult {
  content: Array<{ type: string; text: string }>;
  details?: unknown;
}

/** `R(text, details)`: `{content: [{type: "text", text}], details}`. */
export function R(text: string, details?: unknown): ToolResult {
  return details === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], details };
}

/** A value, or a function of the 0-based iteration index (written so arrow parameters get `number`). */
export type PerCall = ((i: number) => unknown) | object | string | number | boolean | bigint | null | undefined;

function at(value: PerCall, i: number): unknown {
  return typeof value === 'function' ? (value as (i: number) => unknown)(i) : value;
}

/** One log line written through the engine logger. */
export interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly message: string;
}

/** An `EngineLogger` that keeps every line, for assertions. */
export class RecordingLogger implements EngineLogger {
  readonly lines: LogLine[] = [];
  debug(message: string): void {
    this.lines.push({ level: 'debug', message });
  }
  info(message: string): void {
    this.lines.push({ level: 'info', message });
  }
  warn(message: string): void {
    this.lines.push({ level: 'warn', message });
  }
  error(message: string): void {
    this.lines.push({ level: 'error', message });
  }
  /** Messages at one level. */
  at(level: LogLine['level']): string[] {
    return this.lines.filter((line) => line.level === level).map((line) => line.message);
  }
  /** All messages, any level. */
  messages(): string[] {
    return this.lines.map((line) => line.message);
  }
  clear(): void {
    this.lines.length = 0;
  }
}

/** Run ids used by the run-scope scenarios. */
export const RUN = Object.freeze({
  heartbeat1: 'heartbeat-1',
  heartbeat2: 'heartbeat-2',
  run1: 'run-1',
  run2: 'run-2',
});

/** Options of a single call in the harness. */
export interface CallOptions {
  /** Run scope (none = unscoped). */
  runId?: string;
  /** Tool call id; generated (`call-<n>`) when omitted. */
  toolCallId?: string;
}

/** What a tool produced: a result, or a thrown error. */
export type Outcome = { result: unknown } | { error: unknown };

/** The real digester, created once per test file (xxhash-wasm initialises asynchronously). */
let sharedDigester: Promise<Digester> | undefined;
export function digester(): Promise<Digester> {
  sharedDigester ??= createDigester();
  return sharedDigester;
}

/**
 * One diagnostic session with a resolved config and a recording logger.
 * Create it with {@link EngineHarness.create}.
 */
export class EngineHarness {
  /** The session's window, shared by its runs. */
  readonly history = new ToolCallHistory();
  private readonly runs = new Map<string, LoopRun>();
  readonly logger = new RecordingLogger();
  /** The resolution log (invalid values, clamps) of the config block. */
  readonly configLogger = new RecordingLogger();
  readonly config: ResolvedLoopDetectionConfig;
  private nextCallId = 0;

  private constructor(
    readonly digester: Digester,
    block: LoopDetectionConfig | undefined,
  ) {
    this.config = resolveLoopDetectionConfig(block, { logger: this.configLogger });
  }

  /** The session's run of `runId` (trimmed; blank = the unscoped run). */
  runOf(runId?: string): LoopRun {
    const key = runId?.trim() ?? '';
    let run = this.runs.get(key);
    if (!run) {
      run = new LoopRun({ config: this.config, runId: key, logger: this.logger, history: this.history });
      this.runs.set(key, run);
    }
    return run;
  }

  /** A harness for a `tools.loopDetection` block (undefined = no config at all). */
  static async create(block?: LoopDetectionConfig): Promise<EngineHarness> {
    return new EngineHarness(await digester(), block);
  }

  /** The signature the detectors see. */
  sig(tool: string, params: unknown): ToolCallSignature {
    return describeToolCall(this.digester, tool, params);
  }

  /** `argsHash` of a call. */
  argsHash(tool: string, params: unknown): string {
    return this.sig(tool, params).argsHash;
  }

  /** The outcome hash of a result or an error. */
  outcomeHash(tool: string, params: unknown, outcome: Outcome): OutcomeHash {
    return 'error' in outcome
      ? hashToolOutcome(this.digester, { toolName: tool, params, error: outcome.error, isError: true })
      : hashToolOutcome(this.digester, { toolName: tool, params, result: outcome.result });
  }

  /** `resultHash` of a result (shortcut of {@link outcomeHash}). */
  resultHash(tool: string, params: unknown, result: unknown): string | undefined {
    return this.outcomeHash(tool, params, { result }).resultHash;
  }

  /** A pre-call record (history only; no check). Returns its toolCallId. */
  call(tool: string, params: unknown, options: CallOptions = {}): string {
    const toolCallId = options.toolCallId ?? `call-${this.nextCallId++}`;
    this.runOf(options.runId).recordCall(this.sig(tool, params), toolCallId);
    return toolCallId;
  }

  /** "N× tool{args} (calls)": N pre-call records, no outcomes. */
  calls(n: number, tool: string, params: PerCall, options: Omit<CallOptions, 'toolCallId'> = {}): void {
    for (let i = 0; i < n; i += 1) this.call(tool, at(params, i), options);
  }

  /**
   * Records an outcome for a call: projects it, and when it yields a hash (or a loop veto)
   * attaches it to the matching pending record (or appends one). Returns the record that
   * holds the outcome, or `undefined` when the projection gave nothing to record.
   */
  outcome(tool: string, params: unknown, outcome: Outcome, options: CallOptions = {}): ToolCallRecord | undefined {
    const hashed = this.outcomeHash(tool, params, outcome);
    if (hashed.resultHash === undefined && hashed.outcomeKind === undefined) return undefined;
    return this.runOf(options.runId).recordOutcome(this.sig(tool, params), options.toolCallId, hashed);
  }

  /** One completed call: a pre-call record, then its outcome matched by toolCallId. */
  complete(tool: string, params: unknown, outcome: Outcome, options: CallOptions = {}): ToolCallRecord | undefined {
    const toolCallId = this.call(tool, params, options);
    return this.outcome(tool, params, outcome, { ...options, toolCallId });
  }

  /** "N× tool{args}→R": N completed calls with results. */
  completed(
    n: number,
    tool: string,
    params: PerCall,
    result: PerCall,
    options: Omit<CallOptions, 'toolCallId'> = {},
  ): void {
    for (let i = 0; i < n; i += 1) this.complete(tool, at(params, i), { result: at(result, i) }, options);
  }

  /** N completed calls that threw. */
  failed(
    n: number,
    tool: string,
    params: PerCall,
    error: PerCall,
    options: Omit<CallOptions, 'toolCallId'> = {},
  ): void {
    for (let i = 0; i < n; i += 1) this.complete(tool, at(params, i), { error: at(error, i) }, options);
  }

  /** "check tool{args}": the session's check (detector + hook log lines + suppression), nothing recorded. */
  check(tool: string, params: unknown, options: Omit<CallOptions, 'toolCallId'> = {}): LoopCheck {
    return this.runOf(options.runId).check(this.sig(tool, params));
  }

  /** Pure detection (no suppression, no logging) for the next call; `undefined` = not stuck. */
  detect(tool: string, params: unknown, options: Omit<CallOptions, 'toolCallId'> = {}): LoopVerdict | undefined {
    return detectToolCallLoop(this.history.view(options.runId), this.sig(tool, params), this.config)?.verdict;
  }

  /**
   * OpenClaw's before-tool-call flow for one call, through the run's `judge` and `complete`:
   * check; unless blocked, record the call and then its outcome; a blocked call is recorded as
   * the loop's own veto (with `detectors.vetoesExtendStreak`). Returns the check.
   */
  run(tool: string, params: unknown, outcome: Outcome, options: Omit<CallOptions, 'toolCallId'> = {}): LoopCheck {
    const run = this.runOf(options.runId);
    const sig = this.sig(tool, params);
    const toolCallId = `call-${this.nextCallId++}`;
    const checked = run.judge(sig, { toolCallId });
    if (!checked.blocked) run.complete(sig, toolCallId, this.outcomeHash(tool, params, outcome));
    return checked;
  }

  /** The history records, oldest first. */
  records(): ToolCallRecord[] {
    return this.history.records();
  }
}

/** Read the 16 lowercase hex digest after `<tool>:` (our xxhash64 hash format). */
export const HASH_16_HEX = /^[0-9a-f]{16}$/;
