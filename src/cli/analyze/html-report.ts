import type { ReplayEvent } from '../replay/replay-event.js';
import type { TimelineCall } from '../replay/run-timeline.js';
import type { AnalyzeReport, RunReport } from './analyzer.js';
import { describeConfig, describeRecovery } from './format.js';
import { escapeHtml } from './html-escape.js';
import { HTML_REPORT_CSS } from './html-report-style.js';

/** Calls kept per run for the HTML report unless `--html-max-calls` says otherwise. */
export const DEFAULT_HTML_MAX_CALLS = 500;

/** Findings listed per run in its table; the timeline still marks every kept call. */
const MAX_FINDINGS_LISTED = 100;
/** Runs listed in the report's index of runs with findings. */
const MAX_INDEXED_RUNS = 500;
/** Runs without findings drawn (every run with findings is): past this, a note counts the rest. */
export const MAX_QUIET_RUNS_SHOWN = 1000;

/** What a call is drawn as: its strongest mark decides its colour; each mark also has a text label. */
type CallKind = 'abort' | 'block' | 'warn' | 'cycle' | 'same-result' | 'repeat' | 'new';

export interface HtmlReportMeta {
  readonly version: string;
}

/**
 * The analyzer's report as one self-contained HTML page: inline CSS, no scripts, no external
 * resources (a Content-Security-Policy forbids them too), readable without JavaScript. Each
 * run is a timeline of its calls in which repeats, repeated sequences (cycles), the loop a
 * verdict named, warnings, blocks and aborts are distinct in colour and labelled in text, with
 * a summary line and the tokens and time wasted when the verdicts report them. Runs need a
 * timeline (`analyze({ timelineCalls })`); a run without one shows its findings only.
 * Every recorded string is escaped.
 */
export function renderHtmlReport(report: AnalyzeReport, meta: HtmlReportMeta): string {
  const { totals } = report;
  const withFindings = report.runs.filter((run) => run.events.length > 0);
  const without = report.runs.filter((run) => run.events.length === 0);
  const ids = new Map(report.runs.map((run, i) => [run, `run-${i + 1}`]));
  const out: string[] = [];
  out.push(
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">\n`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">\n',
    `<title>tool-loop-guard analyze: ${plural(totals.runs, 'run')}, ${totals.runsWithBlocks.toLocaleString('en-US')} blocked</title>\n`,
    `<style>${HTML_REPORT_CSS}</style>\n</head>\n<body>\n`,
  );
  out.push(
    '<header>\n<h1>tool-loop-guard analyze</h1>\n',
    `<p class="config">Config: ${escapeHtml(describeConfig(report.config))}</p>\n`,
    `<p class="totals" data-testid="totals">${plural(totals.runs, 'run')} · ${plural(totals.calls, 'call')} · ` +
      `${plural(totals.warnings, 'warning')} · ${plural(totals.blocks, 'block')} · ${plural(totals.aborts, 'abort')} · ` +
      `${plural(totals.runsWithBlocks, 'run')} blocked · ${plural(totals.problems, 'input problem')}` +
      ` <span class="muted">(tool-loop-guard ${escapeHtml(meta.version)})</span></p>\n`,
    legend(),
    '</header>\n<main>\n',
  );
  if (withFindings.length > 0) {
    out.push(`<h3>Runs with findings (${withFindings.length})</h3>\n`);
    for (const run of withFindings) out.push(runSection(run, ids.get(run)!, true));
  }
  if (without.length > 0) {
    out.push(`<h3>Runs without findings (${without.length})</h3>\n`);
    for (const run of without.slice(0, MAX_QUIET_RUNS_SHOWN)) out.push(runSection(run, ids.get(run)!, false));
    if (without.length > MAX_QUIET_RUNS_SHOWN)
      out.push(
        `<p class="note" data-testid="quiet-note">${plural(without.length - MAX_QUIET_RUNS_SHOWN, 'more run')} without findings not drawn (the first ${MAX_QUIET_RUNS_SHOWN} are; the text and JSON reports list every run).</p>\n`,
      );
  }
  if (withFindings.length > 0) out.push(runIndex(withFindings, ids));
  if (report.problems.length > 0) {
    out.push(`<h3>Input problems (${report.problems.length})</h3>\n<ul class="problems">\n`);
    for (const problem of report.problems)
      out.push(
        `<li><code>${escapeHtml(problem.file)}${problem.line !== undefined ? `:${problem.line}` : ''}</code> ${escapeHtml(problem.message)}</li>\n`,
      );
    out.push('</ul>\n');
  }
  out.push('</main>\n</body>\n</html>\n');
  return out.join('');
}

