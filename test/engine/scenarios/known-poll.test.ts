/** OpenClaw's loop-detection scenarios 15–22 (Known poll). */
import { describe, expect, it } from 'vitest';
import { C0, EngineHarness, R } from '../../helpers/engine-harness.js';

const POLL = { action: 'poll', sessionId: 'sess-1' };
const STILL_RUNNING = R('(no new output)\n\nProcess still running.', { status: 'running', aggregated: 'steady' });

const pollWarning = (tool: string, n: number) =>
  `WARNING: You have called ${tool} ${n} times with identical arguments and no progress. Stop polling and either (1) increase wait time between checks, or (2) report the task as failed if the process is stuck.`;
const pollCritical = (tool: string, n: number) =>
  `CRITICAL: Called ${tool} with identical arguments and no progress ${n} times. This appears to be a stuck polling loop. Session execution blocked to prevent resource waste.`;

const ALL_OFF = { genericRepeat: false, knownPollNoProgress: false, pingPong: false };

describe('known poll', () => {
  it('scenario 15: 10 identical process polls → warning known_poll_no_progress', async () => {
    const h = await EngineHarness.create(C0);
    expect(h.sig('process', POLL).knownPoll).toBe(true);
    h.completed(10, 'process', POLL, STILL_RUNNING);
    const checked = h.check('process', POLL);
    const argsHash = h.argsHash('process', POLL);
    const resultHash = h.resultHash('process', POLL, STILL_RUNNING);
    expect(checked.blocked).toBe(false);
    expect(checked.verdict).toMatchObject({
      level: 'warning',
      detector: 'known_poll_no_progress',
      count: 10,
      message: pollWarning('process', 10),
      warningKey: `poll:process:${argsHash}:${resultHash}`,
    });
    expect(checked.verdict!.message).toContain('no progress');
    expect(h.logger.at('warn')[0]).toBe('Polling loop warning: process repeated 10 times');
  });

  it('scenario 16: 20 identical process polls → critical known_poll_no_progress', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(20, 'process', POLL, STILL_RUNNING);
    const checked = h.check('process', POLL);
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'known_poll_no_progress',
      count: 20,
      message: pollCritical('process', 20),
    });
    expect(checked.verdict!.message).toContain('CRITICAL');
    expect(h.logger.at('error')).toEqual([
      'Critical polling loop detected: process repeated 20 times',
      `Blocking process due to critical loop: ${pollCritical('process', 20)}`,
    ]);
  });

  it('scenario 17: 25 polls with progressing output → not stuck (no generic warnings for polls)', async () => {
    const h = await EngineHarness.create(C0);
    h.completed(25, 'process', POLL, (i) => R(`line ${i}`, { status: 'running', aggregated: `line ${i}` }));
    expect(h.records()).toHaveLength(25);
    expect(h.records().every((r) => r.resultHash !== undefined)).toBe(true);
    expect(new Set(h.records().map((r) => r.resultHash)).size).toBe(25);
    expect(h.check('process', POLL).verdict).toBeUndefined();
  });

  it('scenario 18: W2/C4 with only knownPollNoProgress → warning after 2, critical after 4', async () => {
    const h = await EngineHarness.create({
      enabled: true,
      warningThreshold: 2,
      criticalThreshold: 4,
      detectors: { genericRepeat: false, knownPollNoProgress: true, pingPong: false },
    });
    h.completed(1, 'process', POLL, STILL_RUNNING);
    expect(h.detect('process', POLL)).toBeUndefined();
    h.completed(1, 'process', POLL, STILL_RUNNING);
    expect(h.detect('process', POLL)).toMatchObject({ level: 'warning', detector: 'known_poll_no_progress', count: 2 });
    h.completed(2, 'process', POLL, STILL_RUNNING);
    expect(h.detect('process', POLL)).toMatchObject({
      level: 'critical',
      detector: 'known_poll_no_progress',
      count: 4,
      message: pollCritical('process', 4),
    });
  });

  it('scenario 19: all detectors off → 20 identical polls not stuck; 30 → critical global_circuit_breaker', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: ALL_OFF });
    h.completed(20, 'process', POLL, STILL_RUNNING);
    expect(h.detect('process', POLL)).toBeUndefined();
    h.completed(10, 'process', POLL, STILL_RUNNING);
    const verdict = h.detect('process', POLL);
    expect(verdict).toMatchObject({ level: 'critical', detector: 'global_circuit_breaker', count: 30 });
    expect(verdict!.message).toBe(
      'CRITICAL: process has repeated identical no-progress outcomes 30 times. Session execution blocked by global circuit breaker to prevent runaway loops.',
    );
  });

  it('scenario 20: 10 identical command_status{id:"x"} → warning known_poll_no_progress', async () => {
    const h = await EngineHarness.create(C0);
    const params = { id: 'x' };
    expect(h.sig('command_status', params).knownPoll).toBe(true);
    h.completed(10, 'command_status', params, STILL_RUNNING);
    expect(h.detect('command_status', params)).toMatchObject({
      level: 'warning',
      detector: 'known_poll_no_progress',
      count: 10,
      message: pollWarning('command_status', 10),
    });
  });

  it('scenario 21: 10 identical process{action:"list"} → warning generic_repeat (list is not a poll)', async () => {
    const h = await EngineHarness.create(C0);
    const params = { action: 'list' };
    expect(h.sig('process', params).knownPoll).toBe(false);
    expect(h.sig('process', { action: 'log' }).knownPoll).toBe(true);
    h.completed(10, 'process', params, STILL_RUNNING);
    expect(h.detect('process', params)).toMatchObject({ level: 'warning', detector: 'generic_repeat', count: 10 });
  });

  it('scenario 22: knownPollNoProgress off, 20 identical polls → not stuck', async () => {
    const h = await EngineHarness.create({ enabled: true, detectors: { knownPollNoProgress: false } });
    h.completed(20, 'process', POLL, STILL_RUNNING);
    expect(h.detect('process', POLL)).toBeUndefined();
    // Contrast: with the detector on, the same history is critical.
    const on = await EngineHarness.create(C0);
    on.completed(20, 'process', POLL, STILL_RUNNING);
    expect(on.detect('process', POLL)?.level).toBe('critical');
  });
});
