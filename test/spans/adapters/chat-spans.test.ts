import { diag, type Attributes, type Span, type Tracer } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ToolLoopSpanProcessor,
  traceRun,
  traceToolCall,
  ToolLoopBlockedError,
  type ToolLoopSpanProcessorOptions,
} from '../../../src/index.js';
import * as sc from '../../../src/semconv.js';
import {
  createOtelHarness,
  installContextManager,
  LOW_THRESHOLDS,
  recordDiag,
  resetOtelGlobals,
  type OtelHarness,
} from '../../helpers/otel-harness.js';

// Agents instrumented only at their LLM client: the calls a model asks for are in its chat
// span's output messages, their results in the next chat span's input messages. Hand-built
// spans in the shapes of the three conventions (the real instrumentations: test/frameworks).

beforeAll(installContextManager);
afterAll(resetOtelGlobals);

interface Call {
  readonly id?: string;
  readonly name: string;
  readonly args: unknown;
}
type Message =
  | { readonly role: 'user'; readonly content: string }
  | { readonly role: 'assistant'; readonly calls: readonly Call[] }
  | { readonly role: 'tool'; readonly id?: string; readonly content: string };

type Convention = 'gen-ai' | 'openinference' | 'openllmetry';

/** A convention's chat span: what it carries at start (kind and input messages), what it adds at end (output). */
const CONVENTIONS: Record<
  Convention,
  { readonly start: (input: readonly Message[]) => Attributes; readonly end: (output: readonly Call[]) => Attributes }
> = {
  'gen-ai': {
    start: (input) => ({
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [sc.ATTR_GEN_AI_INPUT_MESSAGES]: JSON.stringify(
        input.map((message) =>
          message.role === 'user'
            ? { role: 'user', parts: [{ type: 'text', content: message.content }] }
            : message.role === 'assistant'
              ? { role: 'assistant', parts: message.calls.map(genAiCallPart) }
              : { role: 'tool', parts: [{ type: 'tool_call_response', id: message.id, response: message.content }] },
        ),
      ),
    }),
    end: (output) => ({
      [sc.ATTR_GEN_AI_OUTPUT_MESSAGES]: JSON.stringify([
        { role: 'assistant', parts: output.map(genAiCallPart), finish_reason: 'tool_call' },
      ]),
    }),
  },
  openinference: {
    start: (input) => {
      const attributes: Attributes = { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'LLM' };
      input.forEach((message, i) => {
        const prefix = `llm.input_messages.${i}.message`;
        attributes[`${prefix}.role`] = message.role;
        if (message.role === 'assistant') Object.assign(attributes, openInferenceCalls(prefix, message.calls));
        else attributes[`${prefix}.content`] = message.content;
        if (message.role === 'tool' && message.id !== undefined) attributes[`${prefix}.tool_call_id`] = message.id;
      });
      return attributes;
    },
    end: (output) => ({
      'llm.output_messages.0.message.role': 'assistant',
      ...openInferenceCalls('llm.output_messages.0.message', output),
    }),
  },
  openllmetry: {
    start: (input) => {
      const attributes: Attributes = { [sc.ATTR_LLM_REQUEST_TYPE]: 'chat', 'gen_ai.system': 'OpenAI' };
      input.forEach((message, i) => {
        attributes[`gen_ai.prompt.${i}.role`] = message.role;
        attributes[`gen_ai.prompt.${i}.content`] = message.role === 'assistant' ? 'null' : message.content;
        if (message.role === 'tool' && message.id !== undefined)
          attributes[`gen_ai.prompt.${i}.tool_call_id`] = message.id;
      });
      return attributes;
    },
    end: (output) => {
      const attributes: Attributes = { 'gen_ai.completion.0.role': 'assistant', 'gen_ai.completion.0.content': '' };
      output.forEach((call, j) => {
        attributes[`gen_ai.completion.0.tool_calls.${j}.name`] = call.name;
        attributes[`gen_ai.completion.0.tool_calls.${j}.arguments`] = JSON.stringify(call.args);
        if (call.id !== undefined) attributes[`gen_ai.completion.0.tool_calls.${j}.id`] = call.id;
      });
      return attributes;
    },
  },
};

function genAiCallPart(call: Call) {
  return { type: 'tool_call', id: call.id, name: call.name, arguments: call.args };
}

