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
  readonly harness: GuardHarness;
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
    return descendant ? position.get(descendant.spanContext().spanId) : undefined;
  };
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

/**
 * The acceptance criteria of one variant, with OpenClaw's default thresholds (warning 10,
 * critical 20): the first warning on the 11th identical call, the first critical on the 21st.
 */
export function expectVariant(variant: Variant, run: VariantRun): void {
  const { calls } = callIndex(run);
  if (variant === 'loop') {
    expect(eventCalls(run, 'warning')[0], 'first warning callback: call number').toBe(11);
    expect(eventCalls(run, 'critical')[0], 'first critical callback: call number').toBe(21);
    expect(exportedEventCalls(run, 'tool_loop.warning')[0], 'first exported tool_loop.warning: call number').toBe(11);
    expect(exportedEventCalls(run, 'tool_loop.blocked')[0], 'first exported tool_loop.blocked: call number').toBe(21);
    expect(run.body.executions, 'tool executions').toBeLessThanOrEqual(21);
    const stopped = run.outcome.error !== undefined || run.body.executions <= 20;
    expect(stopped, 'the run was aborted or the 21st call did not run').toBe(true);
    return;
  }
  expect(run.outcome.error, 'the run completed').toBeUndefined();
  expect(run.body.executions, 'tool executions').toBe(CALLS);
  expect(calls.length, 'exported tool spans').toBeGreaterThanOrEqual(CALLS);
  if (variant === 'healthy') {
    expect(run.harness.events.filter((event) => event.level === 'critical'), 'critical callbacks').toEqual([]);
    expect(exportedEventCalls(run, 'tool_loop.blocked'), 'exported tool_loop.blocked').toEqual([]);
    // Same arguments 10 times is a warning whatever the results: proof the calls were seen.
    expect(eventCalls(run, 'warning')[0], 'first warning callback: call number').toBe(11);
    return;
  }
  expect(run.harness.events, 'loop callbacks').toEqual([]);
  expect(loopEventsExported(run), 'exported tool_loop.* events').toEqual([]);
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

/**
 * One test per variant. A variant named in `gaps` fails today for the reason given (a gap the
 * adapter work closes): it runs as `it.fails`, so the suite turns red once it passes and the
 * entry must be removed.
 */
export function variantTests(gaps: Partial<Record<Variant, string>>, run: (variant: Variant) => Promise<VariantRun>): void {
  for (const variant of VARIANTS) {
    const gap = gaps[variant];
    const body = async (): Promise<void> => {
      const observed = await run(variant);
      recordObservation(expect.getState().currentTestName ?? variant, observed);
      expectVariant(variant, observed);
    };
    if (gap) it.fails(`${variant} (fails today: ${gap})`, body);
    else it(variant, body);
  }
}
