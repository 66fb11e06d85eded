/**
 * Runs judged in pieces: a long run's calls arrive before the spans above them (which end later),
 * so a trace may be judged before its agent span or its root came. Its calls keep one history
 * whichever piece they came in: those under an agent span that opens a run without an id, and
 * those carrying a session id on spans whose parents are not there yet.
 */
import { ROOT_CONTEXT, trace, type Attributes, type Span } from '@opentelemetry/api';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base';
import { beforeAll, describe, expect, it } from 'vitest';
import { AgentConfigResolver } from '../../../src/config/agent-config-resolver.js';
import { createDigester, type Digester } from '../../../src/engine/hashing/digest.js';
import { RunJudge } from '../../../src/cli/serve/run-judge.js';
import { SpanIntake, type ServedSpan } from '../../../src/cli/serve/span-intake.js';
import { DEFAULT_ADAPTERS } from '../../../src/spans/adapters/index.js';
import * as sc from '../../../src/semconv.js';
import { W2C3 } from './helpers.js';

let digester: Digester;
beforeAll(async () => {
  digester = await createDigester();
});

/** Records an agent's spans with the real SDK (5 ms apart) and reads them as the service does. */
function recorder(service = 'agent') {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': service }),
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const tracer = provider.getTracer('agent');
  let now = Date.now();
  const tick = () => (now += 5);
  return {
    start: (name: string, attributes: Attributes, parent?: Span) =>
      tracer.startSpan(
        name,
        { attributes, startTime: tick() },
        parent ? trace.setSpan(ROOT_CONTEXT, parent) : ROOT_CONTEXT,
      ),
    end: (span: Span) => span.end(tick()),
    /** The spans ended so far and not taken yet, read as received. */
    take(): ServedSpan[] {
      const spans: ReadableSpan[] = exporter.getFinishedSpans();
      exporter.reset();
      const document = JSON.parse(new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))) as unknown;
      return new SpanIntake(DEFAULT_ADAPTERS, digester).read(document).spans;
    },
  };
}

/** A judge that lists the verdicts and releases its replays report. */
function judge() {
  const verdicts: string[] = [];
  const resolver = new AgentConfigResolver(W2C3);
  const runJudge = new RunJudge({
    replay: {
      configFor: (agentId) => resolver.forAgent(agentId),
      runIdleTtlMs: 60_000,
      maxLiveRuns: 100,
      shadow: true,
    },
    maxProcesses: 10,
    observerFor: () => ({
      started: (_span, started) => {
        if (started.verdict) verdicts.push(`${started.verdict.check.verdict.level}@${started.scope.runId}`);
      },
      finished: (_span, finished) => {
        if (finished.verdict) verdicts.push(`${finished.verdict.check.verdict.level}@${finished.scope.runId}`);
      },
      released: () => undefined,
    }),
  });
  return { runJudge, verdicts };
}

describe('RunJudge', () => {
  it("keeps a run's history when its agent span, which opens a run without an id, comes in a later piece", () => {
    const agent = recorder();
    const { runJudge, verdicts } = judge();
    const root = agent.start('invoke_agent', { [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' });
    const call = () => {
      const span = agent.start(
        'execute_tool read',
        {
          [sc.ATTR_GEN_AI_TOOL_NAME]: 'read',
          [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{"path":"/a"}',
          [sc.ATTR_GEN_AI_TOOL_CALL_RESULT]: 'same',
        },
        root,
      );
      agent.end(span);
    };
    call();
    call();
    runJudge.judge(agent.take(), 0);
    call();
    call();
    agent.end(root);
    runJudge.judge(agent.take(), 1);
    const traceId = root.spanContext().traceId;
    expect(verdicts).toEqual([`warning@${traceId}`, `critical@${traceId}`]);
  });

  it('keeps a session run open across pieces whose spans carry the session id but not their parents yet', () => {
    const agent = recorder();
    const { runJudge, verdicts } = judge();
    const session = { [sc.ATTR_OPENINFERENCE_SESSION_ID]: 'session-1' };
    const root = agent.start('LangGraph', { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'CHAIN', ...session });
    const step = () => {
      const chain = agent.start('tools', { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'CHAIN', ...session }, root);
      const tool = agent.start('search', { [sc.ATTR_OPENINFERENCE_SPAN_KIND]: 'TOOL', ...session }, chain);
      tool.setAttributes({
        [sc.ATTR_OPENINFERENCE_TOOL_NAME]: 'search',
        [sc.ATTR_OPENINFERENCE_INPUT_VALUE]: '{"q":"x"}',
        [sc.ATTR_OPENINFERENCE_OUTPUT_VALUE]: 'same',
      });
      agent.end(tool);
      agent.end(chain);
    };
    // Each step's chain span ends in its piece: as a parentless span carrying the session, it
    // would open and close the session's run by itself, and its end would drop the history.
    step();
    step();
    runJudge.judge(agent.take(), 0);
    step();
    runJudge.judge(agent.take(), 1);
    step();
    agent.end(root);
    runJudge.judge(agent.take(), 2);
    expect(verdicts).toEqual(['warning@session-1', 'critical@session-1']);
    expect(runJudge.liveRuns).toBe(0);
  });

  it('judges each emitting process with its own runs, and lets the least recently active go beyond the cap', () => {
    const released: string[] = [];
    const resolver = new AgentConfigResolver(W2C3);
    const runJudge = new RunJudge({
      replay: { configFor: () => resolver.forAgent(undefined), runIdleTtlMs: 60_000, maxLiveRuns: 100, shadow: true },
      maxProcesses: 1,
      observerFor: () => ({ started: () => undefined, finished: () => undefined, released: () => undefined }),
      onProcessReleased: (reason, liveRuns) => released.push(`${reason}:${liveRuns}`),
    });
    const oneCall = (agent: ReturnType<typeof recorder>) => {
      const root = agent.start('agent', {});
      agent.end(
        agent.start(
          'execute_tool read',
          { [sc.ATTR_GEN_AI_TOOL_NAME]: 'read', [sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS]: '{}' },
          root,
        ),
      );
      return agent.take();
    };
    // The root has not come: the call's run stays live.
    runJudge.judge(oneCall(recorder('agent-a')), 0);
    expect([runJudge.processCount, runJudge.liveRuns]).toEqual([1, 1]);
    runJudge.judge(oneCall(recorder('agent-b')), 1);
    expect(released).toEqual(['capacity:1']);
    expect([runJudge.processCount, runJudge.liveRuns]).toEqual([1, 1]);
  });
});
