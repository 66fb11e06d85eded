/**
 * Privacy and hashing (raw arguments and results are never added to spans by this package
 * unless the user opts in): proven on the OTLP/HTTP JSON payload the
 * real `OTLPTraceExporter` sends to a local receiver on 127.0.0.1 (random port).
 */
import { ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BasicTracerProvider, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDigester } from '../../src/engine-entry.js';
import {
  traceRun,
  traceToolCall,
  ToolLoopSpanProcessor,
  type LoopEvent,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';
import { resolveProcessorOptions } from '../../src/otel/options.js';
import * as sc from '../../src/semconv.js';
import { installContextManager, resetOtelGlobals, W2_C3 } from '../helpers/otel-harness.js';
import { otlpAttributes, startOtlpReceiver, type OtlpReceiver } from '../helpers/otlp-receiver.js';

const SECRET_ARG = 'sk-live-SECRET-ARGUMENT-7f3a9c';
const SECRET_RESULT = 'SECRET-RESULT-password=hunter2';

let receiver: OtlpReceiver;
beforeEach(async () => {
  receiver = await startOtlpReceiver();
});
afterEach(async () => {
  await receiver.close();
  resetOtelGlobals();
});

async function pipeline(options: ToolLoopSpanProcessorOptions = {}) {
  const events: LoopEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    config: W2_C3,
    onLoopEvent: (e) => void events.push(e),
    ...options,
  });
  const exporter = new OTLPTraceExporter({ url: receiver.url });
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  return { processor, provider, tracer: provider.getTracer('privacy'), events };
}

function payload(): string {
  return receiver.rawBodies.join('\n');
}

function toolSpanAttributes(): Array<Record<string, unknown>> {
  return receiver
    .spans()
    .map((span) => otlpAttributes(span.attributes))
    .filter((attributes) => attributes[sc.ATTR_GEN_AI_TOOL_NAME] !== undefined);
}

function loopEventNames(): string[] {
  return receiver
    .spans()
    .flatMap((span) => (span.events ?? []).map((event) => event.name))
    .filter((name) => name.startsWith('tool_loop.'));
}

describe('privacy on the exported OTLP payload', () => {
  it('traceToolCall without recordContent exports hashes only: no raw argument or result reaches the collector', async () => {
    installContextManager();
    const h = await pipeline();
    await traceRun(h.tracer, { runId: 'private-run' }, async () => {
      for (let i = 0; i < 4; i += 1) {
        await traceToolCall(
          h.tracer,
          { name: 'http_get', args: { url: 'https://api.example.com', apiKey: SECRET_ARG } },
          () => ({ body: SECRET_RESULT }),
        );
      }
    });
    await h.provider.forceFlush();
    const body = payload();
    expect(receiver.spans().length).toBeGreaterThanOrEqual(5);
    expect(body).not.toContain(SECRET_ARG);
    expect(body).not.toContain('hunter2');
    const tools = toolSpanAttributes();
    // Four tool spans: two plain calls, the warned 3rd and the blocked 4th (ended without running).
    expect(tools).toHaveLength(4);
    expect(tools.every((a) => typeof a[sc.ATTR_TOOL_LOOP_ARGS_HASH] === 'string')).toBe(true);
    expect(
      tools.some(
        (a) => a[sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] !== undefined || a[sc.ATTR_GEN_AI_TOOL_CALL_RESULT] !== undefined,
      ),
    ).toBe(false);
    // Detection worked on the hashes, and its events were exported.
    expect(loopEventNames()).toEqual(expect.arrayContaining([sc.EVENT_TOOL_LOOP_WARNING, sc.EVENT_TOOL_LOOP_BLOCKED]));
    await h.provider.shutdown();
  });

  it('control: with recordContent the same secrets do reach the payload (the receiver can see them)', async () => {
    installContextManager();
    const h = await pipeline();
    await traceRun(h.tracer, { runId: 'opt-in-run' }, () =>
      traceToolCall(h.tracer, { name: 'http_get', args: { apiKey: SECRET_ARG }, recordContent: true }, () => ({
        body: SECRET_RESULT,
      })),
    );
    await h.provider.forceFlush();
    expect(payload()).toContain(SECRET_ARG);
    expect(payload()).toContain('hunter2');
    await h.provider.shutdown();
  });

  it('redactContent removes gen_ai.tool.call.arguments / result after hashing: gone from the payload, detection intact', async () => {
    for (const redactContent of [true, false]) {
      receiver.rawBodies.length = 0;
      receiver.requests.length = 0;
      const h = await pipeline({ redactContent });
      const root = h.tracer.startSpan('invoke_agent', {
        attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: `redact-${redactContent}` },
      });
      for (let i = 0; i < 4; i += 1) {
        const span = h.tracer.startSpan(
          'execute_tool',
          {
            attributes: {
              [sc.ATTR_GEN_AI_TOOL_NAME]: 'db_query',
              [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: JSON.stringify({ password: SECRET_ARG }),
            },
          },
          trace.setSpan(ROOT_CONTEXT, root),
        );
        span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify({ rows: [SECRET_RESULT] }));
        span.end();
      }
      root.end();
      await h.provider.forceFlush();
      const body = payload();
      const tools = toolSpanAttributes();
      expect(tools).toHaveLength(4);
      if (redactContent) {
        expect(body).not.toContain(SECRET_ARG);
        expect(body).not.toContain('hunter2');
        expect(body).not.toContain(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS);
        expect(body).not.toContain(sc.ATTR_GEN_AI_TOOL_CALL_RESULT);
      } else {
        expect(body).toContain(SECRET_ARG); // control: the user's own instrumentation put it there
        expect(body).toContain('hunter2');
      }
      // Same verdicts either way: warning on the 3rd call, block on the 4th.
      expect(tools.map((a) => a[sc.ATTR_TOOL_LOOP_VERDICT])).toEqual([undefined, undefined, 'warning', 'critical']);
      expect(h.events.map((e) => `${e.level}:${e.detector}`)).toEqual([
        'warning:generic_repeat',
        'critical:generic_repeat',
      ]);
      // Loop events carry hashes and tool names, never content.
      for (const event of h.events) expect(JSON.stringify(event)).not.toContain('SECRET');
      await h.provider.shutdown();
    }
  });
});