function legend(): string {
  const items: [CallKind | 'in-loop', string][] = [
    ['new', 'call'],
    ['repeat', 'repeat: same arguments as an earlier call'],
    ['same-result', 'same arguments and same result'],
    ['cycle', 'cycle: a sequence of 2–5 distinct calls repeated'],
    ['in-loop', 'in the loop a block stopped'],
    ['warn', 'warning'],
    ['block', 'block'],
    ['abort', 'abort'],
  ];
  return `<ul class="legend">${items.map(([kind, text]) => `<li><span class="swatch ${kind}"></span>${text}</li>`).join('')}</ul>\n`;
}

function runSection(run: RunReport, id: string, open: boolean): string {
  const meta: string[] = [run.format];
  if (run.service) meta.push(`service ${run.service}`);
  if (run.agentId) meta.push(`agent ${run.agentId}`);
  if (run.source && run.source !== run.id) meta.push(`from ${run.source}`);
  const out: string[] = [
    `<section class="run${run.blocks > 0 ? ' blocked' : ''}" id="${id}" data-run="${escapeHtml(run.id)}">\n`,
    `<details${open ? ' open' : ''}><summary><h2>${escapeHtml(run.id)}</h2>`,
    `<span class="summary-line" data-testid="summary">${summaryLine(run)}</span></summary>\n`,
    `<p class="muted">${escapeHtml(meta.join(', '))}</p>\n`,
  ];
  if (run.timeline) out.push(timeline(run, run.timeline.calls, run.timeline.limit));
  else if (run.events.length > 0) out.push('<p class="note">No per-call timeline was kept for this run.</p>\n');
  if (run.events.length > 0) out.push(findings(run));
  out.push('</details>\n</section>\n');
  return out.join('');
}

function summaryLine(run: RunReport): string {
  const parts = [plural(run.calls, 'call')];
  const calls = run.timeline?.calls ?? [];
  const repeats = calls.filter((call) => call.repeatOf !== undefined).length;
  const cycles = new Set(calls.flatMap((call) => (call.cyclePeriod !== undefined ? [call.cyclePeriod] : [])));
  if (repeats > 0)
    parts.push(`${plural(repeats, 'repeat')}${calls.length < run.calls ? ' among the calls shown' : ''}`);
  if (cycles.size > 0) parts.push(`cycle of period ${[...cycles].sort((a, b) => a - b).join(', ')}`);
  if (run.warnings > 0) parts.push(`<span class="warned">${plural(run.warnings, 'warning')}</span>`);
  if (run.blocks > 0) parts.push(`<span class="blocked">${plural(run.blocks, 'block')}</span>`);
  if (run.aborts > 0) parts.push(`<span class="aborted">${plural(run.aborts, 'abort')}</span>`);
  if (run.firstBlock)
    parts.push(
      `first block at call ${run.firstBlock.call}${run.firstBlock.step !== undefined ? ` (step ${run.firstBlock.step})` : ''}`,
    );
  if (run.events.length === 0) parts.push('no findings');
  const wasted = wastedOf(run.events);
  if (wasted) parts.push(`wasted in a detected loop: ${wasted}`);
  const recovery = describeRecovery(run.recovery);
  if (recovery) parts.push(recovery);
  return parts.join(' · ');
}

/** The most tokens and time any one verdict of the run reported inside its loop (loops overlap, so they are not summed). */
function wastedOf(events: readonly ReplayEvent[]): string | undefined {
  let tokens: number | undefined;
  let ms: number | undefined;
  for (const event of events) {
    if (event.wastedTokens !== undefined) tokens = Math.max(tokens ?? 0, event.wastedTokens);
    if (event.wastedMs !== undefined) ms = Math.max(ms ?? 0, event.wastedMs);
  }
  const parts = [
    ...(tokens !== undefined ? [`${tokens.toLocaleString('en-US')} tokens`] : []),
    ...(ms !== undefined ? [duration(ms)] : []),
  ];
  return parts.length > 0 ? `up to ${parts.join(', ')}` : undefined;
}

