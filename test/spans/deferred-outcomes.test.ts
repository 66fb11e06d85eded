/**
 * Deferred result hashing and the reader's memos of recent hashes change no verdict. Real spans
 * from a real `BasicTracerProvider` go to two span guards at once — one that defers large
 * results and remembers recent calls and results (the processor's default, with a generous or a
 * tight budget) and one that hashes every call and result afresh as its span ends — and to the
 * public processor; every answer of the guards and every loop event must be the same.
 */
import type { ToolCallEnd } from '../../src/spans/adapters/adapter.js';
import { ROOT_CONTEXT, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  createDigester,
  resolveLoopDetectionConfig,
  type Digester,
  type LoopDetectionConfig,
} from '../../src/engine-entry.js';
import { ToolLoopSpanProcessor, type LoopAbortEvent, type LoopEvent } from '../../src/index.js';
import * as sc from '../../src/semconv.js';
import { parseJsonAttribute } from '../../src/spans/json-attribute.js';
import { DEFER_RESULTS_FROM, deferredToolSpanOutcome, hashToolSpanOutcome } from '../../src/spans/span-reading.js';
import { GuardRecorder, spanGuard } from '../helpers/guard-recorder.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

const FILLER = 'lorem ipsum dolor sit amet '.repeat(48);
const TOOLS = ['read', 'search', 'process', 'exec', 'write', 'message', 'tool_call'] as const;

function argsOf(tool: string, variant: number): unknown {
  // Variant 1 is long enough for the reader to remember the call by its raw arguments.
  const long = variant === 1 ? FILLER : undefined;
  if (tool === 'process') return { action: ['poll', 'log', 'list'][variant], sessionId: 's1', note: long };
  if (tool === 'message') return { action: 'send', to: `#c${variant}`, text: long ?? 'hi' };
  if (tool === 'tool_call') return { id: `inner${variant}`, note: long };
  return { path: `/src/f${variant}.ts`, content: long };
}

const shaped = (text: string, details: Record<string, unknown>, type = 'text') =>
  JSON.stringify({ content: [{ type, text }], details });

/**
 * Results from a small pool, so that results repeat: large and small, plain text and
 * OpenClaw-shaped, pairs whose raw texts differ only in what the projections ignore, and the
 * texts that must never be deferred (a loop veto, typed-error stamps, `\u` escapes).
 */
const RESULTS: readonly string[] = [
  `plain ${FILLER}`,
  `plain ${FILLER} changed`,
  'small result',
  shaped(FILLER, { status: 'ok' }),
  shaped(FILLER, { status: 'ok' }, 'other'),
  shaped(FILLER, { status: 'running', exitCode: 0, aggregated: 'out', extra: 1 }),
  shaped(FILLER, { status: 'running', exitCode: 0, aggregated: 'out', extra: 2 }),
  shaped(FILLER, { status: 'completed', exitCode: 1, aggregated: `failed ${FILLER}` }),
  shaped(FILLER, { ok: true, messageId: 'm1', deliveryId: 'd1' }),
  shaped(FILLER, { ok: true, messageId: 'm2', deliveryId: 'd2' }),
  shaped(`${FILLER} typed_code=E_STUCK`, {}),
  `{"content":[{"type":"text","text":"\\u0074yped_code=E_ESCAPED ${FILLER}"}]}`,
  shaped(FILLER, { status: 'blocked', deniedReason: 'tool-loop', reason: 'loop' }),
  shaped(FILLER, { changed: false }),
  `  ${JSON.stringify({ hits: [FILLER, FILLER.length] })}`,
  `[${JSON.stringify(FILLER)}]`,
];

interface Step {
  readonly run: number;
  readonly kind: 'call' | 'compaction';
  readonly tool: number;
  readonly args: number;
  readonly result: number;
  readonly error: boolean;
  /** Arguments set only before the span ends: judged at its end. */
  readonly late: boolean;
  /** A `traceToolCall`-like inner span of the same tool inside the call. */
  readonly inner: boolean;
}

/** Steps over a few tools and results of the pools (so that calls and results repeat, and loops form). */
const steps: fc.Arbitrary<Step[]> = fc
  .tuple(
    fc.shuffledSubarray([...TOOLS.keys()], { minLength: 1, maxLength: 3 }),
    fc.shuffledSubarray([...RESULTS.keys()], { minLength: 1, maxLength: 4 }),
  )
  .chain(([tools, results]) =>
    fc.array(
      fc.record({
        run: fc.constantFrom(0, 0, 0, 1),
        kind: fc.constantFrom<Step['kind']>('call', 'call', 'call', 'call', 'call', 'call', 'call', 'compaction'),
        tool: fc.constantFrom(...tools),
        args: fc.nat(1),
        result: fc.constantFrom(...results),
        error: fc.constantFrom(false, false, false, true),
        late: fc.constantFrom(false, false, true),
        inner: fc.constantFrom(false, false, false, true),
      }),
      { minLength: 1, maxLength: 40 },
    ),
  );

