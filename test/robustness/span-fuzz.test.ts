/**
 * Property: random sequences of span operations across many runs, through a real
 * `BasicTracerProvider` with the processor first, never throw into the caller, never make a
 * hook fail internally, and keep state bounded — `getStats().liveRuns <= maxLiveRuns` after
 * every operation, every engine history within `historySize`, nothing left after shutdown.
 *
 * The long run (`npm run fuzz`, `FUZZ_RUNS=30000`) prints the number of sequences covered.
 */
import { diag, DiagLogLevel } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  SimpleSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
} from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../src/config/index.js';
import { PackedRunLog } from '../../src/engine/history/packed-run-log.js';
import { ToolLoopSpanProcessor } from '../../src/index.js';
import { RecordingDiagLogger } from '../helpers/otel-harness.js';
import { fcParams, fuzzTimeout, LONG_RUN, reportCount } from './fuzz-runs.js';
import { fuzzSettings, SpanDriver, spanOp } from './span-arbitraries.js';

/** Every run's log, checked against `historySize` after each record appended. */
const historyViolations: string[] = [];
// eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with apply(this) by the wrapper below
const originalPush = PackedRunLog.prototype.push;

beforeAll(() => {
  PackedRunLog.prototype.push = function (this: PackedRunLog, ...args: Parameters<PackedRunLog['push']>) {
    const seq = originalPush.apply(this, args);
    const limit = args[3];
    if (this.end - this.first > limit) historyViolations.push(`push: ${this.end - this.first} > ${limit}`);
    return seq;
  };
});

afterAll(() => {
  PackedRunLog.prototype.push = originalPush;
  diag.disable();
});

/** Counts exported spans without keeping them (the long run exports millions). */
class CountingExporter implements SpanExporter {
  exported = 0;
  export(spans: ReadableSpan[], done: (result: { code: number }) => void): void {
    this.exported += spans.length;
    done({ code: 0 });
  }
  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

describe('span-operation fuzz through a real BasicTracerProvider', () => {
  it(
    'no exception reaches the caller, no hook fails, live runs and histories stay bounded',
    async () => {
      const logger = new RecordingDiagLogger();
      diag.setLogger(logger, { logLevel: DiagLogLevel.ALL, suppressOverrideMessage: true });
      const started = performance.now();
      const params = fcParams(150);
      let sequences = 0;
      let operations = 0;
      const seen = { warning: 0, critical: 0, abort: 0, capacity: 0, idle: 0, rootEnded: 0 };

      await fc.assert(
        fc.asyncProperty(
          fuzzSettings,
          fc.array(spanOp, { minLength: 1, maxLength: 80, size: 'medium' }),
          async (settings, ops) => {
            sequences += 1;
            logger.lines.length = 0;
            historyViolations.length = 0;
            let now = 1_000_000;
            const processor = await ToolLoopSpanProcessor.create({
              config: { tools: { loopDetection: settings.loopDetection } },
              maxLiveRuns: settings.maxLiveRuns,
              runIdleTtlMs: settings.runIdleTtlMs,
              abortOnCritical: settings.abortOnCritical,
              redactContent: settings.redactContent,
              clock: () => now,
              onLoopEvent: (event) => {
                seen[event.level] += 1;
                if (settings.callbacksThrow) throw new Error('user onLoopEvent failed');
              },
              onAbort: () => {
                seen.abort += 1;
                if (settings.callbacksThrow) throw new Error('user onAbort failed');
              },
            });
            const provider = new BasicTracerProvider({
              spanProcessors: [processor, new SimpleSpanProcessor(new CountingExporter())],
            });
            const tracer = provider.getTracer('fuzz');
            const driver = new SpanDriver(
              tracer,
              (ms) => (now += ms),
              () => processor.forceFlush(),
            );
            const historySize = resolveLoopDetectionConfig(settings.loopDetection).historySize;

            for (const op of ops) {
              operations += 1;
              await driver.run(op); // a throw here fails the property: it reached the caller
              expect(processor.getStats().liveRuns).toBeLessThanOrEqual(settings.maxLiveRuns);
            }
            expect(historyViolations, `historySize ${historySize}`).toEqual([]);
            const internal = logger.lines.filter((line) => /on(Start|Ending|End) failed/.test(line.text));
            expect(internal.map((line) => line.text.slice(0, 400))).toEqual([]);
            const stats = processor.getStats();
            seen.capacity += stats.releasedRuns.capacity;
            seen.idle += stats.releasedRuns.idle;
            seen.rootEnded += stats.releasedRuns['root-ended'];
            await provider.shutdown();
            expect(processor.getStats().liveRuns).toBe(0);
          },
        ),
        params,
      );
      reportCount('span-operation sequences (processor)', sequences, started);
      console.log(`[fuzz] span-operation sequences: ${operations} operations; paths hit: ${JSON.stringify(seen)}`);
      expect(sequences).toBe(params.numRuns);
      // The generator must actually reach detection, aborts and the release paths. CI runs are
      // short and randomly seeded, so there only the robust aggregates are required.
      expect(seen.warning + seen.critical + seen.abort, 'detection reached').toBeGreaterThan(0);
      expect(seen.capacity + seen.idle + seen.rootEnded, 'release paths reached').toBeGreaterThan(0);
      if (LONG_RUN) for (const [path, hits] of Object.entries(seen)) expect(hits, path).toBeGreaterThan(0);
    },
    fuzzTimeout(40_000),
  );
});
