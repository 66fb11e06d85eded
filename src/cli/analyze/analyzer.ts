import { AgentConfigResolver } from '../../config/agent-config-resolver.js';
import type { ResolvedLoopDetectionConfig, ToolLoopGuardConfig } from '../../config/types.js';
import { createDigester, type Digester } from '../../engine/hashing/digest.js';
import { silentLogger, type EngineLogger } from '../../util/logger.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import { DEFAULT_ADAPTERS } from '../../spans/adapters/index.js';
import { expandInputs } from '../files.js';
import type { Progress } from '../progress.js';
import { readInputFile, type DetectedKind } from '../readers/input.js';
import type { InputFormat, InputProblem } from '../readers/types.js';
import { CallSequence } from '../replay/call-sequence.js';
import type { ReplayEvent } from '../replay/replay-event.js';
import { emptyCounters, type RunCounters, type RunReplay } from '../replay/run-replay.js';
import type { RunTimelineView } from '../replay/run-timeline.js';
import { SpanReplayer } from '../replay/span-replayer.js';
import { hashedSpan, replayTraces, type PooledSpan } from '../replay/trace-replay.js';
import { DEFAULT_MAX_LIVE_RUNS, DEFAULT_RECOVERY_WINDOW, DEFAULT_RUN_IDLE_TTL_MS } from '../../otel/options.js';
import type { RecoveryCounts } from '../../engine/recovery/recovery-watch.js';

export interface AnalyzeOptions {
  /** Files and folders (folders are walked for .json / .jsonl / .ndjson). */
  readonly inputs: readonly string[];
  /** Force a format instead of detecting it per file. */
  readonly format?: InputFormat;
  /** OpenClaw-shaped config, as the processor takes it. */
  readonly config: ToolLoopGuardConfig;
  /** Leave out trajectory steps marked `synthetic` (harness-inserted). Default false. */
  readonly skipSynthetic?: boolean;
  /** Receives the engine's log lines (silent by default). */
  readonly logger?: EngineLogger;
  /** Receives config resolution warnings (silent by default). */
  readonly configLogger?: EngineLogger;
  /** Where `config` came from (the `--config` file), named in its warnings. */
  readonly configSource?: string;
  readonly adapters?: readonly ToolSpanAdapter[];
  readonly digester?: Digester;
  readonly runIdleTtlMs?: number;
  readonly maxLiveRuns?: number;
  readonly progress?: Progress;
  /** Called as each problem is found (reports also list them). */
  readonly onProblem?: (problem: InputProblem) => void;
  /**
   * Keep each run's per-call timeline (for the HTML report), of at most this many calls per
   * run; see `RunTimeline` for which calls are kept. Default: no timeline.
   */
  readonly timelineCalls?: number;
  /**
   * Calls watched after each surfaced warning or block (the processor's `recoveryWindow`): did
   * the run leave the loop, repeat it, or end first? 0 turns it off. Default 5, as the processor's.
   */
  readonly recoveryWindow?: number;
}

/** One analysed run. */
export interface RunReport {
  /** Trajectory: the file; traces: the run scope (run id, or trace id). */
  readonly id: string;
  readonly format: InputFormat;
  /** The file the run was read from (the first one, for traces). */
  readonly source?: string;
  readonly service?: string;
  readonly agentId?: string;
  readonly calls: number;
  readonly warnings: number;
  readonly suppressedWarnings: number;
  readonly blocks: number;
  readonly aborts: number;
  readonly arms: number;
  readonly firstBlock?: { readonly call: number; readonly step?: number };
  readonly firstAbort?: number;
  readonly events: readonly ReplayEvent[];
  /** How the run's surfaced verdicts turned out (see `AnalyzeOptions.recoveryWindow`). */
  readonly recovery: RecoveryCounts;
  /**
   * How often the run's state was released before its end (over `maxLiveRuns` live runs, or
   * idle past `runIdleTtlMs`) and detection restarted in it, as in the processor; absent when never.
   */
  readonly evictions?: number;
  /** The run's calls, when `timelineCalls` was set. */
  readonly timeline?: RunTimelineView;
}