function timeline(run: RunReport, calls: readonly TimelineCall[], limit: number): string {
  const arms = new Map<number, number>();
  for (const event of run.events) if (event.action === 'arm') arms.set(event.call, (arms.get(event.call) ?? 0) + 1);
  const out: string[] = [];
  if (calls.length < run.calls)
    out.push(
      `<p class="note" data-testid="cap-note">Showing ${calls.length} of ${run.calls} calls (at most ${limit} per run are kept: ` +
        `the first, the calls leading into the first finding, and those after it; --html-max-calls raises the cap). ` +
        `Every finding is listed in the table below.</p>\n`,
    );
  out.push('<ol class="timeline">\n');
  const armMarker = (after: number) => {
    for (let i = 0; i < (arms.get(after) ?? 0); i += 1)
      out.push(`<li class="arm" data-kind="arm">compaction retry: post-compaction guard armed</li>\n`);
  };
  armMarker(0);
  let previous = 0;
  for (const call of calls) {
    if (call.index > previous + 1) {
      const hidden = call.index - previous - 1;
      out.push(
        `<li class="gap" data-kind="gap">${plural(hidden, 'call')} not shown (${previous + 1}–${call.index - 1})</li>\n`,
      );
    }
    out.push(callItem(call));
    armMarker(call.index);
    previous = call.index;
  }
  if (previous < run.calls)
    out.push(
      `<li class="gap" data-kind="gap">${plural(run.calls - previous, 'call')} not shown (${previous + 1}–${run.calls})</li>\n`,
    );
  out.push('</ol>\n');
  return out.join('');
}

function kindOf(call: TimelineCall): CallKind {
  const actions = new Set(call.events.map((event) => event.action));
  if (actions.has('abort')) return 'abort';
  if (actions.has('block')) return 'block';
  if (actions.has('warn')) return 'warn';
  if (call.cyclePeriod !== undefined) return 'cycle';
  if (call.sameOutcomeAs !== undefined) return 'same-result';
  if (call.repeatOf !== undefined) return 'repeat';
  return 'new';
}

function callItem(call: TimelineCall): string {
  const kind = kindOf(call);
  const labels: string[] = [];
  for (const event of call.events) {
    if (event.action === 'arm') continue;
    const name = event.action === 'warn' ? 'WARN' : event.action.toUpperCase();
    labels.push(`<span class="label ${event.action}">${name} ${escapeHtml(event.detector)}</span>`);
  }
  if (call.cyclePeriod !== undefined) labels.push(`<span class="label cycle">CYCLE ×${call.cyclePeriod}</span>`);
  if (call.sameOutcomeAs !== undefined)
    labels.push(`<span class="label same-result">SAME RESULT as #${call.sameOutcomeAs}</span>`);
  else if (call.repeatOf !== undefined)
    labels.push(`<span class="label repeat">REPEAT ${call.occurrence ?? 2}× of #${call.repeatOf}</span>`);
  if (call.loopOf !== undefined && call.loopOf !== call.index)
    labels.push(`<span class="label loop">LOOP of #${call.loopOf}</span>`);
  const classes = ['call', kind, ...(call.loopOf !== undefined ? ['in-loop'] : [])].join(' ');
  const args = call.argsHash !== undefined ? `args ${shortHash(call.argsHash)}` : 'args known at its end';
  const outcome =
    call.outcome === 'vetoed'
      ? 'not run: blocked'
      : call.outcome === 'result'
        ? `result ${shortHash(call.resultHash ?? '')}`
        : call.outcome === 'none'
          ? 'no result'
          : '';
  return (
    `<li class="${classes}" data-call="${call.index}" data-kind="${kind}" title="${escapeHtml(tooltip(call))}">` +
    `<span class="head"><span class="index">#${call.index}</span>${call.step !== undefined ? `<span class="muted">step ${call.step}</span>` : ''}</span>` +
    `<span class="tool">${escapeHtml(call.toolName)}</span>` +
    `<span class="hash muted">${escapeHtml(args)}</span>` +
    (outcome !== '' ? `<span class="hash muted">${escapeHtml(outcome)}</span>` : '') +
    (labels.length > 0 ? `<span class="labels">${labels.join('')}</span>` : '') +
    '</li>\n'
  );
}