function openInferenceCalls(prefix: string, calls: readonly Call[]): Attributes {
  const attributes: Attributes = {};
  calls.forEach((call, j) => {
    const at = `${prefix}.tool_calls.${j}.tool_call`;
    attributes[`${at}.function.name`] = call.name;
    attributes[`${at}.function.arguments`] = JSON.stringify(call.args);
    if (call.id !== undefined) attributes[`${at}.id`] = call.id;
  });
  return attributes;
}

/**
 * One model call: the span gets the conversation so far and ends with the calls asked for. The
 * OpenInference tracer starts every span bare and sets its attributes just after; the others
 * start it with them.
 */
function chat(tracer: Tracer, convention: Convention, input: readonly Message[], output: readonly Call[]): Span {
  const { start, end } = CONVENTIONS[convention];
  const span =
    convention === 'openinference'
      ? tracer.startSpan('OpenAI Chat Completions').setAttributes(start(input))
      : tracer.startSpan('chat gpt-test', { attributes: start(input) });
  span.setAttributes(end(output));
  span.end();
  return span;
}

interface LoopRun {
  readonly executions: number;
  readonly chats: Span[];
  readonly error?: unknown;
}

/**
 * A hand-written agent loop: `turns` model calls, each asking for the calls `callsAt(turn)`; the
 * loop checks the run's signal before running them, runs them (`execute`) and sends the results
 * back with the next model call.
 */
async function handWrittenLoop(
  h: OtelHarness,
  convention: Convention,
  options: {
    readonly runId: string;
    readonly turns: number;
    readonly callsAt: (turn: number) => readonly Call[];
    readonly resultOf: (call: Call, turn: number) => string;
    /** Runs a call (default: `run()`); what it returns is sent to the model (as JSON unless a string). */
    readonly execute?: (call: Call, run: () => string) => unknown;
    /** Drop the call ids from the tool messages (conventions that record none). */
    readonly idlessResults?: boolean;
    /** Send a turn's results in the reverse order of its calls. */
    readonly reverseResults?: boolean;
  },
): Promise<LoopRun> {
  const signal = h.processor.runSignal(options.runId);
  const messages: Message[] = [{ role: 'user', content: 'Where is order 42?' }];
  const chats: Span[] = [];
  let executions = 0;
  try {
    await traceRun(h.tracer, { runId: options.runId }, async () => {
      for (let turn = 0; turn < options.turns; turn += 1) {
        const calls = options.callsAt(turn);
        chats.push(chat(h.tracer, convention, messages, calls));
        signal.throwIfAborted();
        messages.push({ role: 'assistant', calls });
        const results: Message[] = [];
        for (const call of calls) {
          const run = () => {
            executions += 1;
            return options.resultOf(call, turn);
          };
          const result: unknown = await (options.execute ? options.execute(call, run) : run());
          const content = typeof result === 'string' ? result : JSON.stringify(result);
          results.push({ role: 'tool', id: options.idlessResults ? undefined : call.id, content });
        }
        messages.push(...(options.reverseResults ? results.reverse() : results));
      }
    });
  } catch (error) {
    return { executions, chats, error };
  }
  return { executions, chats };
}

const lookup = (turn: number, args: unknown = { orderId: '42' }): Call[] => [
  { id: `call_${turn}`, name: 'lookup_order', args },
];

async function harness(options: ToolLoopSpanProcessorOptions = {}) {
  return createOtelHarness({ config: LOW_THRESHOLDS, abortOnCritical: true, ...options });
}

const eventNames = (span: Span) => (span as unknown as { events: Array<{ name: string }> }).events.map((e) => e.name);
const attributesOf = (span: Span) => (span as unknown as { attributes: Attributes }).attributes;

