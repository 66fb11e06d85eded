/**
 * The adapters' declared triggers let the processor skip asking them about plain spans. These
 * tests check that the shortcut never changes a reading: a span the triggers rule out is one
 * every built-in adapter ignores, at start and at end.
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_ADAPTERS, type ToolSpanAdapter } from '../../src/spans/adapters/index.js';
import { SpanTriggers } from '../../src/spans/span-triggers.js';
import type { SpanView } from '../../src/spans/span-view.js';
import { matchSpanEnd, NOTHING_TO_READ, readScopeHint, readSpanStart } from '../../src/spans/span-reading.js';
import * as sc from '../../src/semconv.js';
import { createOtelHarness, recordDiag, resetOtelGlobals, startRunSpan, toolCall } from '../helpers/otel-harness.js';

afterAll(resetOtelGlobals);

/** Every attribute key and span name the project knows, plus a few an application might use. */
const SEMCONV_STRINGS: string[] = (Object.values(sc) as unknown[]).filter(
  (value): value is string => typeof value === 'string',
);
const KEYS = [
  ...SEMCONV_STRINGS.filter((value) => value.includes('.')),
  'http.route',
  'db.system',
  'tool.name',
  'session.id',
];
const NAMES = [...SEMCONV_STRINGS, 'GET /api', 'execute_tool read', 'ai.generateText', 'read.tool', ''];
const VALUES = fc.oneof(
  fc.constantFrom(...SEMCONV_STRINGS, 'TOOL', 'tool', 'read', '{"path":"/a"}', ' ', ''),
  fc.integer(),
  fc.boolean(),
);

const spanView = fc.record({
  name: fc.constantFrom(...NAMES),
  attributes: fc.dictionary(fc.constantFrom(...KEYS), VALUES, { maxKeys: 6 }),
});

