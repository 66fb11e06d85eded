import { describe } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { openAiRuns } from '../harness/openai-guard.js';

const run = openAiRuns('openllmetry-0.22');

describe('openai 6.49 + @traceloop/instrumentation-openai 0.22.5 (flattened prompts, no call ids), hand-written loop inside traceRun', () => {
  variantTests({}, run);
});
