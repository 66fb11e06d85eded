/**
 * Acceptance: the loop events reach an OTLP/HTTP backend. A real `OTLPTraceExporter`
 * (JSON encoding, its default) behind a `BatchSpanProcessor` posts to a local receiver on
 * 127.0.0.1; the received payload holds `tool_loop.warning`, `tool_loop.blocked`,
 * `tool_loop.guard_armed` and `tool_loop.aborted` with every contract attribute, the
 * `tool_loop.verdict` span attributes, and no raw arguments or results (the spans were made
 * by `traceRun` / `traceToolCall` / `markCompactionRetry`, which hash content).
 */
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  ToolLoopSpanProcessor,
  traceRun,
  traceToolCall,
} from '../../src/index.js';
import { installContextManager, R, resetOtelGlobals, sc } from '../helpers/otel-harness.js';
import { otlpAttributes, startOtlpReceiver, type OtlpReceiver, type OtlpSpan } from '../helpers/otlp-receiver.js';

const AGENT = 'otlp-agent';
const RUN = 'otlp-run-1';
const SECRETS = ['SECRET-ARG-3f9a', 'SECRET-RESULT-77c1'];

let receiver: OtlpReceiver;
let spans: OtlpSpan[];
let runError: unknown;

interface DecodedEvent {
  span: OtlpSpan;
  name: string;
  attributes: Record<string, unknown>;
}

function decodedEvents(name: string): DecodedEvent[] {
  return spans.flatMap((span) =>
    (span.events ?? [])
      .filter((event) => event.name === name)
      .map((event) => ({ span, name: event.name, attributes: otlpAttributes(event.attributes) })),
  );
}

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  installContextManager();
  const processor = await ToolLoopSpanProcessor.create({
    // W 3 / C 6 so one short run shows a ping-pong warning and block; the guard is on by default.
    config: {
      tools: { loopDetection: { enabled: false } },
      agents: {
        list: [{ id: AGENT, tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 6 } } }],
      },
    },
  });
  const exporter = new OTLPTraceExporter({ url: receiver.url });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new BatchSpanProcessor(exporter)] });
  const tracer = provider.getTracer('otlp-export-test');

  runError = await traceRun(tracer, { runId: RUN, agentId: AGENT }, async () => {
    // read/list ping-pong with stable results: warning at 3, suppressed 4–5, blocked at 6.
    for (let i = 0; i < 6; i += 1) {
      const call: { name: string; args: unknown } =
        i % 2 === 0 ? { name: 'read', args: { path: `/${SECRETS[0]}` } } : { name: 'list', args: { dir: '/' } };
      await traceToolCall(tracer, call, () => R(`${call.name} ${SECRETS[1]}`, { ok: true }));
    }
    markCompactionRetry(tracer);
    for (let i = 0; i < 3; i += 1)
      await traceToolCall(tracer, { name: 'gateway', args: { action: 'probe', i: 0 } }, () => R('r1'));
    return 'unreachable';
  }).catch((error: unknown) => error);

  await provider.forceFlush();
  spans = receiver.spans();
  await provider.shutdown();
  resetOtelGlobals();
});

afterAll(async () => {
  await receiver?.close();
});

