/**
 * Two liveness/safety properties through a real provider and the processor:
 *
 * - Progress is never blocked: when every call's result differs from the last identical
 *   call's, `generic_repeat`, `known_poll_no_progress` and `global_circuit_breaker` never
 *   return critical and the post-compaction guard never aborts (streaks count identical
 *   outcomes only; the guard needs a whole window of identical triples). `ping_pong` and `unknown_tool_repeat` are outside the claim: a
 *   short alternation with one hash per side, or a streak of unknown-tool errors, is a loop
 *   by definition even when results change.
 * - Loops are always caught: a run of identical (tool, args, result) calls is critical by
 *   exactly the spec's threshold for its detector (generic_repeat at C for non-polls,
 *   known_poll_no_progress at C for polls, the breaker at B when both are disabled), whatever
 *   unrelated traffic interleaves in other runs.
 */
import { ROOT_CONTEXT, trace, type Span } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveLoopDetectionConfig } from '../../src/config/index.js';
import { getToolLoopVerdict, ToolLoopSpanProcessor, type LoopAbortEvent, type LoopEvent } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { resetOtelGlobals } from '../helpers/otel-harness.js';
import { fcParams, fuzzTimeout, reportCount } from './fuzz-runs.js';
import { SpanDriver, spanOp } from './span-arbitraries.js';

afterAll(() => resetOtelGlobals());

const TOOLS = [
  { tool: 'read', args: '{"path":"/same"}' },
  { tool: 'read', args: '{"path":"/other"}' },
  { tool: 'process', args: '{"action":"poll","sessionId":"s"}' },
  { tool: 'command_status', args: '{}' },
  { tool: 'write', args: '{"path":"/x","content":"y"}' },
] as const;
const RESULTS = ['"r0"', '"r1"', '"r2"'] as const;
const PROGRESS_DETECTORS = new Set(['generic_repeat', 'known_poll_no_progress', 'global_circuit_breaker']);

async function setup(loopDetection: Record<string, unknown>) {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  let now = 1_000_000;
  const processor = await ToolLoopSpanProcessor.create({
    config: { tools: { loopDetection } },
    clock: () => now,
    onLoopEvent: (event) => void events.push(event),
    onAbort: (event) => void aborts.push(event),
  });
  const provider = new BasicTracerProvider({ spanProcessors: [processor] });
  const tracer = provider.getTracer('properties');
  return { processor, provider, tracer, events, aborts, advance: (ms: number) => void (now += ms) };
}

const thresholds = fc.record({
  enabled: fc.constant(true),
  historySize: fc.integer({ min: 1, max: 20 }),
  warningThreshold: fc.integer({ min: 1, max: 5 }),
  criticalThreshold: fc.integer({ min: 2, max: 7 }),
  globalCircuitBreakerThreshold: fc.integer({ min: 3, max: 9 }),
  detectors: fc.record({ genericRepeat: fc.boolean(), knownPollNoProgress: fc.boolean(), pingPong: fc.boolean() }),
  postCompactionGuard: fc.record({ windowSize: fc.integer({ min: 2, max: 4 }) }),
});

type ProgressOp =
  | { kind: 'call'; run: number; sig: number; result: number; neverEnds: boolean }
  | { kind: 'end'; pick: number }
  | { kind: 'compaction'; run: number };

const progressOp: fc.Arbitrary<ProgressOp> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      run: fc.nat({ max: 2 }),
      sig: fc.nat({ max: TOOLS.length - 1 }),
      result: fc.nat({ max: 2 }),
      neverEnds: fc.nat({ max: 9 }).map((n) => n === 0),
    }),
  },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('end' as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('compaction' as const), run: fc.nat({ max: 2 }) }) },
);

interface Open {
  readonly span: Span;
  readonly result: string;
}

