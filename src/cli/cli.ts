import { ConfigFileError } from '../config/load-file.js';
import { PACKAGE_VERSION } from '../version.js';
import { runAnalyze } from './analyze/command.js';
import { runCalibrate } from './calibrate/command.js';
import { runEvaluate } from './evaluate/command.js';
import { UsageError } from './options.js';
import { processIo, type CliIo } from './progress.js';
import { runSweep } from './sweep/command.js';

export const USAGE = `Usage: tool-loop-guard <command> [options]

Commands:
  analyze <files or folders...>   replay recorded traces (OTLP JSON, Jaeger JSON) or trajectory
                                  JSONL runs through loop detection and report warnings/blocks/aborts
  calibrate <files or folders...> a JSON5 profile for your agent from its recorded (healthy) runs:
                                  each threshold a margin above what those runs did
  sweep --index <index.json> [folders]
                                  grid of thresholds over labelled trajectory runs: false positives
                                  on resolved runs vs loops blocked, and how early
  evaluate --index <index.json>   configs per agent set-up on labelled runs, and the calibration
                                  rule on each set-up it never saw (leave-one-set-up-out)
  serve                           loop detection as an OTLP service (gRPC and HTTP) behind the
                                  collector, for agents in any language: evidence spans in the
                                  agent's trace and the tool_loop.events counter, over OTLP

Options:
  -h, --help       show help (also: tool-loop-guard <command> --help)
  -v, --version    print the version

Exit codes: 0 ok; 1 --fail-on level reached (analyze), a receiver could not listen (serve);
2 usage or config error.
`;

/**
 * The CLI entry: runs one command and resolves to its exit code. Never calls
 * `process.exit`; output goes through `io` (the process streams by default).
 */
export async function main(argv: readonly string[], io: CliIo = processIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'analyze':
        return await runAnalyze(rest, io);
      case 'sweep':
        return await runSweep(rest, io);
      case 'calibrate':
        return await runCalibrate(rest, io);
      case 'evaluate':
        return await runEvaluate(rest, io);
      case 'serve':
        // Loaded only for serve: the receivers' and exporters' packages stay out of the other commands.
        return await (await import('./serve/command.js')).runServe(rest, io);
      case '-v':
      case '--version':
        io.stdout(`${PACKAGE_VERSION}\n`);
        return 0;
      case undefined:
      case '-h':
      case '--help':
      case 'help':
        io.stdout(USAGE);
        return command === undefined ? 2 : 0;
      default:
        throw new UsageError(`unknown command ${JSON.stringify(command)}`);
    }
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(
        `tool-loop-guard: ${(error as Error).message}\nRun "tool-loop-guard${['analyze', 'sweep', 'calibrate', 'evaluate', 'serve'].includes(command ?? '') ? ` ${command}` : ''} --help" for usage.\n`,
      );
      return 2;
    }
    if (error instanceof ConfigFileError) {
      io.stderr(`tool-loop-guard: ${error.message}\n`);
      return 2;
    }
    io.stderr(
      `tool-loop-guard: unexpected error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 70;
  }
}
