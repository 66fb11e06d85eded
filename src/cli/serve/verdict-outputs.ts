import { trace, TraceFlags, type Attributes, type Span } from '@opentelemetry/api';
import type { GuardAbort } from '../../engine/loop-run.js';
import type { RecoveryResolution } from '../../engine/recovery/recovery-watch.js';
import { loopEventAttributes, loopEventLabels } from '../../otel/event-attributes.js';
import { emitEvidenceSpan } from '../../otel/evidence-spans.js';
import {
  abortEvent,
  armedEvent,
  recoveryLabels,
  verdictEvent,
  windowClosedEvent,
  type LoopEventRecord,
} from '../../otel/loop-events.js';
import { describeError } from '../../util/describe-error.js';
import { redactUnknownToolName } from '../../otel/unknown-tool-redaction.js';
import * as sc from '../../semconv.js';
import type { RunReleaseReason } from '../../spans/run-registry.js';
import type { SpanScope } from '../../spans/run-scope.js';
import type { CallVerdict, GuardedRun } from '../../spans/span-guard.js';
import type { EngineLogger } from '../../util/logger.js';
import type { ReplayObserver } from '../replay/span-replayer.js';
import type { ServeTelemetry } from './serve-telemetry.js';
import type { ServedSpan } from './span-intake.js';

/** What {@link VerdictOutputs} writes. */
export interface VerdictOutputOptions {
  /** Report as shadow mode does (`tool_loop.would_*`, action `would_*`, evidence allowed): no alert fires. */
  readonly shadow: boolean;
  /** Names taken from tool output are replaced by a digest (the processor's `redactContent`). */
  readonly redactContent: boolean;
  /** Write evidence spans (the processor's `evidenceSpans`). */
  readonly evidenceSpans: boolean;
  /** The digest of a text, for `redactContent`. */
  readonly digestText: (text: string) => string;
  /** Told of each run released, by reason. */
  readonly onReleased?: (reason: RunReleaseReason) => void;
}

/** Counts of what was emitted, for the service's reports. */
export interface VerdictCounts {
  warnings: number;
  blocks: number;
  aborts: number;
}

/** `false`: what the service says it did not enforce. */
const NOT_ENFORCED: Attributes = Object.freeze({ [sc.ATTR_TOOL_LOOP_ENFORCED]: false });

/**
 * What the service makes of the guard's decisions on received spans, where users already look:
 * for every surfaced warning, block and abort an evidence span (`run_guardrail tool-loop-guard`)
 * in the agent's own trace, a child of the judged tool span at the moment it was judged (its
 * start, or its end for a call whose arguments came at its end, and for an abort), linked to
 * the loop's member calls and carrying the loop event the processor would have put on the tool
 * span; and the `tool_loop.events` / `tool_loop.recovery` counters with the processor's names and
 * labels. The service observes: a block is the block the guard *would* have made, which
 * `tool_loop.enforced` = `false` says (the action stays `block`, so the shipped alert rules fire).
 */
export class VerdictOutputs {
  readonly counts: VerdictCounts = { warnings: 0, blocks: 0, aborts: 0 };

  constructor(
    private readonly telemetry: ServeTelemetry,
    private readonly options: VerdictOutputOptions,
    private readonly log: EngineLogger,
  ) {}

  /** The observer of the replay of the process that emitted `first` (its resource names the process). */
  observerFor(first: ServedSpan): ReplayObserver {
    const { resource } = first;
    return {
      started: (span, started) => {
        const served = span as ServedSpan;
        if (started.armed) this.count(served, armedEvent(started.armed, started.scope));
        if (started.recovery) this.recovery(served.resource, started.recovery, started.scope.agentId);
        if (started.verdict && started.tool)
          this.verdict(
            served,
            started.scope,
            started.run!,
            started.tool.toolName,
            started.verdict,
            started.tool.toolCallId,
          );
      },
      finished: (span, finished) => {
        const served = span as ServedSpan;
        if (finished.recovery) this.recovery(served.resource, finished.recovery, finished.scope.agentId);
        if (finished.verdict)
          this.verdict(
            served,
            finished.scope,
            finished.run,
            finished.tool.toolName,
            finished.verdict,
            finished.tool.toolCallId,
          );
        if (finished.abort) this.abort(served, finished.scope, finished.run, finished.abort, finished.tool.toolCallId);
        if (finished.windowClosed) this.count(served, windowClosedEvent(finished.windowClosed, finished.scope));
      },
      released: (run, reason, settled) => {
        this.options.onReleased?.(reason);
        if (settled) this.recovery(resource, settled, run.agentId);
      },
    };
  }

