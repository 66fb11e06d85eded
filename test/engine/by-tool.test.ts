/** `byTool`: a tool whose healthy repeats differ is judged with its own thresholds. */
import { describe, expect, it } from 'vitest';
import { mergeLoopDetectionConfig } from '../../src/config/index.js';
import { EngineHarness } from '../helpers/engine-harness.js';

describe('byTool thresholds', () => {
  it("a tool's own critical applies to its calls; every other tool keeps the block's", async () => {
    const h = await EngineHarness.create({
      enabled: true,
      warningThreshold: 3,
      criticalThreshold: 5,
      byTool: { poll_status: { warningThreshold: 8, criticalThreshold: 12 } },
    });
    const firstCritical = (tool: string) => {
      for (let i = 1; i <= 20; i += 1) if (h.run(tool, { id: 1 }, { result: 'pending' }).blocked) return i;
      return undefined;
    };
    expect(firstCritical('read')).toBe(6);
    expect(firstCritical('poll_status')).toBe(13);
  });

  it("an agent's byTool entries are merged over the global ones, key by key", () => {
    const merged = mergeLoopDetectionConfig(
      { byTool: { a: { criticalThreshold: 9, warningThreshold: 4 }, b: { criticalThreshold: 7 } } },
      { byTool: { a: { criticalThreshold: 11 }, c: { warningThreshold: 2 } } },
    );
    expect({ ...merged?.byTool }).toEqual({
      a: { criticalThreshold: 11, warningThreshold: 4 },
      b: { criticalThreshold: 7 },
      c: { warningThreshold: 2 },
    });
  });
});
