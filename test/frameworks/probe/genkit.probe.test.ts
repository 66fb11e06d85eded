import { trace } from '@opentelemetry/api';
import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { disableGenkitOTelInitialization, disableOTelRootSpanDetection } from 'genkit/tracing';
import { traceRun } from 'tool-loop-guard';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { genkitAgent } from '../harness/genkit-agent.js';
import { useAsyncContext } from '../harness/guard.js';
import { lifecycleReport, writeProbeReport } from '../harness/lifecycle-report.js';
import { SpanRecorder } from '../harness/span-recorder.js';
import { ToolBody, TOOL_NAME } from '../harness/scenario.js';

afterAll(useAsyncContext());

function recordWithOwnProvider(): { recorder: SpanRecorder; provider: BasicTracerProvider } {
  const recorder = new SpanRecorder();
  const provider = new BasicTracerProvider({ spanProcessors: [recorder] });
  trace.disable();
  trace.setGlobalTracerProvider(provider);
  return { recorder, provider };
}

describe('what Genkit emits for a generate call with tools (its OTel setup disabled, our provider global)', () => {
  beforeAll(() => disableGenkitOTelInitialization());

  it('tool spans: typed at start, name, input and output only at end; each turn nests in the last', async () => {
    const { recorder, provider } = recordWithOwnProvider();
    const body = new ToolBody('loop');
    const { ai, options } = genkitAgent(body);
    await traceRun(provider.getTracer('agent'), { runId: 'outer' }, () => ai.generate({ ...options, maxTurns: 3 }).catch(() => undefined));
    writeProbeReport('genkit.md', lifecycleReport('Genkit generate with a tool, own provider, inside traceRun', recorder.spans));
    const tools = recorder.spans.filter((span) => span.atStart['genkit:metadata:subtype'] === 'tool');
    expect(tools.length).toBe(3);
    expect(tools[0].name).toBe(TOOL_NAME);
    expect(tools[0].atStart).toEqual({ 'genkit:type': 'action', 'genkit:metadata:subtype': 'tool', 'genkit:key': `/tool/${TOOL_NAME}` });
    expect(tools[0].atEnding).toMatchObject({ 'genkit:name': TOOL_NAME, 'genkit:input': '{"orderId":"order-42"}', 'genkit:output': '"status: pending"', 'genkit:state': 'success' });
    const generates = recorder.named(/^generate$/);
    expect(generates[1].parentSpanId).toBe(generates[0].spanId);
    const [runRoot] = recorder.spans;
    // Genkit's outermost action span is started with root: true: a new trace, outside traceRun.
    expect(generates[0].parentSpanId).toBeUndefined();
    expect(generates[0].traceId).not.toBe(runRoot.traceId);
  });

  it('with disableOTelRootSpanDetection the generate span joins the active trace', async () => {
    disableOTelRootSpanDetection();
    const { recorder, provider } = recordWithOwnProvider();
    const { ai, options } = genkitAgent(new ToolBody('loop'));
    await traceRun(provider.getTracer('agent'), { runId: 'outer' }, () => ai.generate({ ...options, maxTurns: 2 }).catch(() => undefined));
    const [runRoot] = recorder.spans;
    const [generate] = recorder.named(/^generate$/);
    expect(generate.parentSpanId).toBe(runRoot.spanId);
    expect(new Set(recorder.spans.map((span) => span.traceId)).size).toBe(1);
  });
});
