import { parseArgs } from 'node:util';
import type { EngineLogger } from '../../util/logger.js';
import { PACKAGE_VERSION } from '../../version.js';
import {
  OVERRIDE_OPTIONS,
  UsageError,
  applyOverrides,
  loadCliConfig,
  positiveInteger,
  readOverrides,
} from '../options.js';
import { Progress, type CliIo } from '../progress.js';
import { printable } from '../terminal-text.js';
import { INPUT_FORMATS, formatProblem, type InputFormat } from '../readers/types.js';
import { analyze } from './analyzer.js';
import { analyzeJson, formatAnalyzeText } from './format.js';
import { htmlTargetProblem, writeHtmlFile } from './html-file.js';
import { DEFAULT_HTML_MAX_CALLS, renderHtmlReport } from './html-report.js';

export const ANALYZE_USAGE = `Usage: tool-loop-guard analyze [options] <files or folders...>

Replays recorded runs through the loop-detection engine and reports what it would have done:
every warning, block and abort, per run, and a summary.

Inputs (detected per file; folders are walked for .json, .jsonl, .ndjson):
  OTLP JSON      {resourceSpans: [...]} — one document, or one per line (collector file exporter, Tempo API)
  Jaeger JSON    {data: [{traceID, spans, processes}]} (Jaeger UI "Download JSON", query API)
  trajectory     JSONL, one tool call per line: {step, tool, args, result, error?, synthetic?}

Options:
  --format <otlp|jaeger|trajectory>  force the input format
  --config <file>     OpenClaw-shaped JSON5 config ({tools: {loopDetection}, agents: {list}}), as the processor reads it
  --enable            turn the rolling detectors on (tools.loopDetection.enabled = true)
  --warning <n>       warningThreshold            --critical <n>  criticalThreshold
  --breaker <n>       globalCircuitBreakerThreshold
  --history <n>       historySize                 --unknown <n>   unknownToolThreshold
  --window <n>        postCompactionGuard.windowSize
  --skip-synthetic    leave out trajectory steps marked "synthetic" (harness-inserted)
  --recovery-window <n>  calls watched after each warning or block: did the run leave the loop,
                      repeat it, or end? (default 5, as the processor's recoveryWindow; 0: off)
  --fail-on <warning|critical>  exit with code 1 if any warning (or block/abort) / any block or abort
  --json              print the report as JSON
  --html <file>       also write a self-contained HTML report: each run as a timeline of its calls
                      (repeats, cycles, warnings, blocks, aborts, wasted tokens and time)
  --html-max-calls <n>  calls kept per run for --html (default ${DEFAULT_HTML_MAX_CALLS}; the first, the lead-in
                      to the first finding, and the calls after it)
  --all-runs          list every run in the summary table (default: runs with findings)
  --verbose           print the engine's log lines on stderr
  -h, --help          show this help

Exit codes: 0 done; 1 --fail-on level reached; 2 usage or config error, no input could be read, or
the HTML report could not be written.
`;

/** `tool-loop-guard analyze …`; returns the exit code. */
export async function runAnalyze(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      ...OVERRIDE_OPTIONS,
      format: { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean' },
      html: { type: 'string' },
      'html-max-calls': { type: 'string' },
      'recovery-window': { type: 'string' },
      'fail-on': { type: 'string' },
      'skip-synthetic': { type: 'boolean' },
      'all-runs': { type: 'boolean' },
      verbose: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    io.stdout(ANALYZE_USAGE);
    return 0;
  }
  if (positionals.length === 0) throw new UsageError('analyze needs at least one file or folder');
  const format = values.format as InputFormat | undefined;
  if (format !== undefined && !INPUT_FORMATS.includes(format))
    throw new UsageError(`--format must be one of ${INPUT_FORMATS.join(', ')}, got ${JSON.stringify(format)}`);
  const failOn = values['fail-on'];
  if (failOn !== undefined && failOn !== 'warning' && failOn !== 'critical')
    throw new UsageError(`--fail-on must be warning or critical, got ${JSON.stringify(failOn)}`);
  const overrides = readOverrides(values);
  const recoveryText = values['recovery-window'];
  if (recoveryText !== undefined && !/^\d+$/.test(recoveryText.trim()))
    throw new UsageError(`--recovery-window must be a whole number of calls, got ${JSON.stringify(recoveryText)}`);
  const recoveryWindow = recoveryText !== undefined ? Number(recoveryText) : undefined;
  const html = values.html;
  if (html !== undefined && html.trim() === '') throw new UsageError('--html needs a file name');
  const maxCalls = values['html-max-calls'];
  if (maxCalls !== undefined && html === undefined) throw new UsageError('--html-max-calls needs --html <file>');
  const timelineCalls =
    html === undefined
      ? undefined
      : maxCalls !== undefined
        ? positiveInteger('html-max-calls', maxCalls)
        : DEFAULT_HTML_MAX_CALLS;
  if (html !== undefined) {
    const problem = await htmlTargetProblem(html);
    if (problem !== undefined) {
      io.stderr(`tool-loop-guard: ${problem}\n`);
      return 2;
    }
  }

  const printed = new Set<string>();
  const warnOnce = (line: string) => {
    if (printed.has(line)) return;
    printed.add(line);
    io.stderr(`warning: ${printable(line)}\n`);
  };
  const config = applyOverrides(await loadCliConfig(values.config), overrides);
  const configLogger: EngineLogger = { debug() {}, info() {}, warn: warnOnce, error: warnOnce };
  const engineLogger: EngineLogger | undefined = values.verbose
    ? {
        debug: () => {},
        info: (m) => io.stderr(`info: ${printable(m)}\n`),
        warn: (m) => io.stderr(`warn: ${printable(m)}\n`),
        error: (m) => io.stderr(`error: ${printable(m)}\n`),
      }
    : undefined;

  const progress = new Progress(io);
  const report = await analyze({
    inputs: positionals,
    format,
    config,
    skipSynthetic: values['skip-synthetic'] === true,
    logger: engineLogger,
    configLogger,
    configSource: values.config,
    progress,
    onProblem: (problem) => io.stderr(`error: ${formatProblem(problem)}\n`),
    ...(timelineCalls !== undefined ? { timelineCalls } : {}),
    ...(recoveryWindow !== undefined ? { recoveryWindow } : {}),
  });

  if (values.json) io.stdout(`${JSON.stringify(analyzeJson(report, { version: PACKAGE_VERSION }), null, 2)}\n`);
  else io.stdout(formatAnalyzeText(report, { allRuns: values['all-runs'] === true }));
  if (html !== undefined) {
    const problem = await writeHtmlFile(html, renderHtmlReport(report, { version: PACKAGE_VERSION }));
    if (problem !== undefined) {
      io.stderr(`tool-loop-guard: ${problem}\n`);
      return 2;
    }
    io.stderr(`HTML report written to ${html}\n`);
  }

  if (
    report.runs.length === 0 &&
    !report.inputs.some((input) => input.empty || (input.format !== undefined && input.format !== 'index'))
  ) {
    io.stderr('error: no input could be analysed\n');
    return 2;
  }
  const { totals } = report;
  if (failOn === 'critical' && totals.blocks + totals.aborts > 0) return 1;
  if (failOn === 'warning' && totals.warnings + totals.blocks + totals.aborts > 0) return 1;
  return 0;
}
