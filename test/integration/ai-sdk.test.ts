import { context, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { MockLanguageModelV3, simulateReadableStream } from 'ai/test';
import type { LanguageModelV3GenerateResult, LanguageModelV3StreamPart } from '@ai-sdk/provider';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  CompactionLoopPersistedError,
  markCompactionRetry,
  ToolLoopBlockedError,
  ToolLoopSpanProcessor,
  type LoopAbortEvent,
  type LoopEvent,
  type ToolLoopSpanProcessorOptions,
} from '../../src/index.js';
import * as sc from '../../src/semconv.js';

const contextManager = new AsyncLocalStorageContextManager();
beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
});
afterAll(() => {
  context.disable();
});

interface Harness {
  processor: ToolLoopSpanProcessor;
  tracer: Tracer;
  exporter: InMemorySpanExporter;
  events: LoopEvent[];
  aborts: LoopAbortEvent[];
}
const providers: BasicTracerProvider[] = [];
afterEach(async () => {
  await Promise.all(providers.splice(0).map((p) => p.shutdown()));
});

async function harness(options: ToolLoopSpanProcessorOptions = {}): Promise<Harness> {
  const events: LoopEvent[] = [];
  const aborts: LoopAbortEvent[] = [];
  const processor = await ToolLoopSpanProcessor.create({
    config: { tools: { loopDetection: { enabled: true } } },
    abortOnCritical: true,
    onLoopEvent: (e) => events.push(e),
    onAbort: (e) => aborts.push(e),
    ...options,
  });
  const exporter = new InMemorySpanExporter();
  // Our processor first, so its events are on the spans the exporting processor sees.
  const provider = new BasicTracerProvider({ spanProcessors: [processor, new SimpleSpanProcessor(exporter)] });
  providers.push(provider);
  return { processor, tracer: provider.getTracer('ai-sdk-test'), exporter, events, aborts };
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** A model that asks for the same tool call, with the same arguments, at every step. */
function loopingModel(toolName: string, input: unknown): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doGenerate: async (): Promise<LanguageModelV3GenerateResult> => {
      step += 1;
      return {
        content: [{ type: 'tool-call', toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      };
    },
  });
}

function streamingLoopModel(toolName: string, input: unknown): MockLanguageModelV3 {
  let step = 0;
  return new MockLanguageModelV3({
    doStream: async () => {
      step += 1;
      const chunks: LanguageModelV3StreamPart[] = [
        { type: 'stream-start', warnings: [] },
        { type: 'tool-call', toolCallId: `call-${step}`, toolName, input: JSON.stringify(input) },
        { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: USAGE },
      ];
      return { stream: simulateReadableStream({ chunks }) };
    },
  });
}

function eventsNamed(spans: readonly ReadableSpan[], name: string) {
  return spans.flatMap((span) => span.events.filter((event) => event.name === name).map((event) => ({ span, event })));
}