describe.each<Convention>(['gen-ai', 'openinference', 'openllmetry'])('chat spans (%s)', (convention) => {
  it('a loop that repeats a call is stopped through runSignal before the critical call runs', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, convention, {
      runId: `loop-${convention}`,
      turns: 8,
      callsAt: (turn) => lookup(turn),
      resultOf: () => 'status: pending',
    });
    // W2 C4: warning on the 3rd identical call, critical on the 5th, which never runs.
    expect(h.loopEvents.map((event) => `${event.level}:${event.detector}`)).toEqual([
      'warning:generic_repeat',
      'critical:generic_repeat',
    ]);
    expect(run.executions).toBe(4);
    expect(run.error).toBeInstanceOf(ToolLoopBlockedError);
    expect(eventNames(run.chats[2])).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
    expect(eventNames(run.chats[4])).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    const blocked = h.events(sc.EVENT_TOOL_LOOP_BLOCKED)[0].event;
    expect(blocked.attributes?.[sc.ATTR_GEN_AI_TOOL_CALL_ID]).toBe('call_4');
    expect(blocked.attributes?.[sc.ATTR_GEN_AI_TOOL_NAME]).toBe('lookup_order');
    expect(blocked.attributes?.[sc.ATTR_TOOL_LOOP_RUN_ID]).toBe(`loop-${convention}`);
    expect(attributesOf(run.chats[4])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
    // The LoopEvent points at the chat span that asked for the call.
    expect(h.loopEvents[1].spanId).toBe(run.chats[4].spanContext().spanId);
  });

  it('healthy: the same call with changing results warns, but is never critical', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, convention, {
      runId: `healthy-${convention}`,
      turns: 8,
      callsAt: (turn) => lookup(turn),
      resultOf: (_call, turn) => `status: step ${turn}`,
    });
    expect(run.error).toBeUndefined();
    expect(run.executions).toBe(8);
    expect(h.loopEvents.filter((event) => event.level === 'critical')).toEqual([]);
    expect(h.loopEvents[0]).toMatchObject({ level: 'warning', detector: 'generic_repeat' });
  });

  it('clean: different calls draw no event', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, convention, {
      runId: `clean-${convention}`,
      turns: 8,
      callsAt: (turn) => lookup(turn, { orderId: String(turn) }),
      resultOf: () => 'status: pending',
    });
    expect(run.executions).toBe(8);
    expect(h.loopEvents).toEqual([]);
    expect(h.finished().flatMap((span) => span.events.filter((event) => event.name.startsWith('tool_loop.')))).toEqual(
      [],
    );
  });

  it('a model that asks for two calls at once: each is judged, its event names its call id', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, convention, {
      runId: `batch-${convention}`,
      turns: 4,
      callsAt: (turn) => [
        { id: `a_${turn}`, name: 'lookup_order', args: { orderId: '42' } },
        { id: `b_${turn}`, name: 'lookup_customer', args: { customerId: '7' } },
      ],
      resultOf: (call) => (call.name === 'lookup_order' ? 'status: pending' : 'customer: Ada'),
      reverseResults: true,
    });
    // Two tools called in turn with the same results: OpenClaw's ping_pong, from the 3rd call on.
    const onChats = ({
      span,
      event,
    }: {
      span: { spanContext(): { spanId: string } };
      event: { attributes?: Attributes };
    }) => [
      run.chats.findIndex((chatSpan) => chatSpan.spanContext().spanId === span.spanContext().spanId),
      event.attributes?.[sc.ATTR_GEN_AI_TOOL_CALL_ID],
    ];
    expect(h.events(sc.EVENT_TOOL_LOOP_WARNING).map(onChats)).toEqual([
      [1, 'a_1'],
      [1, 'b_1'],
      [2, 'b_2'],
    ]);
    expect(h.events(sc.EVENT_TOOL_LOOP_BLOCKED).map(onChats)).toEqual([[2, 'a_2']]);
    expect(h.loopEvents.map((event) => `${event.level}:${event.detector}:${event.count}`)).toEqual([
      'warning:ping_pong:3',
      'warning:ping_pong:4',
      'critical:ping_pong:5',
      'warning:ping_pong:6',
    ]);
    // The span's verdict is the most severe of its calls'.
    expect(attributesOf(run.chats[2])[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
  });
});

