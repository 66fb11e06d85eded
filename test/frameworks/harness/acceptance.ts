import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { expect, it } from 'vitest';
import type { LoopEvent } from 'tool-loop-guard';
import type { GuardHarness } from './guard.js';
import { appendProbeReport } from './lifecycle-report.js';
import { byStart, CALLS, VARIANTS, type ToolBody, type Variant } from './scenario.js';

/** How one agent run ended. */
export interface RunOutcome {
  /** What the framework call rejected with, if it did. */
  readonly error?: unknown;
}

/** Runs `agent` and captures its rejection instead of throwing. */
export async function settle(agent: () => Promise<unknown>): Promise<RunOutcome> {
  try {
    await agent();
    return {};
  } catch (error) {
    return { error };
  }
}

export interface VariantRun {
  readonly harness: Pick<GuardHarness, 'events' | 'exported'>;
  readonly body: ToolBody;
  readonly outcome: RunOutcome;
  /** Which exported spans stand for one tool call (the framework's own tool span). */
  readonly isCallSpan: (span: ReadableSpan) => boolean;
}

const LOOP_EVENT_PREFIX = 'tool_loop.';

/** The tool calls in start order, and for any span id the 1-based number of the call it belongs to. */
function callIndex(run: VariantRun): { calls: ReadableSpan[]; numberOf: (spanId: string) => number | undefined } {
  const spans = run.harness.exported();
  const calls = byStart(spans.filter(run.isCallSpan));
  const bySpanId = new Map(spans.map((span) => [span.spanContext().spanId, span]));
  const position = new Map(calls.map((span, index) => [span.spanContext().spanId, index + 1]));
  const numberOf = (spanId: string): number | undefined => {
    // An event may sit on a helper span nested inside the call's span, or on an ancestor of it.
    for (let span = bySpanId.get(spanId); span; span = bySpanId.get(span.parentSpanContext?.spanId ?? '')) {
      const found = position.get(span.spanContext().spanId);
      if (found !== undefined) return found;
    }
    const descendant = calls.find((call) => isAncestor(bySpanId, spanId, call));
    if (descendant) return position.get(descendant.spanContext().spanId);
    return siblingCalls.get(spanId);
  };
  // OpenInference does not make its tool span active: a span started in the tool body is the
  // call span's sibling, not its child. Sequential calls: the k-th such span is in the k-th call.
  const related = (span: ReadableSpan): boolean =>
    position.has(span.spanContext().spanId) || calls.some((call) => isAncestor(bySpanId, call.spanContext().spanId, span) || isAncestor(bySpanId, span.spanContext().spanId, call));
  const siblings = byStart(spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'execute_tool' && !related(span)));
  const siblingCalls = new Map(siblings.length === calls.length ? siblings.map((span, index) => [span.spanContext().spanId, index + 1]) : []);
  return { calls, numberOf };
}

function isAncestor(bySpanId: Map<string, ReadableSpan>, ancestorId: string, span: ReadableSpan): boolean {
  for (let parent = span.parentSpanContext?.spanId; parent; parent = bySpanId.get(parent)?.parentSpanContext?.spanId) {
    if (parent === ancestorId) return true;
  }
  return false;
}

/** Call numbers (1-based) of the callbacks' events at `level`. */
function eventCalls(run: VariantRun, level: LoopEvent['level']): (number | undefined)[] {
  const { numberOf } = callIndex(run);
  return run.harness.events.filter((event) => event.level === level).map((event) => numberOf(event.spanId));
}

/** Call numbers (1-based) of the exported spans carrying the span event `name`. */
function exportedEventCalls(run: VariantRun, name: string): (number | undefined)[] {
  const { numberOf } = callIndex(run);
  return run.harness
    .exported()
    .filter((span) => span.events.some((event) => event.name === name))
    .map((span) => numberOf(span.spanContext().spanId));
}

function loopEventsExported(run: VariantRun): string[] {
  return run.harness.exported().flatMap((span) => span.events.filter((event) => event.name.startsWith(LOOP_EVENT_PREFIX)).map((event) => `${span.name}: ${event.name}`));
}

