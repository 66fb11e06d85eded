import { resolve, sep } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import { createDigester } from '../../engine/hashing/digest.js';
import { PACKAGE_VERSION } from '../../version.js';
import { UsageError, integerRange, loadCliConfig, positiveInteger } from '../options.js';
import { Progress, type CliIo } from '../progress.js';
import { formatProblem } from '../readers/types.js';
import { renderTable } from '../table.js';
import { loadRunLabels } from './labels.js';
import {
  evaluate,
  gridPoints,
  hashRuns,
  rankRows,
  SETTABLE_KEYS,
  sweep,
  type SettableKey,
  type SweepMetrics,
  type SweepRow,
} from './sweep.js';

export const SWEEP_USAGE = `Usage: tool-loop-guard sweep --index <index.json> [options] [folders...]

Replays labelled trajectory runs under a grid of thresholds and reports, per setting:
false positives (resolved runs with at least one block), loop runs blocked (unresolved runs
that hit their limit), how early (mean first-block call, mean calls saved), warnings per run.
Each call is hashed once; only the replay is repeated per setting.

Options:
  --index <file>      labels: {trajectories: [{file, agent, resolved, hit_limit}]} (files relative to it)
  [folders...]        only runs whose file is under these folders (default: every run of the index)
  --warning <range>   warningThreshold values       (default 3..10)
  --critical <range>  criticalThreshold values      (default 4..20); pairs with critical <= warning are skipped
  --history <range>   historySize values            (default: config / 30)
  --breaker <range>   globalCircuitBreakerThreshold (default: config / 30, clamped above critical)
  --unknown <range>   unknownToolThreshold          (default: config / 10)
  --window <range>    postCompactionGuard.windowSize; no effect on trajectories (no compaction
                      markers), so equal rows are merged
  --set <key>=<range> another numeric tools.loopDetection key to sweep (repeatable): cycleCriticalLaps,
                      identicalCallBudget, lowGainCallBudget, similarOutcomeThreshold,
                      redundantCallBudget, similarityPercent, waitCriticalThreshold,
                      typedErrorWarningThreshold, typedErrorCriticalThreshold
  --config <file>     base JSON5 config (its global tools.loopDetection block, profile applied;
                      enabled is forced on), e.g. profiles/small-model.json5
  --skip-synthetic    leave out steps marked "synthetic"
  --top <n>           print only the n best rows (ranked: fewest false positives, most loops
                      blocked, most calls saved, history size nearest 30, fewest warnings,
                      then higher thresholds)
  --json              print JSON
  -h, --help          show this help

Ranges: 5 | 3..10 | 3..10/2 (step) | 3,5,8 (lists may mix ranges).
`;

function pct(part: number, whole: number): string {
  return whole === 0 ? '-' : `${part}/${whole}`;
}

function fixed(value: number | undefined, digits = 1): string {
  return value === undefined ? '-' : value.toFixed(digits);
}

function byAgent(metrics: SweepMetrics): string {
  return metrics.loops.byAgent.map((agent) => `${agent.agent} ${agent.blocked}/${agent.runs}`).join(', ');
}

function windows(row: SweepRow): string {
  const list = row.windowSizes;
  if (list.length <= 2) return list.join(',');
  const contiguous = list.every((value, i) => i === 0 || value === list[i - 1] + 1);
  return contiguous ? `${list[0]}..${list[list.length - 1]}` : list.join(',');
}

