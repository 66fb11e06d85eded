import type { AgentConfigResolver } from '../../config/agent-config-resolver.js';
import type { Digester } from '../../engine/hashing/digest.js';
import type { ResolvedProcessorOptions } from '../../otel/options.js';
import { redactingLogger } from '../../otel/unknown-tool-redaction.js';
import type { EngineLogger } from '../../util/logger.js';
import { startGrpcReceiver } from './grpc-receiver.js';
import { startHttpReceiver } from './http-receiver.js';
import { OtlpProtobuf } from './otlp-protobuf.js';
import type { Receiver } from './receiver.js';
import { ReplicaStateFile } from './replica-state-file.js';
import { RunJudge } from './run-judge.js';
import type { ServeLog } from './serve-log.js';
import { ServeMetrics } from './serve-metrics.js';
import type { ServeSettings } from './serve-options.js';
import { ServeTelemetry } from './serve-telemetry.js';
import { SpanIntake, type ServedSpan, type SpanSource } from './span-intake.js';
import { TraceBuffer } from './trace-buffer.js';
import type { ExportOutcome, TraceExportHandler } from './trace-export-handler.js';
import { VerdictOutputs } from './verdict-outputs.js';

/** What the service is built from: its settings, and the processor's options and config, resolved. */
export interface LoopGuardServiceOptions {
  readonly settings: ServeSettings;
  readonly processor: ResolvedProcessorOptions;
  readonly resolver: AgentConfigResolver;
  readonly digester: Digester;
  readonly log: ServeLog;
  /** Wall clock (ms), for tests. Default `Date.now`. */
  readonly clock?: () => number;
}

/** What a stopping service had in hand, as its last log line says. */
export interface StopReport {
  /** Spans still waiting for their trace's grace period, judged at once. */
  readonly bufferedSpans: number;
  readonly bufferedTraces: number;
  /** Runs whose detection state was held: their history is gone with the service. */
  readonly liveRuns: number;
}

/** How long a stopping receiver waits for the requests in progress. */
const CLOSE_GRACE_MS = 5000;
/** How often `--state-file` is rewritten. */
const STATE_INTERVAL_MS = 1000;

/**
 * `tool-loop-guard serve`: OTLP receivers whose spans are buffered per trace, judged through the
 * processor's span guard once their trace is due (see {@link TraceBuffer} and {@link RunJudge}),
 * with the verdicts written as evidence spans and counters (see {@link VerdictOutputs}). A full
 * buffer refuses requests with the protocol's retryable status: nothing received is dropped.
 */
export class LoopGuardService implements TraceExportHandler {
  readonly maxRequestBytes: number;
  readonly retryAfterSeconds: number;
  private readonly buffer: TraceBuffer<ServedSpan>;
  private readonly judge: RunJudge;
  private readonly outputs: VerdictOutputs;
  private readonly metrics: ServeMetrics;
  private readonly intake: SpanIntake;
  private readonly clock: () => number;
  private readonly log: ServeLog;
  private grpc: Receiver | undefined;
  private http: Receiver | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private stopping: Promise<StopReport> | undefined;
  private refusing = false;
  private processCapReported = false;
  private readonly stateFile: ReplicaStateFile | undefined;
  private stateFailureReported = false;

  private constructor(
    private readonly options: LoopGuardServiceOptions,
    private readonly telemetry: ServeTelemetry,
  ) {
    const { settings, processor, log } = options;
    this.log = log;
    this.clock = options.clock ?? Date.now;
    this.maxRequestBytes = settings.maxRequestBytes;
    this.stateFile = settings.stateFile !== undefined ? new ReplicaStateFile(settings.stateFile) : undefined;
    this.retryAfterSeconds = Math.max(1, Math.ceil(settings.graceMs / 1000));
    this.intake = new SpanIntake(processor.adapters, options.digester);
    this.buffer = new TraceBuffer<ServedSpan>(
      {
        graceMs: settings.graceMs,
        maxWaitMs: settings.maxWaitMs,
        maxSpans: settings.maxBufferedSpans,
        maxTraceSpans: settings.maxTraceSpans,
      },
      { traceOf: (span) => span.traceId, isRoot: (span) => span.parentSpanId === undefined },
    );
    this.metrics = new ServeMetrics(telemetry.meter, {
      bufferedSpans: () => this.buffer.spans,
      liveRuns: () => this.judge.liveRuns,
    });
    const digestText = (text: string) => options.digester.digestText(text);
    this.outputs = new VerdictOutputs(
      telemetry,
      {
        shadow: processor.mode === 'shadow',
        redactContent: processor.redactContent,
        evidenceSpans: processor.evidenceSpans,
        digestText,
        onReleased: (reason) => this.metrics.runReleased(reason),
      },
      log,
    );
    // The guard's own lines (OpenClaw's) repeat what the outputs log: for debugging only.
    const engine: EngineLogger = {
      debug: (message) => log.debug(message),
      info: (message) => log.debug(message),
      warn: (message) => log.debug(message),
      error: (message) => log.debug(message),
    };
    this.judge = new RunJudge({
      replay: {
        configFor: (agentId) => options.resolver.forAgent(agentId),
        logger: processor.redactContent ? redactingLogger(engine, digestText) : engine,
        runIdleTtlMs: processor.runIdleTtlMs,
        maxLiveRuns: processor.maxLiveRuns,
        recoveryWindow: processor.recoveryWindow,
        // The agent ran every call: its history is what it did (a block is one the guard would have made).
        shadow: true,
        ...(processor.budget ? { budget: processor.budget } : {}),
        keepCallRefs: processor.evidenceSpans && settings.exportUrl !== null,
      },
      maxProcesses: settings.maxProcesses,
      observerFor: (first) => this.outputs.observerFor(first),
      onProcessReleased: (reason, liveRuns) => this.processReleased(reason, liveRuns),
    });
  }