describe('AI SDK generateText (ai@6, MockLanguageModelV3) with runSignal', () => {
  it('stops an agent that repeats the same tool call well before stepCountIs(50)', async () => {
    const h = await harness();
    const runId = 'run-repeat';
    let executions = 0;
    const model = loopingModel('check_status', { job: 'build-42' });
    const tools = {
      check_status: tool({
        description: 'status of a job',
        inputSchema: z.object({ job: z.string() }),
        execute: async () => {
          executions += 1;
          return { job: 'build-42', state: 'running' };
        },
      }),
    };

    const error = await generateText({
      model,
      tools,
      prompt: 'wait for the build',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId } },
      abortSignal: h.processor.runSignal(runId),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );

    // The SDK rethrows the signal's reason as it is: our error, not a wrapper.
    expect(error).toBeInstanceOf(ToolLoopBlockedError);
    const blocked = error as ToolLoopBlockedError;
    expect(blocked.name).toBe('ToolLoopBlockedError');
    expect(blocked.code).toBe('tool_loop_blocked');
    expect(blocked.detector).toBe('generic_repeat');
    expect(blocked.toolName).toBe('check_status');
    // Defaults: W 10, C 20. The 21st identical call is critical at its span's start; the SDK
    // still runs it, then checks the signal before the next step.
    expect(executions).toBe(21);
    expect(model.doGenerateCalls.length).toBe(21);

    const spans = h.exporter.getFinishedSpans();
    const toolSpans = spans.filter((s) => s.name === 'ai.toolCall');
    expect(toolSpans).toHaveLength(21);
    const warnings = eventsNamed(spans, sc.EVENT_TOOL_LOOP_WARNING);
    const blocks = eventsNamed(spans, sc.EVENT_TOOL_LOOP_BLOCKED);
    expect(warnings.length).toBeGreaterThanOrEqual(1);
    expect(warnings[0].event.attributes?.[sc.ATTR_TOOL_LOOP_COUNT]).toBe(10);
    expect(warnings[0].event.attributes?.[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe(runId);
    expect(blocks).toHaveLength(1);
    expect(blocks[0].span).toBe(toolSpans[20]);
    expect(blocks[0].event.attributes?.[sc.ATTR_TOOL_LOOP_DETECTOR]).toBe('generic_repeat');
    expect(blocks[0].event.attributes?.[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('check_status');
    expect(blocks[0].span.attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    expect(h.events.every((e) => e.runId === runId)).toBe(true);
    // The root span ended (with the error) and released the run's state.
    const root = spans.find((s) => s.name === 'ai.generateText');
    expect(root?.status.code).toBe(2);
    expect(h.processor.getStats().liveRuns).toBe(0);
  });

  it('stops earlier with lower thresholds', async () => {
    const h = await harness({
      config: {
        tools: {
          loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 4, globalCircuitBreakerThreshold: 6 },
        },
      },
    });
    let executions = 0;
    const model = loopingModel('check_status', { job: 'x' });
    const error = await generateText({
      model,
      tools: {
        check_status: tool({
          inputSchema: z.object({ job: z.string() }),
          execute: async () => (executions++, 'still running'),
        }),
      },
      prompt: 'go',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId: 'run-low' } },
      abortSignal: h.processor.runSignal('run-low'),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ToolLoopBlockedError);
    expect(executions).toBe(5);
    expect(model.doGenerateCalls.length).toBe(5);
  });

  it('never stops an agent whose tool result changes every step', async () => {
    const h = await harness();
    let executions = 0;
    const model = loopingModel('check_status', { job: 'build-42' });
    const result = await generateText({
      model,
      tools: {
        check_status: tool({
          inputSchema: z.object({ job: z.string() }),
          execute: async () => {
            executions += 1;
            return { job: 'build-42', progress: executions };
          },
        }),
      },
      prompt: 'wait for the build',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId: 'run-progress' } },
      abortSignal: h.processor.runSignal('run-progress'),
    });
    // Runs to its natural end: the step limit.
    expect(result.steps).toHaveLength(50);
    expect(executions).toBe(50);
    expect(model.doGenerateCalls.length).toBe(50);
    const spans = h.exporter.getFinishedSpans();
    expect(eventsNamed(spans, sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(0);
    // generic_repeat still warns on identical arguments (counts 10, 20, 30, 40), never blocks.
    expect(h.events.every((e) => e.level === 'warning')).toBe(true);
    expect(h.processor.getStats().liveRuns).toBe(0);
  });

  it('aborts with compaction_loop_persisted after a compaction retry, without abortOnCritical', async () => {
    const h = await harness({ abortOnCritical: false, config: {} });
    const runId = 'run-compaction';
    let executions = 0;
    const model = loopingModel('read_file', { path: 'notes.md' });
    const signal = h.processor.runSignal(runId);
    const error = await generateText({
      model,
      tools: {
        read_file: tool({
          inputSchema: z.object({ path: z.string() }),
          execute: async () => {
            executions += 1;
            return 'same text';
          },
        }),
      },
      // The agent compacted its context after step 2 and retries (OpenClaw arms the guard here).
      onStepFinish: () => {
        if (executions === 2) markCompactionRetry(h.tracer, { runId });
      },
      prompt: 'summarise',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId } },
      abortSignal: signal,
    }).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(CompactionLoopPersistedError);
    const aborted = error as CompactionLoopPersistedError;
    expect(aborted.code).toBe('compaction_loop_persisted');
    expect(aborted.toolName).toBe('read_file');
    expect(aborted.count).toBe(3);
    // Calls 1-2 before the retry mark, 3-5 fill the window of 3, the run stops before step 6.
    expect(executions).toBe(5);
    expect(model.doGenerateCalls.length).toBe(5);
    expect(h.aborts).toHaveLength(1);
    expect(h.aborts[0].runId).toBe(runId);
    const spans = h.exporter.getFinishedSpans();
    expect(eventsNamed(spans, sc.EVENT_TOOL_LOOP_GUARD_ARMED)).toHaveLength(1);
    const abortEvents = eventsNamed(spans, sc.EVENT_TOOL_LOOP_ABORTED);
    expect(abortEvents).toHaveLength(1);
    expect(abortEvents[0].span.name).toBe('ai.toolCall');
    expect(abortEvents[0].event.attributes?.[sc.ATTR_ERROR_TYPE]).toBe('compaction_loop_persisted');
  });

  it('scopes an id-less call by its ai.generateText root and uses functionId as the agent id', async () => {
    const h = await harness({ abortOnCritical: false });
    const model = loopingModel('check_status', { job: 'j' });
    await generateText({
      model,
      tools: { check_status: tool({ inputSchema: z.object({ job: z.string() }), execute: async () => 'same' }) },
      prompt: 'go',
      stopWhen: stepCountIs(12),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, functionId: 'status-agent' },
    });
    const root = h.exporter.getFinishedSpans().find((s) => s.name === 'ai.generateText')!;
    const expectedRun = `${root.spanContext().traceId}/${root.spanContext().spanId}`;
    expect(h.events.length).toBeGreaterThan(0);
    expect(h.events.every((e) => e.runId === expectedRun && e.agentId === 'status-agent')).toBe(true);
    expect(h.processor.getStats().liveRuns).toBe(0);
  });
});

