import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import type { LoopDetectionConfig } from '../../config/types.js';
import { createDigester } from '../../engine/hashing/digest.js';
import { calibrate } from '../calibrate/calibration-rule.js';
import { profileText } from '../calibrate/profile-text.js';
import { loadCliConfig, positiveInteger, UsageError } from '../options.js';
import { Progress, type CliIo } from '../progress.js';
import { formatProblem } from '../readers/types.js';
import { loadRunLabels } from '../sweep/labels.js';
import { hashRuns } from '../sweep/sweep.js';
import { detectorTable } from './detector-table.js';
import { evaluationRuns, groupBySetup, leaveOneOut, scoreBySetup, TIMELY_CALLS } from './evaluation.js';
import { dataTable, leaveOneOutTable, section, setupTable } from './markdown.js';
import { setupNames } from './setups.js';

export const EVALUATE_USAGE = `Usage: tool-loop-guard evaluate --index <index.json> [options]

Scores configs on labelled runs per agent set-up, and scores the calibration rule (the one
\`calibrate\` and the recommended profile use) on each set-up it never saw: chosen on the
successful runs of all set-ups but one, scored on the one left out. Prints markdown sections.

A run's set-up is its index entry's "setup", else its "agent" and "model". Successful runs are
the "resolved" ones: warned (a note reached the model), blocked (a first critical: the recovery
turn) or ended (a second critical). Loops are runs that hit their limit ("hit_limit": true)
repeating one outcome: their longest streak of one tool's calls with one result is 3 or more,
and the loop began at that streak; stopped means a critical, timely means within ${TIMELY_CALLS} calls
of the loop's start.

Options:
  --index <file>      labels: {trajectories: [{file, agent, model, resolved, hit_limit}]}
  --config <file>     a JSON5 config to score (repeatable; OpenClaw's defaults with detection on
                      are always scored first, as "openclaw-defaults"); the first is the profile
                      of the detector table
  --margin <n>        the calibration rule's margin (default 2)
  --skip-synthetic    leave out steps marked "synthetic"
  -h, --help          show this help
`;

/** `tool-loop-guard evaluate …`; returns the exit code. */
export async function runEvaluate(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    strict: true,
    options: {
      index: { type: 'string' },
      config: { type: 'string', multiple: true },
      margin: { type: 'string' },
      'skip-synthetic': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(EVALUATE_USAGE);
    return 0;
  }
  if (values.index === undefined) throw new UsageError('evaluate needs --index <index.json> (the run labels)');
  const margin = values.margin === undefined ? 2 : positiveInteger('margin', values.margin);
  const profiles: Array<{ name: string; block: LoopDetectionConfig }> = [
    { name: 'openclaw-defaults', block: { enabled: true } },
  ];
  for (const file of values.config ?? []) {
    const config = await loadCliConfig(file, (line) => io.stderr(`warning: ${line}\n`));
    profiles.push({
      name: basename(file).replace(/\.[^.]*$/, ''),
      block: { enabled: true, ...config.tools?.loopDetection },
    });
  }
  let labels;
  try {
    labels = await loadRunLabels(values.index);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const progress = new Progress(io);
  const hashed = await hashRuns(labels, await createDigester(), {
    skipSynthetic: values['skip-synthetic'] === true,
    progress,
    onProblem: (problem) => io.stderr(`error: ${formatProblem(problem)}\n`),
  });
  progress.update(() => `measuring ${hashed.length} runs`);
  const runs = evaluationRuns(hashed);
  const names = setupNames(labels);
  const out: string[] = [section('data', dataTable(groupBySetup(runs), names))];
  for (const profile of profiles) {
    progress.update(() => `scoring ${profile.name}`);
    out.push(
      section(
        `profile:${profile.name}`,
        setupTable(scoreBySetup(runs, resolveLoopDetectionConfig(profile.block)), names),
      ),
    );
  }
  progress.update(() => 'leaving each set-up out');
  out.push(section('leave-one-out', leaveOneOutTable(leaveOneOut(runs, { margin }), names)));
  if (profiles.length > 1) {
    progress.update(() => 'scoring each detector');
    out.push(section('detectors', detectorTable(runs, profiles[1].block)));
  }
  const healthy = runs.filter((run) => run.label.resolved && run.peaks.calls > 0);
  const rule = calibrate(
    healthy.map((run) => ({ ...run.peaks, id: run.label.id })),
    { margin, perTool: false },
  );
  out.push(
    section(
      'rule-profile',
      [
        '```json5',
        profileText(rule, [`The calibration rule on the ${rule.runs} successful runs, margin ${margin}.`]).trimEnd(),
        '```',
      ].join('\n'),
    ),
  );
  progress.clear();
  io.stdout(out.join('\n'));
  return 0;
}