function settingsText(row: SweepRow): string {
  return Object.entries(row.settings)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/** Parses `--set key=range` values into sweep axes; throws a usage error naming a bad one. */
export function settingAxes(
  values: readonly string[] | undefined,
): Array<{ readonly key: SettableKey; readonly values: readonly number[] }> {
  return (values ?? []).map((text) => {
    const at = text.indexOf('=');
    const key = at < 0 ? text : text.slice(0, at);
    if (at < 0 || !(SETTABLE_KEYS as readonly string[]).includes(key))
      throw new UsageError(
        `--set ${JSON.stringify(text)}: want <key>=<range> with key one of ${SETTABLE_KEYS.join(', ')}`,
      );
    return { key: key as SettableKey, values: integerRange(`set ${key}`, text.slice(at + 1)) };
  });
}

/** Which of the sweep table's columns (after `settings`) are numbers, aligned right. */
const RIGHT_ALIGNED: readonly boolean[] = Object.freeze([
  ...[true, true, true, true, false, true, true, false],
  ...[true, true, true, true, true, true],
]);

/** The sweep table (with a `settings` column when keys were swept with `--set`). */
export function formatSweepRows(rows: readonly SweepRow[]): string {
  const withSettings = rows.some((row) => Object.keys(row.settings).length > 0);
  return renderTable(
    [
      ...(withSettings ? ['settings'] : []),
      'warn',
      'crit',
      'breaker',
      'history',
      'window',
      'FP resolved',
      'loops blocked',
      'by agent',
      'first block',
      'calls saved',
      'saved %',
      'warn/run',
      'resolved warned',
      'other unres. blocked',
    ],
    rows.map((row) => [
      ...(withSettings ? [settingsText(row)] : []),
      String(row.warningThreshold),
      String(row.criticalThreshold),
      String(row.globalCircuitBreakerThreshold),
      String(row.historySize),
      windows(row),
      pct(row.metrics.resolved.blocked, row.metrics.resolved.runs),
      pct(row.metrics.loops.blocked, row.metrics.loops.runs),
      byAgent(row.metrics),
      fixed(row.metrics.loops.meanFirstBlock),
      fixed(row.metrics.loops.meanCallsSaved),
      `${(row.metrics.loops.savedShare * 100).toFixed(0)}%`,
      fixed(row.metrics.warningsPerRun, 2),
      pct(row.metrics.resolved.warned, row.metrics.resolved.runs),
      pct(row.metrics.otherUnresolved.blocked, row.metrics.otherUnresolved.runs),
    ]),
    withSettings ? [false, ...RIGHT_ALIGNED] : RIGHT_ALIGNED,
  );
}

/** `tool-loop-guard sweep …`; returns the exit code. */
export async function runSweep(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      index: { type: 'string' },
      warning: { type: 'string' },
      critical: { type: 'string' },
      history: { type: 'string' },
      breaker: { type: 'string' },
      unknown: { type: 'string' },
      window: { type: 'string' },
      config: { type: 'string' },
      set: { type: 'string', multiple: true },
      'skip-synthetic': { type: 'boolean' },
      top: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(SWEEP_USAGE);
    return 0;
  }
  if (values.index === undefined) throw new UsageError('sweep needs --index <index.json> (the run labels)');
  const axes = {
    warning: integerRange('warning', values.warning ?? '3..10'),
    critical: integerRange('critical', values.critical ?? '4..20'),
    history: values.history === undefined ? undefined : integerRange('history', values.history),
    breaker: values.breaker === undefined ? undefined : integerRange('breaker', values.breaker),
    unknown: values.unknown === undefined ? undefined : integerRange('unknown', values.unknown),
    window: values.window === undefined ? undefined : integerRange('window', values.window),
    set: settingAxes(values.set),
  };
  const top = values.top === undefined ? undefined : positiveInteger('top', values.top);
  const points = gridPoints(axes);
  if (points.length === 0) throw new UsageError('the grid is empty: every critical value is <= every warning value');

  const config = await loadCliConfig(values.config, (line) => io.stderr(`warning: ${line}\n`));
  const base = config.tools?.loopDetection;
  let labels;
  try {
    labels = await loadRunLabels(values.index);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (positionals.length > 0) {
    const roots = positionals.map((folder) => resolve(folder));
    labels = labels.filter((label) =>
      roots.some((root) => label.file === root || label.file.startsWith(root.endsWith(sep) ? root : root + sep)),
    );
  }
  if (labels.length === 0) throw new UsageError('no labelled run of the index is under the given folders');

  const progress = new Progress(io);
  const started = performance.now();
  const digester = await createDigester();
  let problems = 0;
  const runs = await hashRuns(labels, digester, {
    skipSynthetic: values['skip-synthetic'] === true,
    progress,
    onProblem: (problem) => {
      problems += 1;
      progress.clear();
      io.stderr(`error: ${formatProblem(problem)}\n`);
    },
  });
  const hashedAt = performance.now();
  const rows = rankRows(sweep(runs, points, base, progress));
  const sweptAt = performance.now();
  progress.clear();

  const defaults = evaluate(runs, resolveLoopDetectionConfig({ enabled: true }));
  const shipped = evaluate(runs, resolveLoopDetectionConfig(undefined));
  const best = rows.find((row) => row.metrics.resolved.blocked === 0 && row.metrics.loops.blocked > 0);
  const shown = top === undefined ? rows : rows.slice(0, top);
  const calls = runs.reduce((total, run) => total + run.sequence.calls.length, 0);
  const timing = {
    hashMs: Math.round(hashedAt - started),
    sweepMs: Math.round(sweptAt - hashedAt),
    settings: rows.length,
    gridPoints: points.length,
  };

  if (values.json) {
    io.stdout(
      `${JSON.stringify(
        {
          tool: 'tool-loop-guard',
          version: PACKAGE_VERSION,
          command: 'sweep',
          index: values.index,
          runs: runs.length,
          calls,
          problems,
          axes,
          timing,
          baselines: { openclawDefaultsEnabled: defaults, shippedDefaults: shipped },
          best: best ?? null,
          rows: shown,
        },
        null,
        2,
      )}\n`,
    );
    return 0;
  }
  const out: string[] = [];
  out.push(
    `${runs.length} labelled runs, ${calls} calls; ${points.length} grid points -> ${rows.length} distinct settings; hashing ${timing.hashMs} ms, sweep ${timing.sweepMs} ms\n`,
  );
  out.push(
    `FP resolved = resolved runs with >= 1 block; loops = unresolved runs that hit their limit; first block = mean 1-based call index; calls saved = mean (calls - first block + 1)\n\n`,
  );
  const baseline = (name: string, metrics: SweepMetrics) =>
    `${name}: FP ${pct(metrics.resolved.blocked, metrics.resolved.runs)}, loops blocked ${pct(metrics.loops.blocked, metrics.loops.runs)} (${byAgent(metrics)}), warnings/run ${fixed(metrics.warningsPerRun, 2)}\n`;
  out.push(baseline('OpenClaw default thresholds, detection enabled (W10 C20 B30 H30)', defaults));
  out.push(baseline('Shipped defaults (enabled unset: rolling detectors off)', shipped));
  out.push('\n');
  out.push(formatSweepRows(shown));
  if (top !== undefined && rows.length > top) out.push(`(${rows.length - top} more rows; drop --top to see all)\n`);
  out.push(
    best
      ? `\nBest with 0 false positives: warning ${best.warningThreshold}, critical ${best.criticalThreshold}, history ${best.historySize}${Object.keys(best.settings).length > 0 ? `, ${settingsText(best)}` : ''}: blocks ${best.metrics.loops.blocked}/${best.metrics.loops.runs} loop runs (${byAgent(best.metrics)}), first block at call ${fixed(best.metrics.loops.meanFirstBlock)} on average\n`
      : '\nNo setting blocks a loop run without a false positive.\n',
  );
  io.stdout(out.join(''));
  return 0;
}