/** The named checks of the acceptance criteria: a known gap names the ones that fail today. */
export type Check =
  | 'warned-at-11'
  | 'critical-at-21'
  | 'exported-events'
  | 'stopped'
  | 'completed'
  | 'no-critical'
  | 'silent'
  | 'counted-once'
  | 'blocked-not-run';

const CHECKS_OF: Record<Variant, readonly Check[]> = {
  loop: ['warned-at-11', 'critical-at-21', 'exported-events', 'stopped'],
  healthy: ['completed', 'no-critical', 'warned-at-11'],
  clean: ['completed', 'silent'],
};

/**
 * One check, with OpenClaw's default thresholds (warning 10, critical 20): the first warning
 * comes on the 11th identical call, the first critical on the 21st.
 */
function runCheck(check: Check, run: VariantRun): void {
  switch (check) {
    case 'warned-at-11':
      // For healthy runs too: the same arguments 10 times warn whatever the results, the proof the calls were seen.
      expect(eventCalls(run, 'warning')[0], 'first warning callback: call number').toBe(11);
      return;
    case 'critical-at-21':
      expect(eventCalls(run, 'critical')[0], 'first critical callback: call number').toBe(21);
      return;
    case 'exported-events':
      expect(exportedEventCalls(run, 'tool_loop.warning')[0], 'first exported tool_loop.warning: call number').toBe(11);
      expect(exportedEventCalls(run, 'tool_loop.blocked')[0], 'first exported tool_loop.blocked: call number').toBe(21);
      return;
    case 'stopped':
      expect(run.body.executions, 'tool executions').toBeLessThanOrEqual(21);
      expect(run.outcome.error !== undefined || run.body.executions <= 20, 'the run was aborted or the 21st call did not run').toBe(true);
      return;
    case 'completed':
      expect(run.outcome.error, 'the run completed').toBeUndefined();
      expect(run.body.executions, 'tool executions').toBe(CALLS);
      expect(callIndex(run).calls.length, 'exported tool spans').toBeGreaterThanOrEqual(CALLS);
      return;
    case 'no-critical':
      expect(run.harness.events.filter((event) => event.level === 'critical'), 'critical callbacks').toEqual([]);
      expect(exportedEventCalls(run, 'tool_loop.blocked'), 'exported tool_loop.blocked').toEqual([]);
      return;
    case 'silent':
      expect(run.harness.events, 'loop callbacks').toEqual([]);
      expect(loopEventsExported(run), 'exported tool_loop.* events').toEqual([]);
      return;
    case 'counted-once': {
      // Every call from the 21st on is critical once; inside traceRun the run ends at the second
      // (OpenClaw's one recovery turn), so the calls may stop before 30.
      const made = callIndex(run).calls.length;
      expect(made, 'tool calls made').toBeGreaterThanOrEqual(run.outcome.error === undefined ? CALLS : 22);
      expect(eventCalls(run, 'warning')[0], 'first warning callback: call number').toBe(11);
      expect(eventCalls(run, 'critical'), 'critical callbacks: call numbers').toEqual(Array.from({ length: made - 20 }, (_, index) => 21 + index));
      expect(run.harness.events.filter((event) => event.detector === 'ping_pong'), 'ping_pong callbacks').toEqual([]);
      return;
    }
    case 'blocked-not-run':
      expect(
        run.outcome.error === undefined || (run.outcome.error instanceof Error && run.outcome.error.name === 'ToolLoopBlockedError'),
        'the run completed, or ended on its second critical (OpenClaw\'s one recovery turn)',
      ).toBe(true);
      expect(run.body.executions, 'tool executions (the critical calls blocked)').toBe(20);
  }
}

function describeOutcome(outcome: RunOutcome): string {
  if (outcome.error === undefined) return 'completed';
  return outcome.error instanceof Error ? `${outcome.error.name}: ${outcome.error.message.slice(0, 80)}` : String(outcome.error);
}