/** One input file. */
export interface InputReport {
  readonly file: string;
  readonly format?: DetectedKind;
  readonly layout?: 'lines' | 'document';
  readonly spans: number;
  readonly calls: number;
  readonly problems: number;
  /** The file held no JSON (empty or blank). */
  readonly empty?: boolean;
}

export interface AnalyzeTotals {
  readonly files: number;
  readonly runs: number;
  readonly calls: number;
  readonly warnings: number;
  readonly blocks: number;
  readonly aborts: number;
  readonly runsWithWarnings: number;
  readonly runsWithBlocks: number;
  readonly runsWithAborts: number;
  readonly problems: number;
  /** Recovery outcomes over every run. */
  readonly recovery: RecoveryCounts;
  /** Early releases of runs' states (see `RunReport.evictions`), over every run. */
  readonly evictions: number;
}

export interface AnalyzeReport {
  /** The resolved global config (per-agent blocks may differ). */
  readonly config: ResolvedLoopDetectionConfig;
  readonly inputs: readonly InputReport[];
  readonly runs: readonly RunReport[];
  readonly totals: AnalyzeTotals;
  readonly problems: readonly InputProblem[];
}

const NO_RECOVERY: RecoveryCounts = Object.freeze({ recovered: 0, repeated: 0, runEnded: 0 });

function runReport(
  base: { id: string; format: InputFormat; source?: string; service?: string; agentId?: string },
  replay: RunReplay | undefined,
): RunReport {
  const counters: RunCounters = replay?.counters ?? emptyCounters();
  const timeline = replay?.timeline?.view();
  return {
    ...base,
    calls: counters.calls,
    warnings: counters.warnings,
    suppressedWarnings: counters.suppressedWarnings,
    blocks: counters.blocks,
    aborts: counters.aborts,
    arms: counters.arms,
    ...(counters.firstBlock !== undefined
      ? {
          firstBlock:
            counters.firstBlockStep !== undefined
              ? { call: counters.firstBlock, step: counters.firstBlockStep }
              : { call: counters.firstBlock },
        }
      : {}),
    ...(counters.firstAbort !== undefined ? { firstAbort: counters.firstAbort } : {}),
    events: replay?.events ?? [],
    recovery: replay?.recovery ?? NO_RECOVERY,
    ...(replay !== undefined && replay.evictions > 0 ? { evictions: replay.evictions } : {}),
    ...(timeline ? { timeline } : {}),
  };
}

/**
 * Replays recorded runs through the engine and reports every emitted warning, block and
 * abort. Trajectory files are streamed and replayed one run per file. Trace files (OTLP,
 * Jaeger) are streamed into compact hashed spans — raw arguments and results are dropped as
 * soon as they are hashed — and replayed together in time order once every file is read,
 * so a trace split over several files (rotation) is rebuilt whole.
 */