  /** Starts the exporters and the receivers; resolves once they listen. */
  static async start(options: LoopGuardServiceOptions): Promise<LoopGuardService> {
    const { settings, log } = options;
    const telemetry = await ServeTelemetry.start({
      exportUrl: settings.exportUrl,
      metricIntervalMs: settings.metricIntervalMs,
      ...(settings.instanceId !== undefined ? { instanceId: settings.instanceId } : {}),
      maxProcesses: settings.maxProcesses,
      log,
    });
    const service = new LoopGuardService(options, telemetry);
    service.reportPrevious();
    const codec = new OtlpProtobuf();
    try {
      if (settings.grpc) service.grpc = await startGrpcReceiver(settings.grpc, service, codec, log);
      if (settings.http) service.http = await startHttpReceiver(settings.http, service, codec, log);
    } catch (error) {
      await service.stop();
      throw error;
    }
    service.startTimers();
    return service;
  }

  /** Where the OTLP/gRPC receiver listens (`host:port`), if it is on. */
  get grpcAddress(): string | undefined {
    return this.grpc?.address;
  }

  /** Where the OTLP/HTTP receiver listens (`host:port`), if it is on. */
  get httpAddress(): string | undefined {
    return this.http?.address;
  }

  /** Runs whose detection state is held now. */
  get liveRuns(): number {
    return this.judge.liveRuns;
  }

  /** Spans waiting for their trace's grace period. */
  get bufferedSpans(): number {
    return this.buffer.spans;
  }

  /** The replica's `service.instance.id`. */
  get instanceId(): string {
    return this.telemetry.instanceId;
  }

  get ready(): boolean {
    return this.stopping === undefined;
  }

  refusal(): string | undefined {
    const reason = this.refusalReason();
    if (reason !== undefined) this.metrics.refused();
    return reason;
  }

  private refusalReason(): string | undefined {
    if (this.stopping) return 'the service is stopping; retry on another replica or once it is back';
    if (!this.buffer.full) {
      if (this.refusing) {
        this.refusing = false;
        this.log.info('taking requests again');
      }
      return undefined;
    }
    const reason = `${this.buffer.spans} spans are waiting to be judged (--max-buffered-spans ${this.options.settings.maxBufferedSpans}): retry later`;
    if (!this.refusing) {
      this.refusing = true;
      this.log.warn(`refusing requests (retryable): ${reason}`);
    }
    return reason;
  }

  accept(request: SpanSource): ExportOutcome {
    const intake = this.intake.take(request);
    this.metrics.spans('accepted', intake.spans.length);
    this.metrics.spans('rejected', intake.rejected);
    this.log.debug(
      `received ${intake.spans.length} spans${intake.rejected > 0 ? `, rejected ${intake.rejected}: ${intake.problem ?? ''}` : ''}`,
    );
    const now = this.clock();
    const ready = this.buffer.add(intake.spans, now);
    if (ready.length > 0) this.judgeTraces(ready, now);
    return intake;
  }