describe('OTLP/HTTP JSON export of loop events', () => {
  it('posts JSON to /v1/traces and the run was aborted with CompactionLoopPersistedError', () => {
    expect(receiver.requests.length).toBeGreaterThan(0);
    expect(receiver.statuses.every((status) => status === 200)).toBe(true);
    expect(runError).toBeInstanceOf(CompactionLoopPersistedError);
    expect(spans.map((span) => span.name).sort()).toEqual(
      [
        'compaction.retry',
        'execute_tool gateway',
        'execute_tool gateway',
        'execute_tool gateway',
        'execute_tool list',
        'execute_tool list',
        'execute_tool list',
        'execute_tool read',
        'execute_tool read',
        'execute_tool read',
        `invoke_agent ${AGENT}`,
      ].sort(),
    );
  });

  it('contains a tool_loop.warning event with every contract attribute (ping_pong, paired tool)', () => {
    const events = decodedEvents(sc.EVENT_TOOL_LOOP_WARNING);
    expect(events).toHaveLength(1);
    const [{ span, attributes }] = events;
    expect(span.name).toBe('execute_tool read');
    expect(attributes).toEqual({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'ping_pong',
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'warning',
      [sc.ATTR_TOOL_LOOP_ACTION]: 'warn',
      [sc.ATTR_TOOL_LOOP_COUNT]: 3,
      [sc.ATTR_TOOL_LOOP_MESSAGE]:
        'WARNING: You are alternating between repeated tool-call patterns (3 consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: RUN,
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
      [sc.ATTR_GEN_AI_AGENT_ID]: AGENT,
      [sc.ATTR_TOOL_LOOP_WARNING_KEY]: expect.stringMatching(/^pingpong:/) as string,
      [sc.ATTR_TOOL_LOOP_PAIRED_TOOL]: 'list',
      [sc.ATTR_TOOL_LOOP_SYSTEM_NOTE]:
        '[System note: Tool-loop warning after 3 repeated calls. Change your approach or stop if you are not making progress.]',
      ...loopWindowAttributes(2),
    });
    expect(otlpAttributes(span.attributes)[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('warning');
  });

  it('contains a tool_loop.blocked event with every contract attribute', () => {
    const events = decodedEvents(sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(events).toHaveLength(1);
    const [{ span, attributes }] = events;
    expect(span.name).toBe('execute_tool list');
    expect(attributes).toEqual({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'ping_pong',
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
      [sc.ATTR_TOOL_LOOP_ACTION]: 'block',
      [sc.ATTR_TOOL_LOOP_COUNT]: 6,
      [sc.ATTR_TOOL_LOOP_MESSAGE]:
        'CRITICAL: You are alternating between repeated tool-call patterns (6 consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: RUN,
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'list',
      [sc.ATTR_GEN_AI_AGENT_ID]: AGENT,
      [sc.ATTR_TOOL_LOOP_WARNING_KEY]: decodedEvents(sc.EVENT_TOOL_LOOP_WARNING)[0].attributes[
        sc.ATTR_TOOL_LOOP_WARNING_KEY
      ],
      [sc.ATTR_TOOL_LOOP_PAIRED_TOOL]: 'read',
      ...loopWindowAttributes(5),
    });
    expect(otlpAttributes(span.attributes)[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
  });

  it('contains a tool_loop.guard_armed event on the compaction.retry span, with tool_loop.window_size', () => {
    const events = decodedEvents(sc.EVENT_TOOL_LOOP_GUARD_ARMED);
    expect(events).toHaveLength(1);
    const [{ span, attributes }] = events;
    expect(span.name).toBe('compaction.retry');
    expect(otlpAttributes(span.attributes)[sc.ATTR_COMPACTION_RETRY]).toBe(true);
    expect(attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'compaction_loop_persisted',
      [sc.ATTR_TOOL_LOOP_LEVEL]: expect.stringMatching(/^(warning|critical)$/) as string,
      [sc.ATTR_TOOL_LOOP_ACTION]: 'arm',
      [sc.ATTR_TOOL_LOOP_COUNT]: expect.any(Number) as number,
      [sc.ATTR_TOOL_LOOP_MESSAGE]: 'post-compaction guard armed for 3 attempts',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: RUN,
      [sc.ATTR_GEN_AI_AGENT_ID]: AGENT,
      [sc.ATTR_TOOL_LOOP_WINDOW_SIZE]: 3,
    });
    expect(attributes).toHaveProperty([sc.ATTR_GEN_AI_TOOL_NAME]);
  });

  it('contains a tool_loop.aborted event with every contract attribute and error.type=compaction_loop_persisted', () => {
    const events = decodedEvents(sc.EVENT_TOOL_LOOP_ABORTED);
    expect(events).toHaveLength(1);
    const [{ span, attributes }] = events;
    expect(span.name).toBe('execute_tool gateway');
    expect(attributes).toMatchObject({
      [sc.ATTR_TOOL_LOOP_DETECTOR]: 'compaction_loop_persisted',
      [sc.ATTR_TOOL_LOOP_LEVEL]: 'critical',
      [sc.ATTR_TOOL_LOOP_ACTION]: 'abort',
      [sc.ATTR_TOOL_LOOP_COUNT]: 3,
      [sc.ATTR_TOOL_LOOP_MESSAGE]:
        'CRITICAL: tool gateway repeated 3 times with identical arguments and identical results within 3 attempts after auto-compaction. The compaction did not break the loop. Aborting to prevent runaway resource use.',
      [sc.ATTR_TOOL_LOOP_RUN_ID]: RUN,
      [sc.ATTR_GEN_AI_TOOL_NAME]: 'gateway',
      [sc.ATTR_GEN_AI_AGENT_ID]: AGENT,
      [sc.ATTR_ERROR_TYPE]: 'compaction_loop_persisted',
    });
    expect(otlpAttributes(span.attributes)[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('aborted');
    // It is the span that completed the window: the third gateway call, i.e. the last to end.
    const gatewaySpans = spans.filter((s) => s.name === 'execute_tool gateway');
    expect(
      gatewaySpans.filter((s) => (s.events ?? []).some((e) => e.name === sc.EVENT_TOOL_LOOP_ABORTED)),
    ).toHaveLength(1);
  });

  it('the run root span carries the run attributes and the error status', () => {
    const root = spans.find((span) => span.name === `invoke_agent ${AGENT}`)!;
    expect(otlpAttributes(root.attributes)).toMatchObject({
      [sc.ATTR_TOOL_LOOP_RUN_ID]: RUN,
      [sc.ATTR_GEN_AI_AGENT_ID]: AGENT,
    });
    expect(root.status?.code).toBe(2);
  });

  it('carries no raw arguments or results anywhere in the payload (the helpers only record hashes)', () => {
    for (const span of spans) {
      const attributes = otlpAttributes(span.attributes);
      expect(attributes).not.toHaveProperty([sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]);
      expect(attributes).not.toHaveProperty([sc.ATTR_GEN_AI_TOOL_CALL_RESULT]);
      if (span.name.startsWith('execute_tool '))
        expect(attributes[sc.ATTR_TOOL_LOOP_ARGS_HASH]).toEqual(expect.any(String));
    }
    const body = receiver.rawBodies.join('\n');
    for (const secret of SECRETS) expect(body).not.toContain(secret);
  });
});

describe('the local OTLP receiver', () => {
  it('answers 415 to a non-JSON body and keeps nothing', async () => {
    const before = receiver.requests.length;
    const response = await fetch(receiver.url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-protobuf' },
      body: new Uint8Array([1, 2, 3]),
    });
    expect(response.status).toBe(415);
    expect(receiver.requests.length).toBe(before);
  });
});

/**
 * The attributes a surfaced verdict adds for its loop: the time it burned, its two signatures
 * (a ping-pong) and its `members` calls recorded before the judged one, each with a hash.
 */
function loopWindowAttributes(members: number): Record<string, unknown> {
  const hashes = (pattern: RegExp) => expect.arrayContaining([expect.stringMatching(pattern)]) as unknown as string[];
  return {
    [sc.ATTR_TOOL_LOOP_WASTED_MS]: expect.any(Number) as number,
    [sc.ATTR_TOOL_LOOP_LOOP_SIGNATURES]: [
      expect.stringMatching(/^(list|read):/),
      expect.stringMatching(/^(list|read):/),
    ],
    [sc.ATTR_TOOL_LOOP_WINDOW_CALL_IDS]: expect.toSatisfy(
      (ids: unknown) => Array.isArray(ids) && ids.length === members,
    ) as unknown,
    [sc.ATTR_TOOL_LOOP_WINDOW_ARGS_HASHES]: hashes(/^(list|read):/),
    [sc.ATTR_TOOL_LOOP_WINDOW_RESULT_HASHES]: expect.toSatisfy(
      (ids: unknown) => Array.isArray(ids) && ids.length === members,
    ) as unknown,
  };
}
