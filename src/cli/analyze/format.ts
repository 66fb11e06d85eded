import type { ResolvedLoopDetectionConfig } from '../../config/types.js';
import type { RecoveryCounts } from '../../engine/recovery/recovery-watch.js';
import { formatProblem } from '../readers/types.js';
import type { ReplayEvent } from '../replay/replay-event.js';
import { renderTable } from '../table.js';
import { printable } from '../terminal-text.js';
import type { AnalyzeReport, RunReport } from './analyzer.js';

/** One line describing a resolved config. */
export function describeConfig(config: ResolvedLoopDetectionConfig): string {
  const detectors = config.enabled
    ? `rolling detectors on (warning ${config.warningThreshold}, critical ${config.criticalThreshold}, breaker ${config.globalCircuitBreakerThreshold}, unknown-tool ${config.unknownToolThreshold}, history ${config.historySize})`
    : 'rolling detectors off (tools.loopDetection.enabled is not true; --enable turns them on)';
  const guard = config.postCompactionGuard.enabled
    ? `post-compaction guard on (window ${config.postCompactionGuard.windowSize})`
    : 'post-compaction guard off';
  return `${detectors}; ${guard}`;
}

/**
 * How the warnings and blocks turned out (the calls after each: left the loop, repeated it, or
 * the run ended first), or `undefined` when nothing was watched.
 */
export function describeRecovery(recovery: RecoveryCounts): string | undefined {
  if (recovery.recovered + recovery.repeated + recovery.runEnded === 0) return undefined;
  return `after a warning or block: ${recovery.recovered} left the loop, ${recovery.repeated} repeated it, ${recovery.runEnded} ended the run`;
}

function where(event: { call: number; step?: number }): string {
  return event.step !== undefined ? `call ${event.call} (step ${event.step})` : `call ${event.call}`;
}

/* Every text taken from an input is shown `printable`: a trace cannot drive the terminal or forge report lines. */

function eventLine(event: ReplayEvent): string {
  const count = event.action === 'arm' ? '' : `  count ${event.count}`;
  const tool = event.toolName ? `  ${printable(event.toolName)}` : '';
  const phase = event.phase === 'end' && event.action !== 'abort' ? '  [judged at span end]' : '';
  return `  ${where(event).padEnd(20)} ${event.action.padEnd(5)}  ${event.detector}${count}${tool}${phase}\n      ${printable(event.message)}\n`;
}

function runTitle(run: RunReport): string {
  const extras = [run.format, `${run.calls} calls`];
  if (run.service) extras.push(`service ${run.service}`);
  if (run.agentId) extras.push(`agent ${run.agentId}`);
  if (run.source && run.source !== run.id) extras.push(`from ${run.source}`);
  return printable(`${run.id}  [${extras.join(', ')}]`);
}

/** The human-readable report: findings per run, then a summary table. */
export function formatAnalyzeText(report: AnalyzeReport, options: { allRuns?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`Config: ${describeConfig(report.config)}\n`);
  const withFindings = report.runs.filter((run) => run.events.length > 0);
  for (const run of withFindings) {
    out.push(`\n${runTitle(run)}\n`);
    for (const event of run.events) out.push(eventLine(event));
    if (run.firstBlock) out.push(`  first block at ${where(run.firstBlock)} of ${run.calls}\n`);
    if (run.suppressedWarnings > 0) out.push(`  (${run.suppressedWarnings} repeated warnings suppressed)\n`);
    const recovery = describeRecovery(run.recovery);
    if (recovery) out.push(`  ${recovery}\n`);
  }
  const shown = options.allRuns ? report.runs : withFindings;
  const rows = shown.map((run) => [
    run.id,
    String(run.calls),
    String(run.warnings),
    String(run.blocks),
    String(run.aborts),
    run.firstBlock ? String(run.firstBlock.call) : '-',
  ]);
  const { totals } = report;
  const quiet = totals.runs - withFindings.length;
  rows.push([
    `total: ${totals.runs} runs${!options.allRuns && quiet > 0 ? ` (${quiet} without findings not listed)` : ''}`,
    String(totals.calls),
    String(totals.warnings),
    String(totals.blocks),
    String(totals.aborts),
    `${totals.runsWithBlocks} runs blocked`,
  ]);
  out.push(`\nSummary\n`);
  out.push(
    renderTable(['run', 'calls', 'warnings', 'blocks', 'aborts', 'first block'], rows, [
      false,
      true,
      true,
      true,
      true,
      true,
    ]),
  );
  const recovery = describeRecovery(totals.recovery);
  if (recovery) out.push(`Recovery ${recovery}\n`);
  if (totals.evictions > 0)
    out.push(
      `${totals.evictions} early release${totals.evictions === 1 ? '' : 's'} of a run's state (over maxLiveRuns live runs at once, or idle past runIdleTtlMs), as the processor would: detection restarted in those runs, each still counted once\n`,
    );
  const indexes = report.inputs.filter((input) => input.format === 'index').length;
  if (indexes > 0)
    out.push(`${indexes} trajectory index file${indexes === 1 ? '' : 's'} (labels for \`sweep --index\`) skipped\n`);
  const empty = report.inputs.filter((input) => input.empty).length;
  if (empty > 0)
    out.push(
      `${empty} empty file${empty === 1 ? '' : 's'} (no tool calls) skipped; use --format trajectory to count them as runs without calls\n`,
    );
  if (report.problems.length > 0) {
    out.push(`\n${report.problems.length} input problem${report.problems.length === 1 ? '' : 's'}:\n`);
    for (const problem of report.problems) out.push(`  ${formatProblem(problem)}\n`);
  }
  return out.join('');
}

/** The machine-readable report (`--json`). */
export function analyzeJson(report: AnalyzeReport, meta: { version: string }): unknown {
  return {
    tool: 'tool-loop-guard',
    version: meta.version,
    command: 'analyze',
    config: report.config,
    totals: report.totals,
    // The timeline is the HTML report's; the JSON keeps its documented shape.
    runs: report.runs.map(({ timeline: _timeline, ...run }) => run),
    inputs: report.inputs,
    problems: report.problems,
  };
}