function tooltip(call: TimelineCall): string {
  const lines = [
    `call ${call.index}${call.step !== undefined ? ` (step ${call.step})` : ''}: ${call.toolName}`,
    `args ${call.argsHash ?? '(known at its end)'}`,
    call.outcome === 'vetoed'
      ? 'blocked before it ran: recorded as a loop veto'
      : call.resultHash !== undefined
        ? `result ${call.resultHash}`
        : 'no result recorded',
  ];
  if (call.judged) lines.push(`judged at span ${call.judged}`);
  for (const event of call.events)
    lines.push(`${event.action} ${event.detector} (count ${event.count}): ${event.message}`);
  return lines.join('\n');
}

function findings(run: RunReport): string {
  const events = run.events.slice(0, MAX_FINDINGS_LISTED);
  const rows = events.map((event) => {
    const details: string[] = [];
    if (event.phase === 'end' && event.action !== 'abort') details.push('judged at span end (it had run)');
    if (event.pairedToolName !== undefined) details.push(`paired with ${escapeHtml(event.pairedToolName)}`);
    if (event.period !== undefined) details.push(`period ${event.period}`);
    if (event.loopSignatures !== undefined)
      details.push(
        `loop of ${plural(event.loopSignatures.length, 'call')}: <code>${event.loopSignatures.map((signature) => escapeHtml(shortHash(signature))).join(' ')}</code>`,
      );
    if (event.wastedTokens !== undefined) details.push(`${event.wastedTokens.toLocaleString('en-US')} tokens wasted`);
    if (event.wastedMs !== undefined) details.push(`${duration(event.wastedMs)} wasted`);
    return (
      `<tr class="finding ${event.action}" data-call="${event.call}"><td class="num">${event.call}${event.step !== undefined ? ` <span class="muted">(step ${event.step})</span>` : ''}</td>` +
      `<td><span class="label ${event.action}">${event.action.toUpperCase()}</span></td><td>${escapeHtml(event.detector)}</td>` +
      `<td class="num">${event.action === 'arm' ? '' : event.count}</td><td>${escapeHtml(event.toolName)}</td>` +
      `<td class="message">${escapeHtml(event.message)}${details.length > 0 ? `<br><span class="muted">${details.join(' · ')}</span>` : ''}</td></tr>\n`
    );
  });
  const more =
    run.events.length > events.length
      ? `<p class="note">${plural(run.events.length - events.length, 'more finding')} not listed (the first ${MAX_FINDINGS_LISTED} are).</p>\n`
      : '';
  return (
    '<table class="findings">\n<thead><tr><th class="num">call</th><th>action</th><th>detector</th><th class="num">count</th><th>tool</th><th>message</th></tr></thead>\n<tbody>\n' +
    rows.join('') +
    '</tbody>\n</table>\n' +
    more
  );
}

function runIndex(runs: readonly RunReport[], ids: ReadonlyMap<RunReport, string>): string {
  const listed = runs.slice(0, MAX_INDEXED_RUNS);
  const rows = listed.map(
    (run) =>
      `<tr><td><a href="#${ids.get(run)!}">${escapeHtml(run.id)}</a></td><td class="num">${run.calls}</td><td class="num">${run.warnings}</td>` +
      `<td class="num">${run.blocks}</td><td class="num">${run.aborts}</td><td class="num">${run.firstBlock ? run.firstBlock.call : '-'}</td></tr>\n`,
  );
  return (
    `<h3>Index of runs with findings</h3>\n<table class="index">\n<thead><tr><th>run</th><th class="num">calls</th><th class="num">warnings</th>` +
    `<th class="num">blocks</th><th class="num">aborts</th><th class="num">first block</th></tr></thead>\n<tbody>\n${rows.join('')}</tbody>\n</table>\n` +
    (runs.length > listed.length
      ? `<p class="note">${plural(runs.length - listed.length, 'more run')} with findings not indexed.</p>\n`
      : '')
  );
}

/** The digest part of a hash (`tool:digest`, `error:digest`), shortened to 8 characters. */
function shortHash(hash: string): string {
  const digest = hash.slice(hash.lastIndexOf(':') + 1);
  return `${hash.startsWith('error:') ? 'error ' : ''}${digest.slice(0, 8)}`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${(ms / 60_000).toFixed(1)} min`;
}

function plural(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`;
}
