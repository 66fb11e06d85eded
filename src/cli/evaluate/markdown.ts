import type { LoopDetectionConfig } from '../../config/types.js';
import type { EvaluationRun, LeftOut, SetupScore } from './evaluation.js';
import { TIMELY_CALLS } from './evaluation.js';

/** A markdown table. */
export function markdownTable(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

/** A block of generated text between markers that `scripts/evaluate.mjs` splices into the docs. */
export function section(name: string, body: string): string {
  return `<!-- evaluate:${name} -->\n${body}\n<!-- /evaluate:${name} -->\n`;
}

const of = (part: number, whole: number) => (whole === 0 ? '–' : `${part}/${whole}`);
const bold = (text: string, when: boolean) => (when ? `**${text}**` : text);

/** `median (max)` of the calls between a loop's start and its first block. */
function afterStart(after: readonly number[]): string {
  if (after.length === 0) return '–';
  const sorted = [...after].sort((a, b) => a - b);
  return `${sorted[Math.floor((sorted.length - 1) / 2)]} (${sorted[sorted.length - 1]})`;
}

/** The evaluation data: runs per set-up and what they are. */
export function dataTable(
  groups: ReadonlyMap<string, readonly EvaluationRun[]>,
  names: ReadonlyMap<string, string>,
): string {
  const rows = [...groups].map(([setup, runs]) => [
    names.get(setup) ?? setup,
    String(runs.length),
    String(runs.filter((run) => run.label.resolved).length),
    String(runs.filter((run) => run.loop).length),
    String(runs.filter((run) => !run.label.resolved && run.label.hitLimit === true && !run.loop).length),
  ]);
  const sum = (i: number) => String(rows.reduce((n, row) => n + Number(row[i]), 0));
  rows.push(['**total**', sum(1), sum(2), sum(3), sum(4)]);
  return markdownTable(
    ['set-up', 'runs', 'successful', 'hit the limit repeating (loops)', 'hit the limit otherwise'],
    rows,
  );
}

/** One config's figures per set-up (the last score is the total). */
export function setupTable(scores: readonly SetupScore[], names: ReadonlyMap<string, string>): string {
  return markdownTable(
    [
      'set-up',
      'successful',
      'warned',
      'blocked',
      'ended',
      'loops',
      'stopped',
      `within ${TIMELY_CALLS} calls`,
      'calls after the loop began: median (max)',
    ],
    scores.map((score) => {
      const isTotal = score.setup === 'total';
      const name = isTotal ? '**total**' : (names.get(score.setup) ?? score.setup);
      const { successful: s, loops } = score;
      return [
        name,
        String(s.runs),
        of(s.warned, s.runs),
        bold(of(s.blocked, s.runs), s.blocked > 0),
        of(s.ended, s.runs),
        String(loops.runs),
        of(loops.stopped, loops.runs),
        of(loops.timely, loops.runs),
        afterStart(loops.after),
      ];
    }),
  );
}

/** The thresholds of a rule profile, briefly. */
export function thresholdsText(block: LoopDetectionConfig): string {
  return `W${block.warningThreshold}/C${block.criticalThreshold}, failure ${block.similarOutcomeWarningThreshold}/${block.similarOutcomeThreshold}`;
}

/** Leave-one-set-up-out, each row the left-out set-up, and the worst figures last. */
export function leaveOneOutTable(rows: readonly LeftOut[], names: ReadonlyMap<string, string>): string {
  const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);
  const worstWarned = rows.reduce((worst, row) =>
    share(row.score.successful.warned, row.score.successful.runs) >
    share(worst.score.successful.warned, worst.score.successful.runs)
      ? row
      : worst,
  );
  const withLoops = rows.filter((row) => row.score.loops.runs > 0);
  const worstStopped = withLoops.reduce(
    (worst, row) =>
      share(row.score.loops.timely, row.score.loops.runs) < share(worst.score.loops.timely, worst.score.loops.runs)
        ? row
        : worst,
    withLoops[0],
  );
  const blocked = rows.reduce((n, row) => n + row.score.successful.blocked, 0);
  const body = rows.map(({ block, score }) => [
    names.get(score.setup) ?? score.setup,
    thresholdsText(block),
    of(score.successful.warned, score.successful.runs),
    bold(of(score.successful.blocked, score.successful.runs), score.successful.blocked > 0),
    of(score.successful.ended, score.successful.runs),
    of(score.loops.stopped, score.loops.runs),
    of(score.loops.timely, score.loops.runs),
  ]);
  const name = (row: LeftOut | undefined) => (row ? (names.get(row.score.setup) ?? row.score.setup) : '–');
  body.push([
    '**worst**',
    '',
    worstWarned.score.successful.warned === 0
      ? 'none warned'
      : `${of(worstWarned.score.successful.warned, worstWarned.score.successful.runs)} (${name(worstWarned)})`,
    `${blocked} in all`,
    '',
    '',
    worstStopped
      ? `${of(worstStopped.score.loops.timely, worstStopped.score.loops.runs)} (${name(worstStopped)})`
      : '–',
  ]);
  return markdownTable(
    [
      'left out',
      "rule's thresholds without it",
      'successful warned',
      'blocked',
      'ended',
      'loops stopped',
      `within ${TIMELY_CALLS} calls`,
    ],
    body,
  );
}
