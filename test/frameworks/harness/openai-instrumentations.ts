import type { TracerProvider } from '@opentelemetry/api';
import { OpenAIInstrumentation as OpenInferenceOpenAI } from '@arizeai/openinference-instrumentation-openai';
import { OpenAIInstrumentation as OpenLlmetryOpenAI } from '@traceloop/instrumentation-openai';
import OpenAI from 'openai';
import { OpenAIInstrumentation as OpenLlmetryOpenAI022 } from 'traceloop-instrumentation-openai-022';

/** The LLM-client instrumentations of the `openai` package tested here. */
export type OpenAiInstrumentationName = 'openinference' | 'openllmetry' | 'openllmetry-0.22';

/**
 * Patches the `openai` client with one instrumentation (once per process: each test file runs
 * in its own) and returns how to point it at a provider. The ESM import of `openai` is not seen
 * by the instrumentations' require hooks: they are applied by hand, as their docs say for ESM.
 * OpenLLMetry 0.22.5 declares `openai` `>=4 <6`; it is applied to 6.49 here (its `openai` 5.x
 * peers need zod 3, which this workspace cannot hold next to zod 4): its patch of
 * `Chat.Completions.prototype.create` is the same on both.
 */
export function instrumentOpenAi(name: OpenAiInstrumentationName): (provider: TracerProvider) => void {
  if (name === 'openinference') {
    const instrumentation = new OpenInferenceOpenAI();
    // Typed as the client class; it patches `module.OpenAI.Chat.Completions`, which the class has too.
    instrumentation.manuallyInstrument(OpenAI);
    return (provider) => instrumentation.setTracerProvider(provider);
  }
  const instrumentation = name === 'openllmetry' ? new OpenLlmetryOpenAI() : new OpenLlmetryOpenAI022();
  instrumentation.manuallyInstrument(OpenAI);
  return (provider) => instrumentation.setTracerProvider(provider);
}
