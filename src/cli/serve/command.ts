import { parseArgs } from 'node:util';
import { diag, DiagLogLevel } from '@opentelemetry/api';
import { AgentConfigResolver } from '../../config/agent-config-resolver.js';
import { loadConfigFile } from '../../config/load-file.js';
import type { ToolLoopGuardConfig } from '../../config/types.js';
import { createDigester } from '../../engine/hashing/digest.js';
import { resolveProcessorOptions, type ToolLoopSpanProcessorOptions } from '../../otel/options.js';
import { applyOverrides } from '../options.js';
import type { CliIo } from '../progress.js';
import { printable } from '../terminal-text.js';
import { LoopGuardService } from './loop-guard-service.js';
import { ServeLog } from './serve-log.js';
import { readServeArguments, SERVE_DEFAULTS, SERVE_PARSE_OPTIONS } from './serve-options.js';

export const SERVE_USAGE = `Usage: tool-loop-guard serve [options]

Loop detection as an OTLP service, for agents in any language: receives the spans an agent (or
the OpenTelemetry Collector in front of it) exports, judges each run's tool calls as the span
processor would, and writes what it finds where you already look: an evidence span
"run_guardrail tool-loop-guard" inside the agent's own trace (a child of the looping tool call,
carrying the tool_loop.warning / tool_loop.blocked / tool_loop.aborted event) and the
tool_loop.events counter, both over OTLP. It observes: the calls already ran, so a block is the
block the guard would have made (tool_loop.enforced = false; the action stays "block", so the
shipped alert rules fire). Docs: docs/serve.md.

Receiving (every option: the flag, else its environment variable, else the default):
  --grpc <host:port|off>     OTLP/gRPC (TraceService/Export; what the collector's load-balancing
                             exporter speaks)           TOOL_LOOP_GUARD_SERVE_GRPC, default ${SERVE_DEFAULTS.grpc}
  --http <host:port|off>     OTLP/HTTP POST /v1/traces, protobuf or JSON, plain or gzip; GET /health
                                                        TOOL_LOOP_GUARD_SERVE_HTTP, default ${SERVE_DEFAULTS.http}
  --max-request-bytes <n>    largest request, after decompression (larger: gRPC RESOURCE_EXHAUSTED,
                             HTTP 413)                  TOOL_LOOP_GUARD_SERVE_MAX_REQUEST_BYTES, default ${SERVE_DEFAULTS.maxRequestBytes}

Assembling runs (spans arrive after they end, in batches, out of order; a trace's root last):
  --grace-ms <n>             a trace is judged once its root span came and none of its spans arrived
                             for this long; its spans are judged together, in start order
                                                        TOOL_LOOP_GUARD_SERVE_GRACE_MS, default ${SERVE_DEFAULTS.graceMs}
  --max-wait-ms <n>          ... or at the latest this long after its oldest waiting span came: a
                             long run is judged as it goes (its calls keep one history), and so is
                             a trace whose root is in another process
                                                        TOOL_LOOP_GUARD_SERVE_MAX_WAIT_MS, default ${SERVE_DEFAULTS.maxWaitMs}
  --max-buffered-spans <n>   spans waiting, all traces together; when full, requests are refused
                             with the retryable status (gRPC UNAVAILABLE, HTTP 503 + Retry-After)
                             and the collector retries them
                                                        TOOL_LOOP_GUARD_SERVE_MAX_BUFFERED_SPANS, default ${SERVE_DEFAULTS.maxBufferedSpans}
  --max-trace-spans <n>      a trace with this many waiting spans is judged at once
                                                        TOOL_LOOP_GUARD_SERVE_MAX_TRACE_SPANS, default ${SERVE_DEFAULTS.maxTraceSpans}
  --max-processes <n>        emitting processes (OTLP resources) judged at once, each with its own
                             runs as its own span processor would have; beyond, the least recently
                             active is let go with its runs
                                                        TOOL_LOOP_GUARD_SERVE_MAX_PROCESSES, default ${SERVE_DEFAULTS.maxProcesses}

Detection (the span processor's options, files and variables):
  --config <file>            OpenClaw-shaped JSON5 config ({tools: {loopDetection}, agents: {list}},
                             profiles included)         TOOL_LOOP_GUARD_CONFIG
  --enable                   turn the rolling detectors on (tools.loopDetection.enabled = true)
  --warning <n> --critical <n> --breaker <n> --history <n> --unknown <n> --window <n>
                             override warningThreshold, criticalThreshold,
                             globalCircuitBreakerThreshold, historySize, unknownToolThreshold,
                             postCompactionGuard.windowSize (global and per agent)
  --mode <enforce|shadow>    shadow: report tool_loop.would_* (no alert fires)
                                                        TOOL_LOOP_GUARD_MODE, default enforce
  --run-idle-ttl-ms <n>      a run with no new call for this long (span time) is released
                                                        TOOL_LOOP_GUARD_RUN_IDLE_TTL_MS, default 900000
  --max-live-runs <n>        runs held per emitting process
                                                        TOOL_LOOP_GUARD_MAX_LIVE_RUNS, default 10000
  --recovery-window <n>      calls watched after each warning or block (tool_loop.recovery; 0: off)
                                                        TOOL_LOOP_GUARD_RECOVERY_WINDOW, default 5
  --budget-tokens <n>        a loop whose run's model calls reported this many tokens is critical
                                                        TOOL_LOOP_GUARD_BUDGET_TOKENS, default none
  --budget-ms <n>            a loop that lasted this long is critical
                                                        TOOL_LOOP_GUARD_BUDGET_MS, default none
  --hash-seed <n|random>     seed of the argument and result hashes
                                                        TOOL_LOOP_GUARD_HASH_SEED, default 0
  --redact-content           names taken from tool output are replaced by a digest in what is exported
                                                        TOOL_LOOP_GUARD_REDACT_CONTENT, default off
  --evidence-spans <on|off>  write evidence spans       TOOL_LOOP_GUARD_EVIDENCE_SPANS, default on

Exporting:
  --export <url|none>        OTLP/HTTP endpoint evidence spans and metrics go to (/v1/traces and
                             /v1/metrics are appended), e.g. the collector's; none: export nothing
                                                        TOOL_LOOP_GUARD_SERVE_EXPORT, else the OTLP
                             exporters' variables (OTEL_EXPORTER_OTLP_ENDPOINT, ...), else
                             http://localhost:4318
  --metric-interval-ms <n>   how often metrics are exported
                                                        TOOL_LOOP_GUARD_SERVE_METRIC_INTERVAL_MS, default ${SERVE_DEFAULTS.metricIntervalMs}
  --instance-id <id>         service.instance.id of this replica: of its own metrics
                             (tool_loop.serve.*) and of the loop counters it exports for each agent
                             service                    TOOL_LOOP_GUARD_SERVE_INSTANCE_ID, else
                             OTEL_RESOURCE_ATTRIBUTES, else a random UUID
                             (its own resource: OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES; service
                             name tool-loop-guard by default)

Restarts:
  --state-file <path>        a file this replica rewrites every second with the runs and spans it holds
                             in memory, and removes when it stops cleanly; a replica that finds it at
                             start logs what the one before it, killed or crashed, lost ("N in-memory
                             runs lost"). One file per replica    TOOL_LOOP_GUARD_SERVE_STATE_FILE, default none

Logging (stderr):
  --log-level <error|warn|info|debug>                   TOOL_LOOP_GUARD_SERVE_LOG_LEVEL, default ${SERVE_DEFAULTS.logLevel}
  --report-interval-ms <n>   a status line (spans, live runs, findings) this often; 0: none
                                                        TOOL_LOOP_GUARD_SERVE_REPORT_INTERVAL_MS, default ${SERVE_DEFAULTS.reportIntervalMs}
  -h, --help                 show this help

SIGTERM or SIGINT stops it: it refuses new requests (retryable), judges what is buffered, logs how
many runs it held ("N in-memory runs lost": their history), flushes the exporters and exits 0.

Exit codes: 0 stopped by a signal; 1 a receiver could not listen; 2 usage or config error.
`;