  private verdict(
    span: ServedSpan,
    scope: SpanScope,
    run: GuardedRun,
    toolName: string,
    { check, phase }: CallVerdict,
    toolCallId: string | undefined,
  ): void {
    if (!check.emit) return;
    const { verdict } = check;
    const shown = this.options.redactContent
      ? redactUnknownToolName(verdict, toolName, this.options.digestText)
      : verdict;
    const record = verdictEvent(shown, check, scope, toolName, this.options.shadow);
    const critical = verdict.level === sc.LEVEL_CRITICAL;
    if (critical) this.counts.blocks += 1;
    else this.counts.warnings += 1;
    this.count(span, record);
    const line = `${record.fields.action} ${toolName} in run ${scope.runId} (trace ${span.traceId}, span ${span.spanId}): ${shown.message}`;
    this.log.debug(line);
    this.evidence(span, run, record, {
      judged: 'call',
      warning: !critical,
      signatures: check.window?.signatures ?? [],
      toolCallId,
      timeUs: phase === 'start' ? span.startUs : span.endUs,
    });
  }

  private abort(
    span: ServedSpan,
    scope: SpanScope,
    run: GuardedRun,
    verdict: GuardAbort,
    toolCallId: string | undefined,
  ): void {
    const record = abortEvent(verdict, scope, this.options.shadow);
    this.counts.aborts += 1;
    this.count(span, record);
    this.log.debug(
      `${record.fields.action} run ${scope.runId} (trace ${span.traceId}, span ${span.spanId}): ${verdict.message}`,
    );
    this.evidence(span, run, record, {
      judged: 'outcome',
      warning: false,
      signatures: [verdict.argsHash],
      toolCallId,
      timeUs: span.endUs,
    });
  }

  /** The evidence span of a surfaced verdict, under the judged span of the agent's trace, at the moment it was judged. */
  private evidence(
    span: ServedSpan,
    run: GuardedRun,
    record: LoopEventRecord,
    at: {
      readonly judged: 'call' | 'outcome';
      readonly warning: boolean;
      readonly signatures: readonly string[];
      readonly toolCallId: string | undefined;
      readonly timeUs: number;
    },
  ): void {
    if (!this.options.evidenceSpans) return;
    this.guarded('the evidence span', () => {
      const tracer = this.telemetry.tracerFor(span.process, span.resource);
      if (!tracer) return;
      emitEvidenceSpan(tracer, toolSpanOf(span), {
        judged: at.judged,
        attributes: loopEventAttributes(record.fields, { ...record.extra, ...NOT_ENFORCED }),
        message: record.fields.message,
        ...(at.toolCallId !== undefined ? { toolCallId: at.toolCallId } : {}),
        members: run.loop.memberRefs(at.signatures),
        shadow: this.options.shadow,
        warning: at.warning,
        event: record.name,
        time: at.timeUs / 1000,
      });
    });
  }

  /** Counts a loop event in the agent service's `tool_loop.events`. */
  private count(span: ServedSpan, record: LoopEventRecord): void {
    this.guarded('the tool_loop.events counter', () =>
      this.telemetry.countersFor(span.resource).events.add(1, loopEventLabels(record.fields)),
    );
  }

  /** A settled recovery watch, counted in the agent service's `tool_loop.recovery`. */
  private recovery(
    resource: ServedSpan['resource'],
    resolution: RecoveryResolution,
    agentId: string | undefined,
  ): void {
    const labels = recoveryLabels(resolution, agentId, this.options.shadow);
    this.guarded('the tool_loop.recovery counter', () => this.telemetry.countersFor(resource).recovery.add(1, labels));
  }

  /** One output on its own: a failing exporter or meter stops no other output, nor detection. */
  private guarded(what: string, output: () => void): void {
    try {
      output();
    } catch (error) {
      this.log.error(`${what} failed: ${describeError(error)}`);
    }
  }
}

/** The judged tool span, known by its ids (it was exported, so it was sampled). */
function toolSpanOf(span: ServedSpan): Span {
  return trace.wrapSpanContext({
    traceId: span.traceId,
    spanId: span.spanId,
    traceFlags: TraceFlags.SAMPLED,
    isRemote: true,
  });
}