const OPT_IN = ['resultCycle', 'identicalCallBudget', 'similarOutcome', 'redundantCall'] as const;

const settings = fc.record({
  warning: fc.integer({ min: 2, max: 3 }),
  spread: fc.integer({ min: 1, max: 2 }),
  historySize: fc.constantFrom(4, 6, 10, 30),
  windowSize: fc.integer({ min: 2, max: 4 }),
  optIn: fc.subarray([...OPT_IN]),
  budget: fc.constantFrom(3_000, 12_000, 8 * 1024 * 1024),
});

function loopDetection(s: typeof settings extends fc.Arbitrary<infer T> ? T : never): LoopDetectionConfig {
  const detectors: Record<string, boolean> = {};
  for (const name of s.optIn) detectors[name] = true;
  return {
    enabled: true,
    warningThreshold: s.warning,
    criticalThreshold: s.warning + s.spread,
    globalCircuitBreakerThreshold: s.warning + s.spread + 2,
    historySize: s.historySize,
    typedErrorWarningThreshold: 2,
    typedErrorCriticalThreshold: 3,
    postCompactionGuard: { windowSize: s.windowSize },
    identicalCallBudget: 3,
    similarOutcomeThreshold: 3,
    redundantCallBudget: 2,
    detectors,
  };
}

function runStep(tracer: Tracer, roots: readonly Span[], s: Step): void {
  const parent = trace.setSpan(ROOT_CONTEXT, roots[s.run]);
  if (s.kind === 'compaction') {
    tracer.startSpan('compaction retry', { attributes: { [sc.ATTR_COMPACTION_RETRY]: true } }, parent).end();
    return;
  }
  const tool = TOOLS[s.tool];
  const args = JSON.stringify(argsOf(tool, s.args));
  const attributes: Record<string, string> = {
    [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
    [sc.ATTR_GEN_AI_TOOL_NAME]: tool,
  };
  if (!s.late) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = args;
  const span = tracer.startSpan(`execute_tool ${tool}`, { attributes }, parent);
  const result = RESULTS[s.result];
  if (s.inner) {
    const inner = tracer.startSpan(
      `execute_tool ${tool}`,
      { attributes: { ...attributes, [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: args } },
      trace.setSpan(parent, span),
    );
    inner.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, result);
    inner.end();
  }
  if (s.late) span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, args);
  if (s.error) span.setStatus({ code: SpanStatusCode.ERROR, message: result.slice(0, 40) });
  else span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, result);
  span.end();
}

/** What the public processor reported (see {@link reported}). */
const eventText = (event: LoopEvent | LoopAbortEvent) =>
  `${event.detector} ${'level' in event ? event.level : 'abort'} ${event.count} ${event.toolName} ${event.runId} ${event.message}`;

/** Fragments of result texts: what must keep a result from being deferred, and filler. */
const FRAGMENTS = [
  'typed_code=E_X',
  '"typed_code":"E_Y"',
  'tool-loop',
  'blocked',
  'deniedReason',
  'changed',
  FILLER,
  'é',
  'text',
];

/** A JSON text with some string characters written as `\u` escapes: the same value, other raw text. */
function escapeSome(json: string, every: number): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < json.length; i += 1) {
    const c = json[i];
    if (c === '"' && json[i - 1] !== '\\') inString = !inString;
    const escapable = inString && c !== '"' && c !== '\\' && json[i - 1] !== '\\' && /[a-z_]/.test(c);
    out += escapable && i % every === 0 ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c;
  }
  return out;
}

const detailsValue = fc.record(
  {
    status: fc.constantFrom('ok', 'blocked', 'running', 'completed', 'unchanged'),
    deniedReason: fc.constantFrom('tool-loop', 'other'),
    changed: fc.boolean(),
    exitCode: fc.constantFrom(0, 1),
    aggregated: fc.constantFrom('', 'out'),
    deliveryId: fc.string(),
  },
  { requiredKeys: [] },
);

const resultText = fc.oneof(
  { arbitrary: fc.constantFrom(...RESULTS), weight: 2 },
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 6 }).map((parts) => parts.join(' ')),
  fc
    .record({ text: fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 6 }), details: detailsValue })
    .map(({ text, details }) => shaped(text.join(' '), details)),
  fc.jsonValue().map((value) => JSON.stringify(value)),
);

