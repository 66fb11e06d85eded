/**
 * fast-check arbitraries and a driver for random span-operation sequences run through a real
 * `BasicTracerProvider` and the processor: starts, ends, ends out of order, double ends,
 * never-ended spans, parallel tool calls in one run, compaction marks, remote parents, and
 * random attribute types and values (strings, numbers incl. NaN/±Infinity, booleans, arrays,
 * invalid JSON in `gen_ai.tool.call.arguments` / `result`, huge and empty strings).
 */
import {
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  trace,
  type AttributeValue,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import fc from 'fast-check';
import * as sc from '../../src/semconv.js';

/** A big string, built once (the 10 MB cases have their own named tests). */
const BIG = 'x'.repeat(256 * 1024);
const DEEP_JSON = '['.repeat(5000) + ']'.repeat(5000);
const TOOL_NAME_10K = 't'.repeat(10 * 1024);

const stringValue = fc.oneof(
  { weight: 1, arbitrary: fc.constantFrom(BIG, JSON.stringify(BIG), DEEP_JSON) },
  {
    weight: 30,
    arbitrary: fc.constantFrom(
      '',
      '   ',
      '{',
      '[1,',
      'nul',
      '"unterminated',
      '{"a":1}',
      '{"path":"/same"}',
      '{"action":"poll","sessionId":"s"}',
      '"just a string"',
      '123',
      'true',
      'null',
      '{"content":[{"type":"text","text":"same"}],"details":{"status":"running"}}',
      '{"content":[{"type":"text","text":"x"}],"details":{"status":"blocked","deniedReason":"tool-loop"}}',
      '\ud800lone surrogate',
    ),
  },
  { weight: 10, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 10, arbitrary: fc.json({ maxDepth: 3 }) },
);

const numberValue = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.NaN, Infinity, -Infinity, -0, Number.MAX_SAFE_INTEGER),
);

/** Any OTel attribute value, including homogeneous arrays with null holes. */
export const attributeValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  { weight: 6, arbitrary: stringValue },
  { weight: 2, arbitrary: numberValue },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.array(fc.option(fc.string({ maxLength: 8 }), { nil: null }), { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(numberValue, { maxLength: 4 }) },
  { weight: 1, arbitrary: fc.array(fc.boolean(), { maxLength: 4 }) },
);

/** Tool names: a small set so repeats happen, plus blank, huge and non-string ones. */
export const toolNameValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.constantFrom('read', 'write', 'exec', 'process', 'command_status', 'message', 'update_plan'),
  },
  { weight: 1, arbitrary: fc.constantFrom('', '   ', TOOL_NAME_10K, 'Unknown Tool') },
  { weight: 1, arbitrary: fc.oneof(numberValue, fc.boolean(), fc.constant(['read'] as string[])) },
);

const RELEVANT_KEYS = [
  sc.ATTR_GEN_AI_OPERATION_NAME,
  sc.ATTR_GEN_AI_TOOL_NAME,
  sc.ATTR_GEN_AI_TOOL_CALL_ID,
  sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  sc.ATTR_GEN_AI_TOOL_CALL_RESULT,
  sc.ATTR_GEN_AI_AGENT_ID,
  sc.ATTR_TOOL_LOOP_ARGS_HASH,
  sc.ATTR_TOOL_LOOP_RESULT_HASH,
  sc.ATTR_TOOL_LOOP_POLL,
  sc.ATTR_TOOL_LOOP_UNKNOWN_TOOL,
  sc.ATTR_TOOL_LOOP_RUN_ID,
  sc.ATTR_COMPACTION_RETRY,
  'unrelated.key',
] as const;

const attrKey = fc.constantFrom(...RELEVANT_KEYS);
const runIdValue: fc.Arbitrary<AttributeValue> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('run-a', 'run-b', 'run-c', 'run-d', ' run-a ') },
  { weight: 1, arbitrary: fc.constantFrom('', '  ', 7, true) },
);

/** Random extra attributes for a span. */
const extraAttributes: fc.Arbitrary<Attributes> = fc.dictionary(attrKey, attributeValue, { maxKeys: 4 });

/** A parent reference: an index into the spans started so far, `-1` = root, `-2` = remote parent. */
const parentRef = fc.integer({ min: -2, max: 40 });
const target = fc.nat({ max: 60 });

