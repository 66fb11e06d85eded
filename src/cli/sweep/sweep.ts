import { DEFAULT_HISTORY_SIZE } from '../../config/defaults.js';
import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import type { LoopDetectionConfig, ResolvedLoopDetectionConfig } from '../../config/types.js';
import type { Digester } from '../../engine/hashing/digest.js';
import type { Progress } from '../progress.js';
import { readInputFile } from '../readers/input.js';
import type { InputProblem } from '../readers/types.js';
import { CallSequence } from '../replay/call-sequence.js';
import { emptyCounters } from '../replay/run-replay.js';
import { SpanReplayer } from '../replay/span-replayer.js';
import type { RunLabel } from './labels.js';

/** A labelled run, hashed once. */
export interface HashedRun {
  readonly label: RunLabel;
  readonly sequence: CallSequence;
}

/** Reads and hashes each labelled run once (trajectory JSONL). */
export async function hashRuns(
  labels: readonly RunLabel[],
  digester: Digester,
  options: { skipSynthetic?: boolean; onProblem?: (problem: InputProblem) => void; progress?: Progress } = {},
): Promise<HashedRun[]> {
  const runs: HashedRun[] = [];
  for (const [index, label] of labels.entries()) {
    const sequence = new CallSequence(label.id);
    let readable = true;
    await readInputFile(label.file, 'trajectory', {
      format() {},
      span() {},
      call(call) {
        if (!(options.skipSynthetic && call.synthetic)) sequence.add(digester, call);
      },
      problem(message, line) {
        if (line === undefined) readable = false;
        options.onProblem?.({ file: label.file, ...(line !== undefined ? { line } : {}), message });
      },
    });
    if (readable) runs.push({ label, sequence });
    options.progress?.update(() => `hashing ${index + 1}/${labels.length} runs`);
  }
  return runs;
}

/** The numeric `tools.loopDetection` keys a sweep can vary with `--set key=range`. */
export const SETTABLE_KEYS = [
  'cycleCriticalLaps',
  'identicalCallBudget',
  'lowGainCallBudget',
  'similarOutcomeThreshold',
  'redundantCallBudget',
  'similarityPercent',
  'waitCriticalThreshold',
  'typedErrorWarningThreshold',
  'typedErrorCriticalThreshold',
] as const;

/** A key {@link SETTABLE_KEYS} lists. */
export type SettableKey = (typeof SETTABLE_KEYS)[number];

/** The swept knobs of one grid point (unset = the base config's value or the default). */
export interface SweepPoint {
  readonly warningThreshold: number;
  readonly criticalThreshold: number;
  readonly historySize?: number;
  readonly globalCircuitBreakerThreshold?: number;
  readonly unknownToolThreshold?: number;
  readonly windowSize?: number;
  /** Values of other numeric keys (`--set`). */
  readonly settings?: Readonly<Partial<Record<SettableKey, number>>>;
}

/** Per-run result under one setting. */
export interface RunOutcome {
  readonly calls: number;
  readonly warnings: number;
  readonly blocks: number;
  readonly aborts: number;
  readonly firstBlock?: number;
}

/** Replays one hashed run under a resolved config, counters only. */
export function replayHashedRun(run: HashedRun, config: ResolvedLoopDetectionConfig): RunOutcome {
  // One run at a time, in replay time 0: nothing is released before the run's root ends.
  const replayer = new SpanReplayer({
    configFor: () => config,
    keepEvents: false,
    runIdleTtlMs: Number.POSITIVE_INFINITY,
    maxLiveRuns: 1,
  });
  run.sequence.replayAll(replayer);
  const { calls, warnings, blocks, aborts, firstBlock } = replayer.runs[0]?.replay.counters ?? emptyCounters();
  return firstBlock === undefined
    ? { calls, warnings, blocks, aborts }
    : { calls, warnings, blocks, aborts, firstBlock };
}

/** The metrics of one setting over the labelled runs. */
export interface SweepMetrics {
  readonly runs: number;
  /** Resolved runs, and those with ≥ 1 block or abort (false positives) or ≥ 1 warning. */
  readonly resolved: { readonly runs: number; readonly blocked: number; readonly warned: number };
  /** Loop runs: unresolved runs that hit their limit. */
  readonly loops: {
    readonly runs: number;
    readonly blocked: number;
    /** Mean 1-based index of the first block, over blocked loop runs. */
    readonly meanFirstBlock?: number;
    /** Mean of (run length − first block + 1): the blocked call and everything after it. */
    readonly meanCallsSaved?: number;
    /** Calls saved over the calls of all loop runs. */
    readonly savedShare: number;
    readonly byAgent: ReadonlyArray<{
      readonly agent: string;
      readonly runs: number;
      readonly blocked: number;
      readonly meanFirstBlock?: number;
    }>;
  };
  /** Other unresolved runs (no limit hit, or unknown): blocked is informational. */
  readonly otherUnresolved: { readonly runs: number; readonly blocked: number };
  readonly warningsPerRun: number;
  readonly blocks: number;
}