describe('AI SDK without recorded content', () => {
  it('judges nothing (and warns about nothing) when recordOutputs is false', async () => {
    const h = await harness();
    let executions = 0;
    const result = await generateText({
      model: loopingModel('check_status', { job: 'j' }),
      tools: {
        check_status: tool({ inputSchema: z.object({ job: z.string() }), execute: async () => (executions++, 'same') }),
      },
      prompt: 'go',
      stopWhen: stepCountIs(25),
      experimental_telemetry: {
        isEnabled: true,
        tracer: h.tracer,
        recordOutputs: false,
        metadata: { runId: 'run-blind' },
      },
      abortSignal: h.processor.runSignal('run-blind'),
    });
    // Without ai.toolCall.args the calls cannot be told apart: each counts as traffic, none matches.
    const toolSpan = h.exporter.getFinishedSpans().find((s) => s.name === 'ai.toolCall')!;
    expect(toolSpan.attributes[sc.ATTR_AI_TOOL_CALL_ARGS]).toBeUndefined();
    expect(result.steps).toHaveLength(25);
    expect(executions).toBe(25);
    expect(h.events).toHaveLength(0);
  });
});

describe('AI SDK streamText with runSignal', () => {
  const LOW = {
    tools: {
      loopDetection: { enabled: true, warningThreshold: 2, criticalThreshold: 4, globalCircuitBreakerThreshold: 6 },
    },
  };
  const stuckTool = (count: () => void) =>
    tool({
      inputSchema: z.object({ job: z.string() }),
      execute: async () => {
        count();
        return 'still running';
      },
    });

  it('ends the stream with an abort part carrying our error, and releases the run at the root end', async () => {
    const h = await harness({ config: LOW });
    const runId = 'run-stream';
    let executions = 0;
    const model = streamingLoopModel('check_status', { job: 'x' });
    const signal = h.processor.runSignal(runId);
    const result = streamText({
      model,
      tools: { check_status: stuckTool(() => (executions += 1)) },
      prompt: 'go',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId } },
      abortSignal: signal,
    });
    const parts: Array<{ type: string; reason?: string }> = [];
    for await (const part of result.fullStream) parts.push(part);

    // The stream does not throw: it ends with an `abort` part whose reason is our error's message.
    const last = parts.at(-1)!;
    expect(last.type).toBe('abort');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(ToolLoopBlockedError);
    expect(last.reason).toBe((signal.reason as Error).message);
    expect(last.reason).toMatch(
      /^CRITICAL: Called check_status with identical arguments and identical outcomes 4 times/,
    );
    // W 2, C 4: the 5th identical call is critical at start; it runs, then the stream aborts.
    expect(executions).toBe(5);
    expect(model.doStreamCalls.length).toBe(5);
    const spans = h.exporter.getFinishedSpans();
    expect(eventsNamed(spans, sc.EVENT_TOOL_LOOP_BLOCKED)).toHaveLength(1);
    expect(spans.some((s) => s.name === 'ai.streamText')).toBe(true);
    expect(h.processor.getStats().liveRuns).toBe(0);
    expect(h.processor.getStats().releasedRuns['root-ended']).toBe(1);
  });

  it('releases the state of a run whose root span never ends after the idle TTL', async () => {
    let now = 1_000_000;
    const h = await harness({ config: LOW, clock: () => now, runIdleTtlMs: 60_000 });
    const runId = 'run-abandoned';
    let executions = 0;
    const result = streamText({
      model: streamingLoopModel('check_status', { job: 'x' }),
      tools: { check_status: stuckTool(() => (executions += 1)) },
      prompt: 'go',
      stopWhen: stepCountIs(50),
      experimental_telemetry: { isEnabled: true, tracer: h.tracer, metadata: { runId } },
      abortSignal: h.processor.runSignal(runId),
    });
    // The consumer reads the first tool result and walks away: the ai.streamText span stays open.
    const reader = result.fullStream.getReader();
    for (;;) {
      const { value } = await reader.read();
      if (value?.type === 'tool-result') break;
    }
    expect(executions).toBe(1);
    expect(h.exporter.getFinishedSpans().some((s) => s.name === 'ai.streamText')).toBe(false);
    expect(h.processor.getStats().liveRuns).toBe(1);

    now += 61_000;
    // Any tool-span activity runs the lazy idle sweep.
    h.tracer
      .startSpan('execute_tool ping', {
        attributes: { [sc.ATTR_GEN_AI_TOOL_NAME]: 'ping', [sc.ATTR_TOOL_LOOP_RUN_ID]: 'another-run' },
      })
      .end();
    expect(h.processor.getStats().releasedRuns.idle).toBe(1);
    expect(h.processor.getStats().liveRuns).toBe(1); // only 'another-run'
  });
});
