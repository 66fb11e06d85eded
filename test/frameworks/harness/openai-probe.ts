import { BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import { lifecycleReport, writeProbeReport } from './lifecycle-report.js';
import { openAiAgent, openAiTestFile } from './openai-agent.js';
import type { OpenAiInstrumentationName } from './openai-instrumentations.js';
import { SpanRecorder, type SpanLifecycle } from './span-recorder.js';
import { ToolBody } from './scenario.js';

/**
 * Records what one LLM-client instrumentation emits for the hand-written loop (30 tool calls,
 * no guard) and writes the first three model calls' spans to `.probe/openai-<name>.md`.
 */
export function probeOpenAi(name: OpenAiInstrumentationName): () => Promise<SpanLifecycle[]> {
  const file = openAiTestFile(name);
  return async () => {
    const recorder = new SpanRecorder();
    // The SDK's default limits would drop attributes of the flattened messages from the 17th call on.
    file.useProvider(new BasicTracerProvider({ spanProcessors: [recorder], spanLimits: { attributeCountLimit: 10_000 } }));
    await openAiAgent(file.client(), new ToolBody('loop'), new AbortController().signal);
    writeProbeReport(`openai-${name}.md`, lifecycleReport(`openai + ${name}: the first three of 31 model calls`, recorder.spans.slice(0, 3)));
    return recorder.spans;
  };
}