/** `tool-loop-guard serve …`: runs until SIGTERM or SIGINT; returns the exit code. */
export async function runServe(argv: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args: [...argv],
    allowPositionals: false,
    strict: true,
    options: SERVE_PARSE_OPTIONS,
  });
  if (values.help) {
    io.stdout(SERVE_USAGE);
    return 0;
  }
  const warn = (message: string) => io.stderr(`warning: ${printable(message)}\n`);
  const { settings, processor: flags, overrides } = readServeArguments(values, process.env, warn);
  const log = new ServeLog((line) => io.stderr(line), settings.logLevel);
  const given: ToolLoopSpanProcessorOptions = {
    ...(flags.configFile !== undefined ? { configFile: flags.configFile } : {}),
    ...(flags.mode !== undefined ? { mode: flags.mode } : {}),
    ...(flags.runIdleTtlMs !== undefined ? { runIdleTtlMs: flags.runIdleTtlMs } : {}),
    ...(flags.maxLiveRuns !== undefined ? { maxLiveRuns: flags.maxLiveRuns } : {}),
    ...(flags.recoveryWindow !== undefined ? { recoveryWindow: flags.recoveryWindow } : {}),
    ...(flags.budgetTokens !== undefined ? { budgetTokens: flags.budgetTokens } : {}),
    ...(flags.budgetMs !== undefined ? { budgetMs: flags.budgetMs } : {}),
    ...(flags.hashSeed !== undefined ? { hashSeed: flags.hashSeed } : {}),
    ...(flags.redactContent !== undefined ? { redactContent: flags.redactContent } : {}),
    ...(flags.evidenceSpans !== undefined ? { evidenceSpans: flags.evidenceSpans } : {}),
  };
  const processor = resolveProcessorOptions(given, process.env, log);
  let config: ToolLoopGuardConfig = {};
  if (processor.configFile !== undefined) config = (await loadConfigFile(processor.configFile)).config;
  const resolver = new AgentConfigResolver(applyOverrides(config, overrides), log, processor.configFile);
  const digester = await createDigester({ seed: processor.hashSeed });
  // The exporters report failures (an unreachable collector) through diag.
  diag.setLogger(log, { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });

  // Listening before the service starts: a signal that comes as soon as it says it listens stops it
  // cleanly (not by the default action, which would lose what it buffered).
  const stopRequested = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'));
    process.once('SIGINT', () => resolve('SIGINT'));
  });
  let service: LoopGuardService;
  try {
    service = await LoopGuardService.start({ settings, processor, resolver, digester, log });
  } catch (error) {
    log.error(`cannot start: ${(error as Error).message}`);
    return 1;
  }
  const signal = await stopRequested;
  log.info(`${signal}: stopping`);
  await service.stop();
  diag.disable();
  return 0;
}