describe('progress is never blocked', () => {
  it(
    'sequential calls per run (runs interleaved, some calls never end): results that always change never draw a no-progress critical or an abort',
    async () => {
      const started = performance.now();
      const params = fcParams(60, 10);
      await fc.assert(
        fc.asyncProperty(
          thresholds,
          fc.array(progressOp, { minLength: 1, maxLength: 120, size: 'large' }),
          async (loopDetection, ops) => {
            // A call that never ends stays in flight until the next one finishes, and OpenClaw's
            // batch admission counts it as no progress for a call judged meanwhile; a ping_pong
            // veto extends the streak of its own arguments. This property is about outcomes, so
            // both are off here (their rules have their own tests).
            const h = await setup({
              ...loopDetection,
              detectors: { ...(loopDetection.detectors as object), batchAdmission: false, vetoesExtendStreak: false },
            });
            const roots = [0, 1, 2].map((i) =>
              h.tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: `run-${i}` } }),
            );
            const last = new Map<string, string>(); // `${run}|${sig}` → result of the last recorded identical call
            const open: Array<Open | undefined> = [undefined, undefined, undefined]; // at most one ending call per run
            let callId = 0;
            const endOpen = (run: number) => {
              const call = open[run];
              if (!call) return;
              call.span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, call.result);
              call.span.end();
              open[run] = undefined;
            };
            for (const op of ops) {
              if (op.kind === 'compaction') {
                h.tracer
                  .startSpan(
                    sc.ATTR_COMPACTION_RETRY,
                    { attributes: { [sc.ATTR_COMPACTION_RETRY]: true } },
                    trace.setSpan(ROOT_CONTEXT, roots[op.run]),
                  )
                  .end();
                continue;
              }
              if (op.kind === 'end') {
                endOpen(op.pick % 3);
                continue;
              }
              endOpen(op.run); // sequential within a run: the previous call has finished
              const { tool, args } = TOOLS[op.sig];
              const span = h.tracer.startSpan(
                'execute_tool',
                {
                  attributes: {
                    [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
                    [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args,
                    [sc.ATTR_GEN_AI_TOOL_CALL_ID]: `c${callId++}`,
                  },
                },
                trace.setSpan(ROOT_CONTEXT, roots[op.run]),
              );
              if (op.neverEnds) continue; // pending for good: no outcome, no "last result"
              if (getToolLoopVerdict(span)?.level === 'critical') {
                span.end(); // a vetoed call (here only ping_pong can veto) is not recorded
                continue;
              }
              const key = `${op.run}|${op.sig}`;
              let result = RESULTS[op.result];
              if (last.get(key) === result) result = RESULTS[(op.result + 1) % RESULTS.length];
              last.set(key, result);
              open[op.run] = { span, result };
            }
            for (let run = 0; run < 3; run += 1) endOpen(run);
            const blocked = h.events.filter(
              (event) => event.level === 'critical' && PROGRESS_DETECTORS.has(event.detector),
            );
            expect(blocked.map((event) => `${event.detector} ${event.count} ${event.runId}`)).toEqual([]);
            expect(h.aborts).toEqual([]);
            await h.provider.shutdown();
          },
        ),
        params,
      );
      reportCount('progress (sequential)', params.numRuns, started);
    },
    fuzzTimeout(30_000),
  );

  it(
    'parallel calls in one run ending out of order, every result fresh: no no-progress critical, no abort',
    async () => {
      const params = fcParams(60, 10);
      await fc.assert(
        fc.asyncProperty(
          thresholds,
          fc.array(
            fc.record({
              start: fc.boolean(),
              sig: fc.nat({ max: TOOLS.length - 1 }),
              pick: fc.nat(),
              compaction: fc.boolean(),
            }),
            { minLength: 1, maxLength: 150, size: 'large' },
          ),
          async (loopDetection, steps) => {
            // OpenClaw's batch admission treats identical siblings admitted together as no progress
            // whatever they return, and a ping_pong veto extends the streak of its own arguments;
            // this property is about outcomes, so both are off here.
            const h = await setup({
              ...loopDetection,
              detectors: { ...(loopDetection.detectors as object), batchAdmission: false, vetoesExtendStreak: false },
            });
            const root = h.tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'parallel' } });
            const ctx = trace.setSpan(ROOT_CONTEXT, root);
            const open: Span[] = [];
            let fresh = 0;
            for (const step of steps) {
              if (step.compaction && step.pick % 7 === 0)
                h.tracer.startSpan('c', { attributes: { [sc.ATTR_COMPACTION_RETRY]: true } }, ctx).end();
              if (step.start || open.length === 0) {
                const { tool, args } = TOOLS[step.sig];
                open.push(
                  h.tracer.startSpan(
                    'execute_tool',
                    {
                      attributes: {
                        [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
                        [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args,
                        [sc.ATTR_GEN_AI_TOOL_CALL_ID]: `p${fresh}`,
                      },
                    },
                    ctx,
                  ),
                );
              } else {
                const [span] = open.splice(step.pick % open.length, 1);
                span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify(`fresh-${fresh++}`));
                span.end();
              }
            }
            const blocked = h.events.filter(
              (event) => event.level === 'critical' && PROGRESS_DETECTORS.has(event.detector),
            );
            expect(blocked).toEqual([]);
            expect(h.aborts).toEqual([]);
            await h.provider.shutdown();
          },
        ),
        params,
      );
    },
    fuzzTimeout(30_000),
  );
});