describe('chat spans and tool spans of the same calls', () => {
  it('a tool span with the call id takes the call over: counted once, then judged at the tool spans', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, 'gen-ai', {
      runId: 'both',
      turns: 8,
      callsAt: (turn) => lookup(turn),
      resultOf: () => 'status: pending',
      execute: (call, body) => traceToolCall(h.tracer, { name: call.name, args: call.args, callId: call.id }, body),
    });
    // Counted twice, the warning would come on the 2nd call.
    expect(h.loopEvents.map((event) => `${event.level}:${event.count}`)).toEqual(['warning:2', 'critical:4']);
    // traceToolCall blocked the 5th call itself; the model is then told, and the run ends on the next.
    const tools = h.finished().filter((span) => span.name === 'execute_tool lookup_order');
    expect(tools[2].events.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_WARNING]);
    expect(tools[4].events.map((event) => event.name)).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    expect(run.executions).toBe(4);
    // Only the first call was judged at its chat span (before any tool span was seen).
    expect(run.chats.flatMap(eventNames)).toEqual([]);
  });

  it('a call the chat span found critical is blocked by a traceToolCall that takes it over', async () => {
    const h = await harness({ abortOnCritical: false });
    const run = await handWrittenLoop(h, 'openinference', {
      runId: 'late-tool-span',
      turns: 5,
      callsAt: (turn) => lookup(turn),
      resultOf: () => 'status: pending',
      // The first four calls run bare; the fifth inside traceToolCall with the model's call id.
      execute: (call, body) =>
        call.id === 'call_4'
          ? traceToolCall(h.tracer, { name: call.name, args: call.args, callId: call.id }, body)
          : body(),
    });
    expect(h.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical']);
    expect(eventNames(run.chats[4])).toEqual([sc.EVENT_TOOL_LOOP_BLOCKED]);
    expect(run.executions).toBe(4);
    const tool = h.finished().find((span) => span.name === 'execute_tool lookup_order');
    expect(tool?.attributes[sc.ATTR_TOOL_LOOP_VERDICT]).toBe('critical');
  });

  it('without call ids, results are matched to the calls in order, and a tool span takes over the oldest call of its tool', async () => {
    const h = await harness();
    const run = await handWrittenLoop(h, 'openllmetry', {
      runId: 'idless',
      turns: 8,
      callsAt: () => [{ name: 'lookup_order', args: { orderId: '42' } }],
      resultOf: () => 'status: pending',
      idlessResults: true,
    });
    expect(h.loopEvents.map((event) => event.level)).toEqual(['warning', 'critical']);
    expect(run.executions).toBe(4);
    const h2 = await harness();
    await handWrittenLoop(h2, 'openllmetry', {
      runId: 'idless-with-tool-spans',
      turns: 8,
      callsAt: () => [{ name: 'lookup_order', args: { orderId: '42' } }],
      resultOf: () => 'status: pending',
      idlessResults: true,
      execute: (call, body) => traceToolCall(h2.tracer, { name: call.name, args: call.args }, body),
    });
    expect(h2.loopEvents.map((event) => `${event.level}:${event.count}`)).toEqual(['warning:2', 'critical:4']);
  });
});

describe('chat spans, otherwise', () => {
  it('a model call that asks for no tool keeps no run state', async () => {
    const h = await harness();
    chat(h.tracer, 'gen-ai', [{ role: 'user', content: 'hi' }], []);
    expect(h.processor.getStats().liveRuns).toBe(0);
  });

  it('a model-call span that hit the SDK attribute limit is reported once: its calls may be missing', async () => {
    const logger = recordDiag();
    const processor = await ToolLoopSpanProcessor.create({ config: LOW_THRESHOLDS });
    const provider = new BasicTracerProvider({ spanProcessors: [processor], spanLimits: { attributeCountLimit: 6 } });
    const tracer = provider.getTracer('limited');
    const long: Message[] = [{ role: 'user', content: 'Where is order 42?' }];
    for (let turn = 0; turn < 3; turn += 1)
      long.push({ role: 'assistant', calls: lookup(turn) }, { role: 'tool', id: `call_${turn}`, content: 'pending' });
    chat(tracer, 'openinference', long, lookup(3));
    chat(tracer, 'openinference', long, lookup(4));
    const said = logger.matching('dropped');
    expect(said).toHaveLength(1);
    expect(said[0].level).toBe('warn');
    expect(said[0].text).toContain('attributeCountLimit');
    await provider.shutdown();
    diag.disable();
  });

  it('redactContent removes the message attributes of every convention', async () => {
    const h = await harness({ redactContent: true });
    for (const convention of ['gen-ai', 'openinference', 'openllmetry'] as const)
      chat(h.tracer, convention, [{ role: 'user', content: 'secret question' }], lookup(0, { orderId: 'secret-42' }));
    const exported = JSON.stringify(h.finished().map((span) => span.attributes));
    expect(exported).not.toContain('secret');
    expect(h.finished().map((span) => Object.keys(span.attributes).sort())).toEqual([
      [sc.ATTR_GEN_AI_OPERATION_NAME],
      [sc.ATTR_OPENINFERENCE_SPAN_KIND],
      ['gen_ai.system', sc.ATTR_LLM_REQUEST_TYPE],
    ]);
  });
});