/** One line per run under .probe/ (what FINDINGS.md reports as "observed"). */
function recordObservation(testName: string, run: VariantRun): void {
  const { numberOf } = callIndex(run);
  const callbacks = run.harness.events.map((event) => `${event.level} ${event.detector} ${event.count} @${numberOf(event.spanId) ?? '?'}`);
  const firstOf = (name: string): string => String(exportedEventCalls(run, name)[0] ?? '-');
  const line = [testName, String(run.body.executions), describeOutcome(run.outcome), firstOf('tool_loop.warning'), firstOf('tool_loop.blocked'), callbacks.slice(0, 4).join('; ') + (callbacks.length > 4 ? `; ... (${callbacks.length})` : '')];
  appendProbeReport('acceptance-observed.md', `| ${line.map((cell) => cell.replace(/\|/g, '\\|')).join(' | ')} |\n`);
}

/** A gap of today's adapters: why a variant fails, and which of its checks fail because of it. */
export interface KnownGap {
  readonly reason: string;
  readonly failing: readonly Check[];
}

// The two tests of a gap share one run; hooks between them reset exporters and shut providers down.
function snapshot(run: VariantRun): VariantRun {
  const events = [...run.harness.events];
  const exported = [...run.harness.exported()];
  return { ...run, harness: { events, exported: () => exported } };
}

function throws(check: () => void): boolean {
  try {
    check();
    return false;
  } catch {
    return true;
  }
}

/**
 * The tests of one run: `it` when no gap is known; with a known gap, `it.fails` (the full
 * criteria, which the adapter work flips to `it`) plus a test that today every other check
 * holds and exactly the gap's checks fail, so a failure for any other reason is not hidden by
 * `it.fails`. Both share the one run.
 */
function gapAwareTests(title: string, checks: readonly Check[], gap: KnownGap | undefined, run: () => Promise<VariantRun>): void {
  let observed: Promise<VariantRun> | undefined;
  const once = (): Promise<VariantRun> => {
    observed ??= run().then((result) => {
      recordObservation(`${expect.getState().currentTestName ?? title}`, result);
      return snapshot(result);
    });
    return observed;
  };
  const all = async (): Promise<void> => {
    const result = await once();
    for (const check of checks) runCheck(check, result);
  };
  if (!gap) {
    it(title, all);
    return;
  }
  it.fails(`${title} (fails today: ${gap.reason})`, all);
  it(`${title}: today exactly [${gap.failing.join(', ')}] fail`, async () => {
    const result = await once();
    for (const check of checks) {
      if (gap.failing.includes(check)) expect(throws(() => runCheck(check, result)), `${check} fails today`).toBe(true);
      else runCheck(check, result);
    }
  });
}

/** The loop, healthy and clean agents of the acceptance criteria, one test each (see {@link gapAwareTests}). */
export function variantTests(gaps: Partial<Record<Variant, KnownGap>>, run: (variant: Variant) => Promise<VariantRun>): void {
  for (const variant of VARIANTS) gapAwareTests(variant, CHECKS_OF[variant], gaps[variant], () => run(variant));
}

/**
 * A loop of 30 identical calls where a guarded helper span (`traceToolCall`) runs inside the
 * framework's own tool span, with `abortOnCritical` off so the model keeps calling: each call
 * is judged once — warning on call 11, exactly one critical on each call from the 21st, no
 * `ping_pong` — and the blocked calls do not run. Inside `traceRun` the blocked call 21 is the
 * run's one recovery turn and call 22 ends the run (`ToolLoopBlockedError`), as in OpenClaw;
 * outside, calls 21-30 are each blocked.
 */
export function nestedToolSpanTest(gap: KnownGap | undefined, run: () => Promise<VariantRun>): void {
  gapAwareTests('nested tool spans: one call, counted once', ['counted-once', 'blocked-not-run'], gap, run);
}

/**
 * A loop of 30 identical calls through a framework tool wrapper (`guardAiSdkTools`,
 * `guardLangChainTools`, `guardMastraTools`), `abortOnCritical` off so the model keeps calling:
 * counted once per call, and the critical calls return the blocked result instead of running
 * (20 executions; inside `traceRun` the run ends on the second, see {@link nestedToolSpanTest}).
 */
export function blockingWrapperTest(run: () => Promise<VariantRun>): void {
  gapAwareTests('blocking wrapper: critical calls blocked before they run', ['counted-once', 'blocked-not-run'], undefined, run);
}