const mean = (values: readonly number[]) =>
  values.length === 0 ? undefined : values.reduce((a, b) => a + b, 0) / values.length;

/** Aggregates run outcomes into {@link SweepMetrics}. */
export function measure(runs: readonly HashedRun[], outcomes: readonly RunOutcome[]): SweepMetrics {
  let resolvedRuns = 0;
  let resolvedBlocked = 0;
  let resolvedWarned = 0;
  let otherRuns = 0;
  let otherBlocked = 0;
  let loopCalls = 0;
  let savedCalls = 0;
  let warnings = 0;
  let blocks = 0;
  const firstBlocks: number[] = [];
  const saved: number[] = [];
  const agents = new Map<string, { runs: number; blocked: number; firsts: number[] }>();
  runs.forEach((run, i) => {
    const outcome = outcomes[i];
    const stopped = outcome.blocks + outcome.aborts > 0;
    warnings += outcome.warnings;
    blocks += outcome.blocks;
    if (run.label.resolved) {
      resolvedRuns += 1;
      if (stopped) resolvedBlocked += 1;
      if (outcome.warnings > 0) resolvedWarned += 1;
    } else if (run.label.hitLimit === true) {
      loopCalls += outcome.calls;
      let agent = agents.get(run.label.agent);
      if (!agent) agents.set(run.label.agent, (agent = { runs: 0, blocked: 0, firsts: [] }));
      agent.runs += 1;
      if (outcome.firstBlock !== undefined) {
        agent.blocked += 1;
        agent.firsts.push(outcome.firstBlock);
        firstBlocks.push(outcome.firstBlock);
        saved.push(outcome.calls - outcome.firstBlock + 1);
        savedCalls += outcome.calls - outcome.firstBlock + 1;
      }
    } else {
      otherRuns += 1;
      if (stopped) otherBlocked += 1;
    }
  });
  const meanFirstBlock = mean(firstBlocks);
  const meanCallsSaved = mean(saved);
  return {
    runs: runs.length,
    resolved: { runs: resolvedRuns, blocked: resolvedBlocked, warned: resolvedWarned },
    loops: {
      runs: [...agents.values()].reduce((total, agent) => total + agent.runs, 0),
      blocked: firstBlocks.length,
      ...(meanFirstBlock !== undefined ? { meanFirstBlock } : {}),
      ...(meanCallsSaved !== undefined ? { meanCallsSaved } : {}),
      savedShare: loopCalls === 0 ? 0 : savedCalls / loopCalls,
      byAgent: [...agents.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([agent, stats]) => {
          const first = mean(stats.firsts);
          return {
            agent,
            runs: stats.runs,
            blocked: stats.blocked,
            ...(first !== undefined ? { meanFirstBlock: first } : {}),
          };
        }),
    },
    otherUnresolved: { runs: otherRuns, blocked: otherBlocked },
    warningsPerRun: runs.length === 0 ? 0 : warnings / runs.length,
    blocks,
  };
}

/** One row of a sweep: a setting (grid points that resolve identically are merged) and its metrics. */
export interface SweepRow {
  readonly warningThreshold: number;
  readonly criticalThreshold: number;
  /** Effective (after clamping) breaker, unknown-tool threshold and history size. */
  readonly globalCircuitBreakerThreshold: number;
  readonly unknownToolThreshold: number;
  readonly historySize: number;
  /** The window sizes merged into this row (the guard needs compaction markers; trajectories have none). */
  readonly windowSizes: readonly number[];
  /** The effective values of the keys swept with `--set` (empty when none was). */
  readonly settings: Readonly<Partial<Record<SettableKey, number>>>;
  readonly metrics: SweepMetrics;
}

/** The config a grid point resolves to: the base block, detection on, the point's knobs. */
export function pointConfig(base: LoopDetectionConfig | undefined, point: SweepPoint): ResolvedLoopDetectionConfig {
  const block: LoopDetectionConfig = {
    ...base,
    enabled: true,
    warningThreshold: point.warningThreshold,
    criticalThreshold: point.criticalThreshold,
  };
  if (point.historySize !== undefined) block.historySize = point.historySize;
  if (point.globalCircuitBreakerThreshold !== undefined)
    block.globalCircuitBreakerThreshold = point.globalCircuitBreakerThreshold;
  if (point.unknownToolThreshold !== undefined) block.unknownToolThreshold = point.unknownToolThreshold;
  if (point.windowSize !== undefined)
    block.postCompactionGuard = { ...base?.postCompactionGuard, windowSize: point.windowSize };
  for (const [key, value] of Object.entries(point.settings ?? {})) block[key as SettableKey] = value;
  return resolveLoopDetectionConfig(block);
}

/** Runs every run under one resolved config. */
export function evaluate(runs: readonly HashedRun[], config: ResolvedLoopDetectionConfig): SweepMetrics {
  return measure(
    runs,
    runs.map((run) => replayHashedRun(run, config)),
  );
}