describe('hash seed', () => {
  const warningKeyFor = async (options: ToolLoopSpanProcessorOptions): Promise<string> => {
    const events: LoopEvent[] = [];
    const processor = await ToolLoopSpanProcessor.create({
      config: W2_C3,
      onLoopEvent: (e) => void events.push(e),
      ...options,
    });
    const provider = new BasicTracerProvider({ spanProcessors: [processor] });
    const tracer = provider.getTracer('seed');
    const root = tracer.startSpan('invoke_agent', { attributes: { [sc.ATTR_TOOL_LOOP_RUN_ID]: 'seeded' } });
    for (let i = 0; i < 3; i += 1) {
      const span = tracer.startSpan(
        't',
        { attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"pin":"1234"}' } },
        trace.setSpan(ROOT_CONTEXT, root),
      );
      span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, '"ok"');
      span.end();
    }
    await provider.shutdown();
    expect(events).toHaveLength(1);
    return events[0].warningKey; // `generic:read:read:<16 hex>` — the exported args hash
  };

  it('default seed 0: two processors produce identical hashes (comparable across processes)', async () => {
    const a = await warningKeyFor({});
    const b = await warningKeyFor({});
    expect(a).toMatch(/^generic:read:read:[0-9a-f]{16}$/);
    expect(a).toBe(b);
    const d0 = await createDigester({ seed: 0n });
    const d1 = await createDigester();
    expect(d0.digest({ pin: '1234' })).toBe(d1.digest({ pin: '1234' }));
  });

  it("'random' draws a fresh seed per processor: hashes differ from seed 0 and from each other", async () => {
    const env = {};
    const s1 = resolveProcessorOptions({ hashSeed: 'random' }, env).hashSeed;
    const s2 = resolveProcessorOptions({ hashSeed: 'random' }, env).hashSeed;
    const fromEnv = resolveProcessorOptions({}, { TOOL_LOOP_GUARD_HASH_SEED: 'random' }).hashSeed;
    expect(new Set([s1, s2, fromEnv, 0n]).size).toBe(4);
    const [d0, d1, d2] = await Promise.all([
      createDigester({ seed: 0n }),
      createDigester({ seed: s1 }),
      createDigester({ seed: s2 }),
    ]);
    const secret = { pin: '1234' };
    expect(new Set([d0.digest(secret), d1.digest(secret), d2.digest(secret)]).size).toBe(3);

    const fixed = await warningKeyFor({});
    const randomised = await warningKeyFor({ hashSeed: 'random' });
    expect(randomised).toMatch(/^generic:read:read:[0-9a-f]{16}$/);
    expect(randomised).not.toBe(fixed);
  });

  it('an invalid seed falls back to 0 with a warning (never throws)', () => {
    const warnings: string[] = [];
    const logger = { warn: (m: string) => void warnings.push(m), error() {}, info() {}, debug() {}, verbose() {} };
    expect(resolveProcessorOptions({ hashSeed: -1 }, {}, logger).hashSeed).toBe(0n);
    expect(resolveProcessorOptions({}, { TOOL_LOOP_GUARD_HASH_SEED: 'not-a-number' }, logger).hashSeed).toBe(0n);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toContain('hashSeed');
  });
});