export async function analyze(options: AnalyzeOptions): Promise<AnalyzeReport> {
  const digester = options.digester ?? (await createDigester());
  const adapters = options.adapters ?? DEFAULT_ADAPTERS;
  const resolver = new AgentConfigResolver(options.config, options.configLogger ?? silentLogger, options.configSource);
  const logger = options.logger ?? silentLogger;
  const replayOptions = {
    configFor: (agentId: string | undefined) => resolver.forAgent(agentId),
    logger,
    runIdleTtlMs: options.runIdleTtlMs ?? DEFAULT_RUN_IDLE_TTL_MS,
    maxLiveRuns: options.maxLiveRuns ?? DEFAULT_MAX_LIVE_RUNS,
    ...(options.timelineCalls !== undefined ? { timelineCalls: options.timelineCalls } : {}),
    recoveryWindow: options.recoveryWindow ?? DEFAULT_RECOVERY_WINDOW,
  };
  const problems: InputProblem[] = [];
  const report = (problem: InputProblem) => {
    problems.push(problem);
    options.progress?.clear();
    options.onProblem?.(problem);
  };

  const expanded = await expandInputs(options.inputs);
  expanded.problems.forEach(report);
  const inputs: InputReport[] = [];
  const runs: RunReport[] = [];
  const pool: PooledSpan[] = [];
  const services = new Map<string, string>();

  for (const [fileIndex, file] of expanded.files.entries()) {
    let format: DetectedKind | undefined;
    let layout: 'lines' | 'document' | undefined;
    let spans = 0;
    let calls = 0;
    let fileProblems = 0;
    let trajectory: { sequence: CallSequence; replayer: SpanReplayer } | undefined;
    let empty = false;
    const progress = () =>
      options.progress?.update(
        () => `analyzing ${fileIndex + 1}/${expanded.files.length} ${file}: ${spans} spans, ${calls} calls`,
      );
    await readInputFile(file, options.format, {
      format(detected, how) {
        format = detected;
        layout = how;
        if (detected === 'trajectory') {
          trajectory = {
            sequence: new CallSequence(file),
            replayer: new SpanReplayer({ ...replayOptions, maxLiveRuns: 1 }),
          };
          trajectory.sequence.open(trajectory.replayer);
        }
      },
      span(span) {
        spans += 1;
        if (span.service !== undefined && !services.has(span.process)) services.set(span.process, span.service);
        pool.push(hashedSpan(span, file, adapters, digester));
        if ((spans & 1023) === 0) progress();
      },
      call(call) {
        if (options.skipSynthetic && call.synthetic) return;
        calls += 1;
        trajectory!.sequence.replay(trajectory!.replayer, trajectory!.sequence.prepare(digester, call, calls));
        if ((calls & 255) === 0) progress();
      },
      empty() {
        empty = true;
      },
      problem(message, line) {
        fileProblems += 1;
        report({ file, ...(line !== undefined ? { line } : {}), message });
      },
    });
    progress();
    inputs.push({
      file,
      ...(format !== undefined ? { format } : {}),
      ...(layout !== undefined ? { layout } : {}),
      spans,
      calls,
      problems: fileProblems,
      ...(empty ? { empty } : {}),
    });
    if (trajectory) {
      trajectory.sequence.close(trajectory.replayer);
      const replay = trajectory.replayer.runs[0]?.replay;
      runs.push(runReport({ id: file, format: 'trajectory', source: file }, replay));
    }
  }

  if (pool.length > 0) {
    options.progress?.update(() => `replaying ${pool.length} spans`);
    const traceRuns = replayTraces(pool, replayOptions);
    const formatOf = new Map(inputs.map((input) => [input.file, input.format]));
    for (const run of traceRuns) {
      const format = formatOf.get(run.source ?? '');
      const service = services.get(run.process);
      runs.push(
        runReport(
          {
            id: run.runKey,
            format: format === 'jaeger' ? 'jaeger' : 'otlp',
            ...(run.source !== undefined ? { source: run.source } : {}),
            ...(service !== undefined ? { service } : {}),
            ...(run.agentId !== undefined ? { agentId: run.agentId } : {}),
          },
          run.replay,
        ),
      );
    }
  }
  options.progress?.clear();

  const sum = (pick: (run: RunReport) => number) => runs.reduce((total, run) => total + pick(run), 0);
  return {
    config: resolver.forAgent(undefined),
    inputs,
    runs,
    totals: {
      files: expanded.files.length,
      runs: runs.length,
      calls: sum((run) => run.calls),
      warnings: sum((run) => run.warnings),
      blocks: sum((run) => run.blocks),
      aborts: sum((run) => run.aborts),
      runsWithWarnings: runs.filter((run) => run.warnings > 0).length,
      runsWithBlocks: runs.filter((run) => run.blocks > 0).length,
      runsWithAborts: runs.filter((run) => run.aborts > 0).length,
      problems: problems.length,
      recovery: {
        recovered: sum((run) => run.recovery.recovered),
        repeated: sum((run) => run.recovery.repeated),
        runEnded: sum((run) => run.recovery.runEnded),
      },
      evictions: sum((run) => run.evictions ?? 0),
    },
    problems,
  };
}