/**
 * Evaluates grid points over hashed runs. Points that resolve to the same detector config
 * are evaluated once (window sizes always merge: trajectory runs carry no compaction-retry
 * marker, so the post-compaction guard is never armed).
 */
export function sweep(
  runs: readonly HashedRun[],
  points: readonly SweepPoint[],
  base: LoopDetectionConfig | undefined,
  progress?: Progress,
): SweepRow[] {
  const rows = new Map<
    string,
    { config: ResolvedLoopDetectionConfig; point: SweepPoint; windows: Set<number>; metrics?: SweepMetrics }
  >();
  for (const point of points) {
    const config = pointConfig(base, point);
    const key = [
      config.warningThreshold,
      config.criticalThreshold,
      config.globalCircuitBreakerThreshold,
      config.unknownToolThreshold,
      config.historySize,
      ...Object.keys(point.settings ?? {}).map((name) => `${name}=${config[name as SettableKey]}`),
    ].join('/');
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { config, point, windows: new Set() }));
    row.windows.add(config.postCompactionGuard.windowSize);
  }
  let done = 0;
  const out: SweepRow[] = [];
  for (const row of rows.values()) {
    const metrics = evaluate(runs, row.config);
    done += 1;
    progress?.update(() => `sweeping ${done}/${rows.size} settings`);
    out.push({
      warningThreshold: row.config.warningThreshold,
      criticalThreshold: row.config.criticalThreshold,
      globalCircuitBreakerThreshold: row.config.globalCircuitBreakerThreshold,
      unknownToolThreshold: row.config.unknownToolThreshold,
      historySize: row.config.historySize,
      windowSizes: [...row.windows].sort((a, b) => a - b),
      settings: Object.fromEntries(
        Object.keys(row.point.settings ?? {}).map((name) => [name, row.config[name as SettableKey]]),
      ),
      metrics,
    });
  }
  return out;
}

/**
 * Orders rows best first: fewest false positives, most loops blocked, most calls saved (to
 * 0.1 call), the history size nearest the default 30 (a knob left alone beats one tuned for a
 * hair's difference), fewest warnings, then the more conservative thresholds.
 */
export function rankRows(rows: readonly SweepRow[]): SweepRow[] {
  const saved = (row: SweepRow) => Math.round((row.metrics.loops.meanCallsSaved ?? 0) * 10);
  return [...rows].sort(
    (a, b) =>
      a.metrics.resolved.blocked - b.metrics.resolved.blocked ||
      b.metrics.loops.blocked - a.metrics.loops.blocked ||
      saved(b) - saved(a) ||
      Math.abs(a.historySize - DEFAULT_HISTORY_SIZE) - Math.abs(b.historySize - DEFAULT_HISTORY_SIZE) ||
      a.metrics.warningsPerRun - b.metrics.warningsPerRun ||
      b.criticalThreshold - a.criticalThreshold ||
      b.warningThreshold - a.warningThreshold ||
      b.historySize - a.historySize,
  );
}

/** Every combination of the `--set` axes (one empty combination when there is none). */
function settingCombinations(
  axes: ReadonlyArray<{ readonly key: SettableKey; readonly values: readonly number[] }>,
): Array<Partial<Record<SettableKey, number>>> {
  let combinations: Array<Partial<Record<SettableKey, number>>> = [{}];
  for (const axis of axes)
    combinations = combinations.flatMap((combination) =>
      axis.values.map((value) => ({ ...combination, [axis.key]: value })),
    );
  return combinations;
}

/** The grid: every combination with warning < critical (and critical < breaker when both are swept). */
export function gridPoints(axes: {
  warning: readonly number[];
  critical: readonly number[];
  history?: readonly number[];
  breaker?: readonly number[];
  unknown?: readonly number[];
  window?: readonly number[];
  set?: ReadonlyArray<{ readonly key: SettableKey; readonly values: readonly number[] }>;
}): SweepPoint[] {
  const points: SweepPoint[] = [];
  const combinations = settingCombinations(axes.set ?? []);
  const opt = <T>(values: readonly T[] | undefined): (T | undefined)[] =>
    values && values.length > 0 ? [...values] : [undefined];
  for (const warningThreshold of axes.warning) {
    for (const criticalThreshold of axes.critical) {
      if (criticalThreshold <= warningThreshold) continue;
      for (const historySize of opt(axes.history)) {
        for (const globalCircuitBreakerThreshold of opt(axes.breaker)) {
          if (globalCircuitBreakerThreshold !== undefined && globalCircuitBreakerThreshold <= criticalThreshold)
            continue;
          for (const unknownToolThreshold of opt(axes.unknown)) {
            for (const windowSize of opt(axes.window)) {
              for (const settings of combinations) {
                points.push({
                  warningThreshold,
                  criticalThreshold,
                  historySize,
                  globalCircuitBreakerThreshold,
                  unknownToolThreshold,
                  windowSize,
                  ...(Object.keys(settings).length > 0 ? { settings } : {}),
                });
              }
            }
          }
        }
      }
    }
  }
  return points;
}
