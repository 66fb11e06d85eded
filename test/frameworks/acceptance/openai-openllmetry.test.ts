import { describe } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { openAiRuns } from '../harness/openai-guard.js';

const run = openAiRuns('openllmetry');

describe('openai 6.49 + @traceloop/instrumentation-openai 0.27.0 (GenAI chat spans only), hand-written loop inside traceRun', () => {
  variantTests({}, run);
});

describe("the same loop with each call in traceToolCall (the model's call id): tool spans win, each call counted once", () => {
  variantTests({}, (variant) => run(variant, { toolSpans: true }));
});