  private judgeTraces(traces: ServedSpan[][], now: number): void {
    this.log.debug(`judging ${traces.reduce((sum, spans) => sum + spans.length, 0)} spans of ${traces.length} traces`);
    try {
      this.judge.judge(traces.length === 1 ? traces[0] : traces.flat(), now);
    } catch (error) {
      this.log.error(
        `judging ${traces.length} traces failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
      );
    }
  }

  /** Judges the traces that are due now (the service does it on a tick of a quarter of the grace period). */
  judgeDue(): void {
    const now = this.clock();
    const due = this.buffer.due(now);
    if (due.length > 0) this.judgeTraces(due, now);
  }

  /** Exports what is pending (evidence spans, counters). */
  flush(): Promise<void> {
    return this.telemetry.flush();
  }

  /**
   * Stops: refuses new requests (retryable), lets the receivers answer those in progress, judges
   * every buffered trace at once, releases every run (their history is lost: later calls of those
   * runs start afresh wherever they go), says so, and flushes the exporters. Idempotent.
   */
  stop(): Promise<StopReport> {
    this.stopping ??= this.shutDown();
    return this.stopping;
  }

  private async shutDown(): Promise<StopReport> {
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all([this.grpc?.close(CLOSE_GRACE_MS), this.http?.close(CLOSE_GRACE_MS)]);
    const [bufferedSpans, bufferedTraces] = [this.buffer.spans, this.buffer.size];
    const drained = this.buffer.drain();
    if (drained.length > 0) this.judgeTraces(drained, this.clock());
    const stopped: StopReport = { bufferedSpans, bufferedTraces, liveRuns: this.judge.liveRuns };
    this.log.info(
      `stopping: judged the ${stopped.bufferedSpans} buffered spans of ${stopped.bufferedTraces} traces at once; ${stopped.liveRuns} in-memory runs lost (their loop history: their later calls start afresh on whichever replica gets them)`,
    );
    this.judge.releaseAll('shutdown');
    await this.telemetry.shutdown();
    this.guardedState(() => this.stateFile?.clear());
    this.log.info(`stopped: ${this.summary()}`);
    return stopped;
  }

  /** What the replica before this one left in `--state-file`: it did not stop, and lost what it held. */
  private reportPrevious(): void {
    const previous = this.stateFile?.previous((problem) => this.log.warn(`--state-file: ${problem}`));
    if (previous === undefined) return;
    this.log.warn(
      `the replica before this one (pid ${previous.pid}, service.instance.id ${previous.instanceId}) did not stop (killed or crashed): ${previous.liveRuns} in-memory runs lost and ${previous.bufferedSpans} received spans unjudged, as of ${previous.at} (${this.stateFile!.path})`,
    );
  }

  /** Rewrites `--state-file` with what this replica holds now. */
  private recordState(): void {
    this.guardedState(() =>
      this.stateFile?.write({
        pid: process.pid,
        instanceId: this.instanceId,
        liveRuns: this.judge.liveRuns,
        bufferedSpans: this.buffer.spans,
        at: new Date(this.clock()).toISOString(),
      }),
    );
  }

  /** A state file that cannot be written is reported once; the service goes on without it. */
  private guardedState(action: () => void): void {
    try {
      action();
    } catch (error) {
      if (this.stateFailureReported) return;
      this.stateFailureReported = true;
      this.log.warn(
        `--state-file ${this.stateFile?.path ?? ''}: ${(error as Error).message}; a kill of this replica will not be reported at its next start. Reported once.`,
      );
    }
  }

  private startTimers(): void {
    const { processor, settings } = this.options;
    // Traces are due at most a quarter of the grace period late (between 10 ms and 1 s).
    const tick = setInterval(() => this.judgeDue(), Math.max(10, Math.min(1000, Math.floor(settings.graceMs / 4))));
    tick.unref();
    this.timers.push(tick);
    const sweep = setInterval(
      () => this.judge.sweep(this.clock()),
      Math.min(60_000, Math.max(1000, processor.runIdleTtlMs / 4)),
    );
    sweep.unref();
    this.timers.push(sweep);
    if (this.stateFile) {
      this.recordState();
      const record = setInterval(() => this.recordState(), STATE_INTERVAL_MS);
      record.unref();
      this.timers.push(record);
    }
    if (settings.reportIntervalMs > 0) {
      const report = setInterval(() => this.log.info(`status: ${this.summary()}`), settings.reportIntervalMs);
      report.unref();
      this.timers.push(report);
    }
    this.log.info(
      `listening: ${[
        this.grpcAddress !== undefined ? `OTLP/gRPC ${this.grpcAddress}` : undefined,
        this.httpAddress !== undefined ? `OTLP/HTTP ${this.httpAddress}` : undefined,
      ]
        .filter((part) => part !== undefined)
        .join(', ')}; exporting to ${
        settings.exportUrl === null
          ? 'nowhere (--export none)'
          : (settings.exportUrl ?? "the OTLP exporters' environment")
      }; service.instance.id ${this.instanceId}; grace ${settings.graceMs} ms`,
    );
  }

  /** One line: what was received, what is held, what was found. */
  private summary(): string {
    const { accepted, rejected, refusedRequests } = this.metrics.totals;
    const { warnings, blocks, aborts } = this.outputs.counts;
    return `${accepted} spans accepted, ${rejected} rejected, ${refusedRequests} requests refused; ${this.buffer.spans} buffered in ${this.buffer.size} traces; ${this.judge.liveRuns} live runs in ${this.judge.processCount} processes; ${warnings} warnings, ${blocks} blocks, ${aborts} aborts`;
  }

  private processReleased(reason: 'capacity' | 'idle', liveRuns: number): void {
    if (reason !== 'capacity') return;
    if (!this.processCapReported) {
      this.processCapReported = true;
      this.log.warn(
        `more than ${this.options.settings.maxProcesses} emitting processes: the least recently active is let go with its ${liveRuns} live runs (their loop history is dropped). Raise --max-processes if this is expected. Reported once; see tool_loop.serve.released_runs.`,
      );
    }
  }
}