describe('deferred result hashing', () => {
  const deferral = DEFER_RESULTS_FROM;

  it('defers only results whose hash, computed later, is the eager hash and nothing more (property)', () => {
    const tools = [...TOOLS, 'sessions_send', 'update_plan'];
    let deferred = 0;
    fc.assert(
      fc.property(
        fc.constantFrom(...tools),
        fc.nat(2),
        resultText,
        fc.constantFrom(0, 2, 3, 5),
        (tool, variant, text, every) => {
          const raw = every === 0 ? text : escapeSome(text, every);
          const rawArguments = JSON.stringify(argsOf(tool, variant));
          const end = { result: raw, hasResult: true, isError: false };
          const params = parseJsonAttribute(rawArguments);
          const later = deferredToolSpanOutcome(digester, { toolName: tool, params, rawArguments }, end, {
            deferFrom: 1,
          });
          if (!later?.keep()) return;
          deferred += 1;
          const eager = hashToolSpanOutcome(digester, { toolName: tool, params }, end);
          const { similarity, ...facts } = eager;
          expect(typeof similarity).toBe('function');
          // The hash, and for a write its target: what the deferred outcome knows before it is hashed.
          const known = { outcomeKind: later.outcomeKind, mutationTargetHash: later.mutationTargetHash };
          expect(facts).toEqual(
            later.mutationTargetHash === undefined
              ? { resultHash: facts.resultHash }
              : { resultHash: facts.resultHash, ...known },
          );
          expect(typeof facts.resultHash).toBe('string');
          const { similarity: _, ...resolved } = later.resolve();
          expect(resolved).toEqual(facts);
        },
      ),
      { numRuns: 3000 },
    );
    expect(deferred).toBeGreaterThan(300);
  });

  it('hashes small results, errors and pre-computed hashes as their spans end', () => {
    const end = { result: RESULTS[0], hasResult: true, isError: false };
    const deferRead = (ended: ToolCallEnd, deferFrom = deferral) =>
      deferredToolSpanOutcome(digester, { toolName: 'read', params: {}, rawArguments: '{}' }, ended, { deferFrom });
    expect(deferRead(end)?.keep()).toBe(true);
    const stamped = { ...end, result: `${FILLER} typed_code=E_X` };
    expect(deferRead(stamped)?.keep()).toBe(false);
    expect(deferRead({ ...end, result: 'small result' })).toBeUndefined();
    expect(deferRead({ ...end, isError: true })).toBeUndefined();
    expect(deferRead({ ...end, resultHash: 'h' })).toBeUndefined();
    expect(deferRead({ ...end, result: { text: FILLER } })).toBeUndefined();
    expect(deferRead(end, Number.POSITIVE_INFINITY)).toBeUndefined();
  });

  it('answers every span exactly as hashing each result at its end does (property)', async () => {
    let withVerdicts = 0;
    await fc.assert(
      fc.asyncProperty(settings, steps, async (s, scenario) => {
        const config = loopDetection(s);
        const resolved = resolveLoopDetectionConfig(config);
        let now = 1_000;
        const clock = () => now;
        const recorder = new GuardRecorder([
          spanGuard(digester, resolved, clock, DEFER_RESULTS_FROM, s.budget),
          spanGuard(digester, resolved, clock, Number.POSITIVE_INFINITY, undefined, false),
        ]);
        const events: string[] = [];
        const processor = await ToolLoopSpanProcessor.create({
          config: { tools: { loopDetection: config } },
          clock,
          onLoopEvent: (event) => events.push(eventText(event)),
          onAbort: (event) => events.push(eventText(event)),
        });
        // The recorder first: the processor's annotations never reach the guards' readings.
        const provider = new BasicTracerProvider({ spanProcessors: [recorder, processor] });
        const tracer = provider.getTracer('deferred-outcomes');
        const roots = [0, 1].map((r) =>
          tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: `run-${r}` } }, ROOT_CONTEXT),
        );
        for (const each of scenario) {
          now += 7;
          runStep(tracer, roots, each);
        }
        const [lazyRecords, eagerRecords] = recorder.records(['run-0', 'run-1']);
        for (const root of roots) root.end();
        expect(recorder.answers[0]).toEqual(recorder.answers[1]);
        expect(lazyRecords).toEqual(eagerRecords);
        // The public processor defers by default: it reports what hashing every result at its end surfaces.
        expect(recorder.reports[1]).toEqual(recorder.reports[0]);
        expect(events).toEqual(recorder.reports[1]);
        if (events.length > 0) withVerdicts += 1;
        await provider.shutdown();
      }),
      { numRuns: 300 },
    );
    // Loops do form: the property compares verdicts, not only quiet runs.
    expect(withVerdicts).toBeGreaterThan(60);
  }, 120_000);
});
