import { diag, DiagLogLevel } from '@opentelemetry/api';
import { describe, expect, it } from 'vitest';
import { variantTests } from '../harness/acceptance.js';
import { openAiRuns } from '../harness/openai-guard.js';

const run = openAiRuns('openinference');

describe('openai 6.49 + @arizeai/openinference-instrumentation-openai 4.2.7 (LLM spans only), hand-written loop inside traceRun', () => {
  variantTests({}, run);

  it("with the SDK's default attribute limit the output messages are dropped after ~17 turns: not stopped, and the guard says why", async () => {
    const warnings: string[] = [];
    const keep = (...args: unknown[]) => warnings.push(args.map(String).join(' '));
    diag.setLogger({ error: keep, warn: keep, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
    try {
      const result = await run('loop', { spanLimits: {} });
      expect(result.body.executions).toBe(30);
      expect(result.harness.events.filter((event) => event.level === 'critical')).toEqual([]);
      const dropped = result.harness.exported().filter((span) => span.droppedAttributesCount > 0);
      expect(dropped.length).toBeGreaterThan(0);
      expect(warnings.filter((line) => line.includes('attributeCountLimit'))).toHaveLength(1);
    } finally {
      diag.disable();
    }
  });
});