export type SpanOp =
  | { kind: 'startRun'; parent: number; runId?: AttributeValue; agentId?: AttributeValue; attrs: Attributes }
  | {
      kind: 'startTool';
      parent: number;
      tool: AttributeValue;
      args?: AttributeValue;
      callId?: AttributeValue;
      runId?: AttributeValue;
      attrs: Attributes;
    }
  | { kind: 'call'; parent: number; tool: string; args: string; result: string }
  | { kind: 'setAttr'; target: number; key: string; value: AttributeValue }
  | { kind: 'result'; target: number; value: AttributeValue }
  | { kind: 'error'; target: number; message?: string; exception?: string }
  | { kind: 'end'; target: number }
  | { kind: 'compaction'; parent: number; runId?: AttributeValue }
  | { kind: 'tick'; ms: number }
  | { kind: 'flush' };

export const spanOp: fc.Arbitrary<SpanOp> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record(
      {
        kind: fc.constant('startRun' as const),
        parent: parentRef,
        runId: runIdValue,
        agentId: fc.constantFrom('agent-1', 'agent-2', ''),
        attrs: extraAttributes,
      },
      { requiredKeys: ['kind', 'parent', 'attrs'] },
    ),
  },
  {
    weight: 6,
    arbitrary: fc.record(
      {
        kind: fc.constant('startTool' as const),
        parent: parentRef,
        tool: toolNameValue,
        args: fc.oneof(
          { weight: 3, arbitrary: fc.constantFrom('{"path":"/same"}', '{"action":"poll","sessionId":"s"}', '{"n":1}') },
          { weight: 2, arbitrary: attributeValue },
        ),
        callId: fc.oneof(fc.constantFrom('c1', 'c2', 'c3'), fc.string({ maxLength: 4 })),
        runId: runIdValue,
        attrs: extraAttributes,
      },
      { requiredKeys: ['kind', 'parent', 'tool', 'attrs'] },
    ),
  },
  {
    // A complete call (start, result, end) from small sets, so runs repeat themselves and
    // detection, blocking and the post-compaction guard are actually reached.
    weight: 14,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      parent: fc.integer({ min: 0, max: 3 }),
      tool: fc.constantFrom('read', 'process', 'write'),
      args: fc.constantFrom('{"path":"/same"}', '{"action":"poll","sessionId":"s"}'),
      result: fc.constantFrom('"same"', '"same"', '"same"', '"same"', '"other"'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('setAttr' as const), target, key: attrKey, value: attributeValue }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('result' as const),
      target,
      value: fc.oneof(
        { weight: 3, arbitrary: fc.constantFrom('"same"', '{"content":[{"type":"text","text":"same"}]}', '"other"') },
        { weight: 2, arbitrary: attributeValue },
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant('error' as const),
        target,
        message: fc.constantFrom('Unknown tool: ghost', 'Tool exec not found', 'boom', ''),
        exception: fc.constantFrom('Tool x is not available', 'kaput'),
      },
      { requiredKeys: ['kind', 'target'] },
    ),
  },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('end' as const), target }) },
  {
    weight: 1,
    arbitrary: fc.record(
      { kind: fc.constant('compaction' as const), parent: parentRef, runId: runIdValue },
      { requiredKeys: ['kind', 'parent'] },
    ),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 0, max: 5_000 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'flush' as const }) },
);

/** Random processor settings: small caps and TTLs so eviction paths run. */
export interface FuzzSettings {
  readonly maxLiveRuns: number;
  readonly runIdleTtlMs: number;
  readonly abortOnCritical: boolean;
  readonly redactContent: boolean;
  readonly callbacksThrow: boolean;
  readonly loopDetection: Record<string, unknown>;
}

export const fuzzSettings: fc.Arbitrary<FuzzSettings> = fc.record({
  maxLiveRuns: fc.integer({ min: 1, max: 6 }),
  runIdleTtlMs: fc.integer({ min: 1, max: 20_000 }),
  abortOnCritical: fc.boolean(),
  redactContent: fc.boolean(),
  callbacksThrow: fc.boolean(),
  loopDetection: fc.record(
    {
      enabled: fc.constantFrom(true, true, true, false, undefined),
      historySize: fc.integer({ min: 1, max: 16 }),
      warningThreshold: fc.integer({ min: 1, max: 4 }),
      criticalThreshold: fc.integer({ min: 1, max: 5 }),
      globalCircuitBreakerThreshold: fc.integer({ min: 1, max: 8 }),
      unknownToolThreshold: fc.integer({ min: 1, max: 4 }),
      detectors: fc.record({ genericRepeat: fc.boolean(), knownPollNoProgress: fc.boolean(), pingPong: fc.boolean() }),
      postCompactionGuard: fc.record({ windowSize: fc.integer({ min: 1, max: 4 }) }),
    },
    { requiredKeys: [] },
  ),
});

