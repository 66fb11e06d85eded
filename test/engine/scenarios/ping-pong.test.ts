/** OpenClaw's loop-detection scenarios 23–28 (Ping-pong). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const READ = { path: '/a.txt' };
const LIST = { dir: '/workspace' };

/** n alternating pending calls read, list, read, … (i even → read). */
function alternate(h: EngineHarness, n: number, first: 'read' | 'list' = 'read'): void {
  for (let i = 0; i < n; i += 1) {
    const tool = (i % 2 === 0) === (first === 'read') ? 'read' : 'list';
    h.call(tool, tool === 'read' ? READ : LIST);
  }
}

/** n alternating completed calls starting with read; results per tool and index. */
function alternateCompleted(h: EngineHarness, n: number, result: (tool: string, i: number) => object): void {
  for (let i = 0; i < n; i += 1) {
    const tool = i % 2 === 0 ? 'read' : 'list';
    h.completed(1, tool, tool === 'read' ? READ : LIST, result(tool, i));
  }
}

const pairKey = (h: EngineHarness) =>
  `pingpong:${[h.argsHash('read', READ), h.argsHash('list', LIST)].sort().join('|')}`;

describe('ping-pong', () => {
  it('scenario 23: 9 alternating read/list calls; check list → warning ping_pong, count 10, paired read', async () => {
    const h = await EngineHarness.create(C0);
    alternate(h, 9);
    const checked = h.check('list', LIST);
    const message =
      'WARNING: You are alternating between repeated tool-call patterns (10 consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.';
    expect(checked.blocked).toBe(false);
    expect(checked.verdict).toMatchObject({
      level: 'warning',
      detector: 'ping_pong',
      count: 10,
      pairedToolName: 'read',
      pairedSignature: h.argsHash('read', READ),
      warningKey: pairKey(h),
      message,
    });
    expect(checked.verdict!.message).toContain('ping-pong loop');
    expect(h.logger.at('warn')[0]).toBe('Ping-pong loop warning: alternating calls count=10 currentTool=list');
  });

  it('scenario 24: 19 alternating calls with stable results; check list → critical ping_pong, count 20', async () => {
    const h = await EngineHarness.create(C0);
    alternateCompleted(h, 19, (tool) => R(`${tool} stable`, { ok: true }));
    const checked = h.check('list', LIST);
    const message =
      'CRITICAL: You are alternating between repeated tool-call patterns (20 consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.';
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'ping_pong',
      count: 20,
      pairedToolName: 'read',
      warningKey: pairKey(h),
      message,
    });
    expect(h.logger.at('error')).toEqual([
      'Critical ping-pong loop detected: alternating calls count=20 currentTool=list',
      `Blocking list due to critical loop: ${message}`,
    ]);
  });

  it('scenario 25: 19 alternating calls with progressing results → warning ping_pong, count 20', async () => {
    const h = await EngineHarness.create(C0);
    alternateCompleted(h, 19, (tool, i) => R(`${tool} ${i}`, { ok: true }));
    const verdict = h.detect('list', LIST);
    expect(verdict).toMatchObject({ level: 'warning', detector: 'ping_pong', count: 20, pairedToolName: 'read' });
    expect(verdict!.message).toBe(
      'WARNING: You are alternating between repeated tool-call patterns (20 consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.',
    );

    // No-progress evidence needs *both* sides stable: one progressing side
    // is enough to keep it a warning.
    for (const progressing of ['read', 'list']) {
      const oneSide = await EngineHarness.create(C0);
      alternateCompleted(oneSide, 19, (tool, i) =>
        R(tool === progressing ? `${tool} ${i}` : `${tool} stable`, { ok: true }),
      );
      expect(oneSide.detect('list', LIST)).toMatchObject({ level: 'warning', detector: 'ping_pong', count: 20 });
    }
  });

  it('scenario 26: read, list, read, write; check list → not stuck (alternation broken)', async () => {
    // W=2 makes a length-3 alternation (read, list, read + list) visible, so the test can
    // tell "broken by the write" from "too short for W".
    const lowW = { enabled: true, warningThreshold: 2 };
    const h = await EngineHarness.create(lowW);
    h.call('read', READ);
    h.call('list', LIST);
    h.call('read', READ);
    h.call('write', { path: '/tmp/out.txt' });
    expect(h.history.view().pingPong(h.argsHash('list', LIST)).count).toBe(0);
    expect(h.detect('list', LIST)).toBeUndefined();

    const control = await EngineHarness.create(lowW);
    control.call('read', READ);
    control.call('list', LIST);
    control.call('read', READ);
    expect(control.detect('list', LIST)).toMatchObject({ detector: 'ping_pong', count: 4 });

    const c0 = await EngineHarness.create(C0);
    c0.call('read', READ);
    c0.call('list', LIST);
    c0.call('read', READ);
    c0.call('write', { path: '/tmp/out.txt' });
    expect(c0.check('list', LIST).verdict).toBeUndefined();
  });

  it('scenario 27: 9 alternating calls ending with read; check read → not stuck (recentCount 5)', async () => {
    const h = await EngineHarness.create(C0);
    alternate(h, 9);
    expect(h.history.view().recentCount(h.argsHash('read', READ), 'read')).toBe(5);
    expect(h.history.view().pingPong(h.argsHash('read', READ)).count).toBe(0);
    expect(h.detect('read', READ)).toBeUndefined();
    // …whereas list continues the alternation.
    expect(h.detect('list', LIST)?.detector).toBe('ping_pong');
  });

  it('scenario 28: the ping-pong warning key is the sorted pair, whichever side is checked', async () => {
    const endsWithRead = await EngineHarness.create(C0);
    alternate(endsWithRead, 9, 'read');
    const listAfterRead = endsWithRead.detect('list', LIST);

    const endsWithList = await EngineHarness.create(C0);
    alternate(endsWithList, 9, 'list');
    const readAfterList = endsWithList.detect('read', READ);

    expect(listAfterRead).toMatchObject({ detector: 'ping_pong', pairedToolName: 'read' });
    expect(readAfterList).toMatchObject({ detector: 'ping_pong', pairedToolName: 'list' });
    expect(listAfterRead!.warningKey).toBe(readAfterList!.warningKey);
    expect(listAfterRead!.warningKey).toBe(pairKey(endsWithRead));
  });
});
