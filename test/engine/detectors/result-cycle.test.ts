/** `result_cycle`: cycles of 2–5 calls that repeat arguments and results, and per-cycle breaking. */
import { describe, expect, it } from 'vitest';
import { EngineHarness } from '../../helpers/engine-harness.js';

const CYCLES = { enabled: true, cycleCriticalLaps: 2, detectors: { resultCycle: true, pingPong: false } } as const;

/** Calls A→B→C… by index: member `i % period`, each returning its own fixed result. */
function member(i: number, period: number) {
  const n = i % period;
  return { tool: `tool${n}`, params: { n }, outcome: { result: `result of ${n}` } };
}

describe('result_cycle', () => {
  for (const period of [2, 3, 4, 5]) {
    it(`period ${period}: blocked when the call would start lap 3 after 2 full laps with the same results`, async () => {
      const h = await EngineHarness.create(CYCLES);
      for (let i = 0; i < 2 * period; i += 1) {
        const m = member(i, period);
        expect(h.run(m.tool, m.params, m.outcome).blocked).toBe(false);
      }
      const next = member(2 * period, period);
      const checked = h.check(next.tool, next.params);
      expect(checked.blocked).toBe(true);
      expect(checked.verdict).toMatchObject({
        level: 'critical',
        detector: 'result_cycle',
        period,
        count: 2 * period + 1,
        loopSignatures: Array.from({ length: period }, (_, n) => h.argsHash(`tool${n}`, { n })),
      });
      expect(checked.verdict!.message).toContain(`cycle of ${period} tool calls`);
    });
  }

  it('is not critical one call earlier (2 laps minus one record)', async () => {
    const h = await EngineHarness.create(CYCLES);
    for (let i = 0; i < 5; i += 1) h.run(member(i, 3).tool, member(i, 3).params, member(i, 3).outcome);
    const next = member(5, 3);
    expect(h.detect(next.tool, next.params)).toBeUndefined();
  });

  it('needs each position to repeat its result: a changing result is no cycle', async () => {
    const h = await EngineHarness.create(CYCLES);
    for (let i = 0; i < 12; i += 1) {
      const m = member(i, 2);
      h.run(m.tool, m.params, { result: m.tool === 'tool0' ? `page ${i}` : 'same' });
    }
    expect(h.detect('tool0', { n: 0 })).toBeUndefined();
  });

  it('per-cycle breaking: after the block, switching to another member is blocked too', async () => {
    const h = await EngineHarness.create(CYCLES);
    for (let i = 0; i < 6; i += 1) h.run(member(i, 3).tool, member(i, 3).params, member(i, 3).outcome);
    expect(h.run('tool0', { n: 0 }, { result: 'result of 0' }).blocked).toBe(true);
    // The agent skips ahead to the third member instead of the expected second one.
    const switched = h.run('tool2', { n: 2 }, { result: 'result of 2' });
    expect(switched.blocked).toBe(true);
    expect(switched.verdict).toMatchObject({ detector: 'result_cycle', count: 8 });
    expect(h.run('tool1', { n: 1 }, { result: 'result of 1' }).blocked).toBe(true);
  });

  it('a call outside the cycle escapes it; members run again afterwards', async () => {
    const h = await EngineHarness.create(CYCLES);
    for (let i = 0; i < 6; i += 1) h.run(member(i, 3).tool, member(i, 3).params, member(i, 3).outcome);
    expect(h.run('tool0', { n: 0 }, { result: 'result of 0' }).blocked).toBe(true);
    expect(h.run('other', {}, { result: 'something new' }).blocked).toBe(false);
    expect(h.run('tool0', { n: 0 }, { result: 'result of 0' }).blocked).toBe(false);
  });

  it('is off by default and with OpenClaw defaults', async () => {
    for (const block of [{ enabled: true }, { enabled: true, cycleCriticalLaps: 2 }]) {
      const h = await EngineHarness.create(block);
      for (let i = 0; i < 12; i += 1) h.run(member(i, 3).tool, member(i, 3).params, member(i, 3).outcome);
      expect(h.detect('tool0', { n: 0 })?.detector).not.toBe('result_cycle');
    }
  });

  it('leaves known polls to known_poll_no_progress', async () => {
    const h = await EngineHarness.create(CYCLES);
    const poll = { action: 'poll', sessionId: 's' };
    for (let i = 0; i < 4; i += 1) {
      h.run('process', poll, { result: 'running' });
      h.run('read', { path: '/log' }, { result: 'log' });
    }
    expect(h.detect('process', poll)?.detector).not.toBe('result_cycle');
  });
});
