import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { createDigester } from '../../engine/hashing/digest.js';
import { DEFAULT_ADAPTERS } from '../../spans/adapters/index.js';
import { PACKAGE_VERSION } from '../../version.js';
import { positiveInteger, UsageError } from '../options.js';
import { Progress, type CliIo } from '../progress.js';
import { formatProblem, INPUT_FORMATS, type InputFormat } from '../readers/types.js';
import { readRecording } from '../replay/recording.js';
import { calibrate } from './calibration-rule.js';
import { measurePeaks } from './peaks.js';
import { profileText } from './profile-text.js';

export const CALIBRATE_USAGE = `Usage: tool-loop-guard calibrate [options] <files or folders...>

Reads recorded runs of your agent — assumed healthy — and prints a JSON5 profile for them:
each threshold the lowest that leaves a margin above anything those runs did, never below
OpenClaw's own count for the same evidence, with the run and call behind each choice. Use the
output as \`configFile\` (or TOOL_LOOP_GUARD_CONFIG), and check it with
\`tool-loop-guard analyze --config <profile> <runs>\`.

Inputs (as analyze reads them; folders are walked for .json, .jsonl, .ndjson):
  OTLP JSON, Jaeger JSON, or trajectory JSONL (one tool call per line)

Options:
  --margin <n>        repeats a run would need beyond the most any of these runs made before it
                      is blocked, at least 1 (default 2); each warning comes this many before
                      its critical
  --no-floors         let thresholds go below OpenClaw's counts (10 identical calls, 5 same
                      failures, 10 calls of a missing tool, 3 laps of a cycle) when the runs allow
  --shared-only       one set of thresholds for every tool (default: tools whose repeats stand
                      out above the others' by more than the margin get their own, in byTool)
  --format <otlp|jaeger|trajectory>  force the input format
  --skip-synthetic    leave out trajectory steps marked "synthetic" (harness-inserted)
  --history <n>       historySize the profile will run with (default 30)
  -h, --help          show this help

Only runs you consider healthy belong in the input: a loop among them raises the thresholds
until it is allowed. Exit codes: 0 done; 2 usage error or no run could be read.
`;

/** `tool-loop-guard calibrate …`; returns the exit code. */
export async function runCalibrate(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      margin: { type: 'string' },
      'no-floors': { type: 'boolean' },
      'shared-only': { type: 'boolean' },
      format: { type: 'string' },
      'skip-synthetic': { type: 'boolean' },
      history: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(CALIBRATE_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('calibrate needs files or folders of recorded runs');
  if (values.format !== undefined && !(INPUT_FORMATS as readonly string[]).includes(values.format))
    throw new UsageError(`--format must be one of ${INPUT_FORMATS.join(', ')}, got ${JSON.stringify(values.format)}`);
  // At least 1: a warning needs a count above every calibration run and below the critical.
  const margin = values.margin === undefined ? 2 : positiveInteger('margin', values.margin);
  const historySize = values.history === undefined ? undefined : positiveInteger('history', values.history);

  const progress = new Progress(io);
  const recording = await readRecording(positionals, {
    adapters: DEFAULT_ADAPTERS,
    digester: await createDigester(),
    ...(values.format !== undefined ? { format: values.format as InputFormat } : {}),
    skipSynthetic: values['skip-synthetic'] === true,
    progress,
  });
  for (const problem of recording.problems) io.stderr(`error: ${formatProblem(problem)}\n`);
  progress.update(() => 'measuring repeats');
  const peaks = measurePeaks(recording, historySize === undefined ? {} : { historySize }).filter(
    (run) => run.calls > 0,
  );
  progress.clear();
  if (peaks.length === 0) {
    io.stderr('error: no run with a tool call could be read\n');
    return 2;
  }
  // Runs are named relative to the working folder: the comments should not carry absolute paths.
  const named = peaks.map((run) => ({ ...run, id: run.id.startsWith('/') ? relative(process.cwd(), run.id) : run.id }));
  const calibration = calibrate(named, {
    margin,
    floors: values['no-floors'] !== true,
    perTool: values['shared-only'] !== true,
  });
  io.stdout(
    profileText(calibration, [
      `tool-loop-guard ${PACKAGE_VERSION} calibrate: ${calibration.runs} runs, ${calibration.calls} tool calls, margin ${margin}${values['no-floors'] === true ? ', no floors' : ''}.`,
      `Each critical is the larger of its floor and the highest count any of these runs reached + 1 + ${margin};`,
      'each warning the larger of its floor and that highest count + 1. Check it on your runs with',
      '`tool-loop-guard analyze --config <this file> <runs>`.',
    ]),
  );
  return 0;
}