type Scenario = 'generic' | 'poll' | 'breaker';

describe('loops are always caught', () => {
  it(
    'N identical calls in one run are critical exactly at the spec threshold, whatever other runs do',
    async () => {
      const started = performance.now();
      const params = fcParams(60, 10);
      await fc.assert(
        fc.asyncProperty(
          fc.constantFrom<Scenario>('generic', 'poll', 'breaker'),
          fc.record({
            w: fc.integer({ min: 1, max: 6 }),
            c: fc.integer({ min: 1, max: 8 }),
            b: fc.integer({ min: 1, max: 12 }),
            slack: fc.nat({ max: 10 }),
            pingPong: fc.boolean(),
            pollTool: fc.boolean(),
          }),
          fc.array(fc.array(spanOp, { maxLength: 6 }), { minLength: 40, maxLength: 40 }),
          async (scenario, knobs, noise) => {
            // Blocked calls are not recorded here (vetoesExtendStreak off), so every critical
            // comes at exactly the threshold; vetoes that extend the streak have their own tests.
            const detectors =
              scenario === 'breaker'
                ? {
                    genericRepeat: false,
                    knownPollNoProgress: false,
                    pingPong: knobs.pingPong,
                    vetoesExtendStreak: false,
                  }
                : {
                    genericRepeat: true,
                    knownPollNoProgress: true,
                    pingPong: knobs.pingPong,
                    vetoesExtendStreak: false,
                  };
            const block = {
              enabled: true,
              warningThreshold: knobs.w,
              criticalThreshold: knobs.c,
              globalCircuitBreakerThreshold: knobs.b,
              detectors,
            };
            const resolved = resolveLoopDetectionConfig(block);
            const threshold =
              scenario === 'breaker' ? resolved.globalCircuitBreakerThreshold : resolved.criticalThreshold;
            const historySize = threshold + knobs.slack; // thresholds above the history window never fire
            const h = await setup({ ...block, historySize });
            const driver = new SpanDriver(h.tracer, h.advance, () => h.processor.forceFlush());
            const poll = scenario === 'poll' || (scenario === 'breaker' && knobs.pollTool);
            const target = poll
              ? { tool: 'process', args: '{"action":"poll","sessionId":"s"}' }
              : { tool: 'read', args: '{"path":"/same"}' };
            const expectedDetector =
              scenario === 'generic'
                ? 'generic_repeat'
                : scenario === 'poll'
                  ? 'known_poll_no_progress'
                  : 'global_circuit_breaker';
            const root = h.tracer.startSpan('invoke_agent', {
              attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'target-run' },
            });
            const ctx = trace.setSpan(ROOT_CONTEXT, root);

            const targetCriticals = () =>
              h.events.filter((event) => event.runId === 'target-run' && event.level === 'critical');
            for (let k = 1; k <= threshold + 2; k += 1) {
              for (const op of noise[(k - 1) % noise.length]) await driver.run(op); // other runs only
              const span = h.tracer.startSpan(
                'execute_tool',
                {
                  attributes: {
                    [sc.ATTR_GEN_AI_TOOL_NAME]: target.tool,
                    [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: target.args,
                  },
                },
                ctx,
              );
              const verdict = getToolLoopVerdict(span);
              if (k <= threshold) {
                // k - 1 identical completed calls precede this one: below the threshold.
                expect(verdict?.level, `call ${k} of threshold ${threshold}`).not.toBe('critical');
                expect(targetCriticals()).toEqual([]);
              } else {
                expect(verdict?.level, `call ${k}`).toBe('critical');
                expect(verdict?.detector).toBe(expectedDetector);
                expect(verdict?.count).toBe(threshold); // sticky: the blocked call is not recorded
              }
              span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, '"same"');
              span.end();
            }
            const criticals = targetCriticals();
            expect(criticals).toHaveLength(2);
            expect(criticals.every((event) => event.detector === expectedDetector && event.count === threshold)).toBe(
              true,
            );
            await h.provider.shutdown();
          },
        ),
        params,
      );
      reportCount('loops caught', params.numRuns, started);
    },
    fuzzTimeout(40_000),
  );
});
