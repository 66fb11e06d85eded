/**
 * Span guards driven by a real provider's spans, side by side: what each answered, for tests
 * that compare two ways of reading the same spans (deferred result hashing and remembered
 * hashes against hashing every call and result at its span's end).
 */
import { trace, type Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Digester, ResolvedLoopDetectionConfig } from '../../src/engine-entry.js';
import { DEFAULT_ADAPTERS } from '../../src/spans/adapters/index.js';
import { SpanGuard, type SpanStarted, type ToolSpanFinished } from '../../src/spans/span-guard.js';
import { AdapterSpanReader } from '../../src/spans/span-reading.js';
import { silentLogger } from '../../src/util/logger.js';

/** A surfaced verdict or an abort, as the public processor reports it to `onLoopEvent` / `onAbort`. */
export function reported(
  runId: string,
  toolName: string,
  verdict:
    | {
        readonly check: {
          readonly emit: boolean;
          readonly verdict: {
            readonly detector: string;
            readonly level: string;
            readonly count: number;
            readonly message: string;
          };
        };
      }
    | undefined,
  abort?: { readonly count: number; readonly message: string; readonly toolName: string },
): string[] {
  const out: string[] = [];
  if (verdict?.check.emit) {
    const { detector, level, count, message } = verdict.check.verdict;
    out.push(`${detector} ${level} ${count} ${toolName} ${runId} ${message}`);
  }
  if (abort) out.push(`compaction_loop_persisted abort ${abort.count} ${abort.toolName} ${runId} ${abort.message}`);
  return out;
}

/** Whatever a guard answered, as text (the run object is left out: its history is compared by its records). */
function describeStart(started: SpanStarted<Span> | undefined): string {
  if (!started) return 'start: none';
  const { armed, verdict, recovery, call, sameCallAs } = started;
  return `start: ${JSON.stringify({ run: started.scope.runKey, armed, verdict, recovery, call, inner: !!sameCallAs })}`;
}

function describeFinish(finished: ToolSpanFinished<Span> | undefined): string {
  if (!finished) return 'finish: none';
  const { verdict, recovery, abort, windowClosed, call, sameCall, matchedAtEnd } = finished;
  return `finish: ${JSON.stringify({ verdict, recovery, abort, windowClosed, call, sameCall, matchedAtEnd })}`;
}

/** Hands every span to each guard as the processor does, writing down what each answered. */
export class GuardRecorder implements SpanProcessor {
  readonly answers: string[][];
  /** What the processor would report of each guard's answers. */
  readonly reports: string[][];

  constructor(readonly guards: readonly SpanGuard<Span>[]) {
    this.answers = guards.map(() => []);
    this.reports = guards.map(() => []);
  }

  onStart(span: Span, parentContext: Context): void {
    const parent = trace.getSpan(parentContext);
    this.guards.forEach((guard, g) => {
      const started = guard.start(span, span.spanContext(), { parent });
      this.answers[g].push(describeStart(started));
      if (started?.tool) this.reports[g].push(...reported(started.scope.runId, started.tool.toolName, started.verdict));
    });
  }

  onEnding(span: Span): void {
    this.guards.forEach((guard, g) => {
      const ended = guard.finish(span);
      // Only tool spans here: model-call spans are covered by test/spans/adapters/chat-spans.test.ts.
      const finished = ended && 'tool' in ended ? ended : undefined;
      this.answers[g].push(describeFinish(finished));
      if (finished)
        this.reports[g].push(
          ...reported(finished.scope.runId, finished.tool.toolName, finished.verdict, finished.abort),
        );
    });
  }

  onEnd(span: ReadableSpan): void {
    const hasParent = span.parentSpanContext !== undefined;
    this.guards.forEach((guard, g) =>
      this.answers[g].push(
        `close: ${guard.close(span as unknown as Span, hasParent ? undefined : span.spanContext().traceId)}`,
      ),
    );
  }

  /** Each guard's records of each live run (reading them hashes every deferred result). */
  records(runKeys: readonly string[]): string[] {
    return this.guards.map((guard) => JSON.stringify(runKeys.map((key) => guard.peek(key)?.loop.records() ?? null)));
  }

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

/**
 * A span guard as the processor makes one; `deferResultsFrom` `Infinity` hashes every result at
 * its span's end, and `memos` `false` hashes every call and result afresh (nothing remembered).
 */
export function spanGuard(
  digester: Digester,
  config: ResolvedLoopDetectionConfig,
  clock: () => number,
  deferResultsFrom: number,
  budget?: number,
  memos = true,
): SpanGuard<Span> {
  return new SpanGuard<Span>({
    reader: new AdapterSpanReader(DEFAULT_ADAPTERS, digester, { deferResultsFrom, memos: memos ? undefined : false }),
    configFor: () => config,
    logger: silentLogger,
    clock,
    runIdleTtlMs: 60_000,
    maxLiveRuns: 100,
    deferredResultBytes: budget,
  });
}