describe('SpanTriggers over the built-in adapters', () => {
  const triggers = SpanTriggers.of(DEFAULT_ADAPTERS);

  it('a span they rule out at start gets nothing from any adapter, and one ruled out at end matches none', () => {
    let ruledOut = 0;
    fc.assert(
      fc.property(spanView, (span: SpanView) => {
        if (!triggers.mayConcern(span)) {
          ruledOut += 1;
          expect(readSpanStart(DEFAULT_ADAPTERS, span)).toBe(NOTHING_TO_READ);
          expect(matchSpanEnd(DEFAULT_ADAPTERS, span)).toBeUndefined();
        }
      }),
      { numRuns: 5000 },
    );
    // The property is not vacuous: plain spans are generated.
    expect(ruledOut).toBeGreaterThan(100);
  });

  it('let through the spans each convention cares about', () => {
    const view = (name: string, attributes: Record<string, unknown> = {}): SpanView => ({ name, attributes });
    expect(triggers.mayConcern(view('GET /api', { 'http.route': '/api' }))).toBe(false);
    expect(triggers.mayConcern(view('execute_tool read', { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' }))).toBe(true);
    expect(triggers.mayConcern(view('work', { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'r' }))).toBe(true);
    expect(triggers.mayConcern(view('work', { [sc.ATTR_COMPACTION_RETRY]: true }))).toBe(true);
    expect(triggers.mayConcern(view(sc.OPENCLAW_SPAN_RUN))).toBe(true);
    expect(triggers.mayConcern(view(sc.AI_SDK_TOOL_CALL))).toBe(true);
    expect(triggers.mayConcern(view('chat', { [sc.ATTR_GEN_AI_CONVERSATION_COMPACTED]: true }))).toBe(true);
    // The conventions whose attributes arrive after the start (matchEnd adapters).
    expect(triggers.mayConcern(view('read.tool', { [sc.ATTR_TRACELOOP_SPAN_KIND]: 'tool' }))).toBe(true);
    expect(triggers.mayConcern(view('x', { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL' }))).toBe(true);
    // One key set serves both phases: a span let through at its end that no matchEnd wants reads as nothing.
    expect(matchSpanEnd(DEFAULT_ADAPTERS, view(sc.OPENCLAW_SPAN_RUN))).toBeUndefined();
  });
});

describe('SpanTriggers.adaptersFor', () => {
  const noTriggers: ToolSpanAdapter = {
    name: 'no-triggers',
    matchStart: (span) =>
      typeof span.attributes['tool.name'] === 'string' ? { toolName: span.attributes['tool.name'] } : undefined,
    readEnd: () => ({ hasResult: false, isError: false }),
    scopeHint: (span) =>
      typeof span.attributes['session.id'] === 'string' ? { runId: span.attributes['session.id'] } : undefined,
  };

  it('asking only the adapters it names reads every span as asking all of them does', () => {
    for (const adapters of [DEFAULT_ADAPTERS, [noTriggers, ...DEFAULT_ADAPTERS], [...DEFAULT_ADAPTERS, noTriggers]]) {
      const triggers = SpanTriggers.of(adapters);
      let skipped = 0;
      fc.assert(
        fc.property(spanView, (span: SpanView) => {
          const only = triggers.adaptersFor(span);
          if (adapters.some((_, i) => (only & (1 << i)) === 0)) skipped += 1;
          expect(readSpanStart(adapters, span, only)).toEqual(readSpanStart(adapters, span));
          expect(readSpanStart(adapters, span, only).adapter).toBe(readSpanStart(adapters, span).adapter);
          expect(readScopeHint(adapters, span, only)).toEqual(readScopeHint(adapters, span));
          expect(matchSpanEnd(adapters, span, only)).toEqual(matchSpanEnd(adapters, span));
        }),
        { numRuns: 3000 },
      );
      // Not vacuous: most generated spans leave adapters out.
      expect(skipped).toBeGreaterThan(1000);
    }
  });

  it('names the one convention of a GenAI tool span, and every adapter that declares no triggers', () => {
    const span: SpanView = {
      name: 'execute_tool read',
      attributes: { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool', [sc.ATTR_GEN_AI_TOOL_NAME]: 'read' },
    };
    const genAi = DEFAULT_ADAPTERS.findIndex((adapter) => adapter.name === 'gen-ai');
    expect(SpanTriggers.of(DEFAULT_ADAPTERS).adaptersFor(span)).toBe(1 << genAi);
    expect(SpanTriggers.of([noTriggers, ...DEFAULT_ADAPTERS]).adaptersFor(span)).toBe(1 | (1 << (genAi + 1)));
  });
});

describe('SpanTriggers over custom adapters', () => {
  const custom = (name: string, triggers?: unknown): ToolSpanAdapter =>
    ({
      name,
      triggers,
      matchStart: (span: SpanView) =>
        span.attributes['my.tool'] === undefined
          ? undefined
          : { toolName: span.attributes['my.tool'] as string, arguments: span.attributes['my.args'] },
      readEnd: () => ({ hasResult: false, isError: false }),
    }) as ToolSpanAdapter;

  it('an adapter that declares no triggers sees every span', () => {
    const triggers = SpanTriggers.of([...DEFAULT_ADAPTERS, custom('mine')]);
    expect(triggers.mayConcern({ name: 'GET /api', attributes: {} })).toBe(true);
  });

  it('keys beyond the unrolled slots are checked too', () => {
    const keys = Array.from({ length: 14 }, (_, i) => `k.${i}`);
    const triggers = SpanTriggers.of([custom('many', { attributes: keys })]);
    for (const key of keys) expect(triggers.mayConcern({ name: 'x', attributes: { [key]: 1 } })).toBe(true);
    expect(triggers.mayConcern({ name: 'x', attributes: { 'k.14': 1 } })).toBe(false);
  });

  it('span names beyond the compared slots are checked too, and an unused slot matches no name', () => {
    const names = Array.from({ length: 6 }, (_, i) => `tool.run.${i}`);
    const many = SpanTriggers.of([custom('many', { attributes: [], spanNames: names })]);
    for (const name of names) {
      expect(many.mayConcern({ name, attributes: {} })).toBe(true);
      // A name built at run time (not the declared string object) matches as well.
      expect(many.mayConcern({ name: ['tool', 'run', name.slice(-1)].join('.'), attributes: {} })).toBe(true);
    }
    expect(many.mayConcern({ name: 'tool.run.6', attributes: {} })).toBe(false);
    const one = SpanTriggers.of([custom('one', { attributes: [], spanNames: ['my.tool.call'] })]);
    for (const name of ['', 'undefined', 'my.tool']) expect(one.mayConcern({ name, attributes: {} }), name).toBe(false);
  });

  it('keys and names in and beyond the slots name the adapters that declare them, a key present with no value too', () => {
    const keys = Array.from({ length: 20 }, (_, i) => `k.${i}`);
    const names = Array.from({ length: 6 }, (_, i) => `tool.run.${i}`);
    const adapters = [
      custom('many', { attributes: keys, spanNames: names }),
      custom('other', { attributes: ['k.1', 'k.19'], spanNames: ['tool.run.5'] }),
    ];
    const triggers = SpanTriggers.of(adapters);
    const shared = new Set(['k.1', 'k.19']);
    for (const key of keys) {
      const expected = shared.has(key) ? 0b11 : 0b01;
      expect(triggers.adaptersFor({ name: 'x', attributes: { [key]: 1 } }), key).toBe(expected);
      expect(triggers.adaptersFor({ name: 'x', attributes: { [key]: undefined } }), key).toBe(expected);
    }
    for (const name of names)
      expect(triggers.adaptersFor({ name, attributes: {} }), name).toBe(name === 'tool.run.5' ? 0b11 : 0b01);
    expect(triggers.adaptersFor({ name: 'x', attributes: { 'k.20': 1, [sc.ATTR_COMPACTION_RETRY]: true } })).toBe(0);
    expect(triggers.adaptersFor({ name: 'tool.run.0', attributes: { 'k.19': 1 } })).toBe(0b11);
  });

  it('through the processor: a custom adapter with triggers judges its spans; malformed triggers are warned about and turn the shortcut off', async () => {
    const diagLog = recordDiag();
    for (const triggers of [{ attributes: ['my.tool'] }, { attributes: 'my.tool' }]) {
      const h = await createOtelHarness({
        config: {
          tools: {
            loopDetection: {
              enabled: true,
              warningThreshold: 2,
              criticalThreshold: 3,
              globalCircuitBreakerThreshold: 4,
            },
          },
        },
        adapters: [custom('mine', triggers)],
      });
      const root = startRunSpan(h.tracer, { runId: `run-${typeof triggers.attributes}` });
      const ctx = trace.setSpan(ROOT_CONTEXT, root);
      for (let i = 0; i < 3; i += 1)
        h.tracer.startSpan('my call', { attributes: { 'my.tool': 'read', 'my.args': '{"path":"/a"}' } }, ctx).end();
      root.end();
      expect(h.loopEvents.map((event) => `${event.detector}:${event.level}`)).toEqual(['generic_repeat:warning']);
      await h.shutdown();
    }
    expect(diagLog.at('warn').filter((line) => line.includes('adapter triggers must be'))).toHaveLength(1);
    // The built-in gen-ai convention is not in play with a custom adapter list.
    const h = await createOtelHarness({ adapters: [custom('mine', { attributes: ['my.tool'] })] });
    const root = startRunSpan(h.tracer, { runId: 'run-builtin-off' });
    for (let i = 0; i < 12; i += 1) toolCall(h.tracer, { tool: 'read', args: '{}', parent: root });
    root.end();
    expect(h.loopEvents).toEqual([]);
  });
});