/** Executes span operations against a tracer, remembering every span it started. */
export class SpanDriver {
  readonly spans: Span[] = [];
  private remoteCount = 0;

  constructor(
    private readonly tracer: Tracer,
    private readonly advance: (ms: number) => void,
    private readonly flush: () => Promise<void>,
  ) {}

  private parentContext(ref: number): Context {
    if (ref === -1 || this.spans.length === 0) return ROOT_CONTEXT;
    if (ref === -2) {
      this.remoteCount += 1;
      const hex = this.remoteCount.toString(16).padStart(16, '0');
      return trace.setSpanContext(ROOT_CONTEXT, {
        traceId: `${hex}${hex}`,
        spanId: hex,
        traceFlags: TraceFlags.SAMPLED,
        isRemote: true,
      });
    }
    return trace.setSpan(ROOT_CONTEXT, this.spans[ref % this.spans.length]);
  }

  private target(index: number): Span | undefined {
    return this.spans.length === 0 ? undefined : this.spans[index % this.spans.length];
  }

  /** Runs one operation; any exception escaping it is a failure of the processor. */
  async run(op: SpanOp): Promise<void> {
    switch (op.kind) {
      case 'startRun': {
        const attributes: Attributes = { ...op.attrs };
        if (op.runId !== undefined) attributes[sc.ATTR_TOOL_LOOP_RUN_ID] = op.runId;
        if (op.agentId !== undefined) attributes[sc.ATTR_GEN_AI_AGENT_ID] = op.agentId;
        this.spans.push(this.tracer.startSpan('invoke_agent', { attributes }, this.parentContext(op.parent)));
        return;
      }
      case 'startTool': {
        const attributes: Attributes = {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
          ...op.attrs,
          [sc.ATTR_GEN_AI_TOOL_NAME]: op.tool,
        };
        if (op.args !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] = op.args;
        if (op.callId !== undefined) attributes[sc.ATTR_GEN_AI_TOOL_CALL_ID] = op.callId;
        if (op.runId !== undefined) attributes[sc.ATTR_TOOL_LOOP_RUN_ID] = op.runId;
        this.spans.push(this.tracer.startSpan('execute_tool', { attributes }, this.parentContext(op.parent)));
        return;
      }
      case 'call': {
        const attributes: Attributes = {
          [sc.ATTR_GEN_AI_OPERATION_NAME]: sc.GEN_AI_OPERATION_EXECUTE_TOOL,
          [sc.ATTR_GEN_AI_TOOL_NAME]: op.tool,
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: op.args,
        };
        const span = this.tracer.startSpan('execute_tool', { attributes }, this.parentContext(op.parent));
        this.spans.push(span);
        span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, op.result);
        span.end();
        return;
      }
      case 'setAttr':
        this.target(op.target)?.setAttribute(op.key, op.value);
        return;
      case 'result':
        this.target(op.target)?.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, op.value);
        return;
      case 'error': {
        const span = this.target(op.target);
        if (!span) return;
        if (op.exception !== undefined) span.recordException(new Error(op.exception));
        span.setStatus(
          op.message === undefined
            ? { code: SpanStatusCode.ERROR }
            : { code: SpanStatusCode.ERROR, message: op.message },
        );
        return;
      }
      case 'end':
        this.target(op.target)?.end();
        return;
      case 'compaction': {
        const attributes: Attributes = { [sc.ATTR_COMPACTION_RETRY]: true };
        if (op.runId !== undefined) attributes[sc.ATTR_TOOL_LOOP_RUN_ID] = op.runId;
        this.tracer.startSpan(sc.ATTR_COMPACTION_RETRY, { attributes }, this.parentContext(op.parent)).end();
        return;
      }
      case 'tick':
        this.advance(op.ms);
        return;
      case 'flush':
        await this.flush();
        return;
    }
  }
}
