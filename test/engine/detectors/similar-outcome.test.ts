/** `similar_outcome`: the same explained failure of one tool, word for word, across changing arguments. */
import { describe, expect, it } from 'vitest';
import { EngineHarness } from '../../helpers/engine-harness.js';

const SIMILAR = { enabled: true, similarOutcomeThreshold: 4, detectors: { similarOutcome: true } } as const;
const FEEDBACK = 'The search API calls seem not valid. Please check the arguments you give carefully and try again.';

describe('similar_outcome', () => {
  it('the same feedback to changing arguments (AutoCodeRover) is blocked after the threshold', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 4; i += 1) expect(h.run('search', { query: `q${i}` }, { error: FEEDBACK }).blocked).toBe(false);
    const checked = h.check('search', { query: 'q9' });
    expect(checked.blocked).toBe(true);
    expect(checked.verdict).toMatchObject({
      level: 'critical',
      detector: 'similar_outcome',
      count: 4,
      loopSignatures: [0, 1, 2, 3].map((i) => h.argsHash('search', { query: `q${i}` })),
    });
    expect(checked.verdict!.message).toContain(
      'failed with the same error 4 times in a row even as the arguments changed',
    );
  });

  it('alike successes across changing arguments are quiet progress, not a loop', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 12; i += 1)
      expect(h.run('get_flight_status', { flight: `HAT${100 + i}` }, { result: 'available' }).blocked).toBe(false);
    for (let i = 0; i < 8; i += 1) h.run('bash', { command: `mkdir -p dir${i}` }, { result: '' });
    for (let i = 0; i < 8; i += 1)
      h.run(
        'bash',
        { command: `sed -i s/a${i}/b/ f.py` },
        { result: 'Your command ran successfully and did not produce any output.' },
      );
    expect(h.detect('bash', { command: 'touch done' })).toBeUndefined();
  });

  it('a failure too short to explain itself is no evidence, however often it repeats', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 8; i += 1) h.run('bash', { command: `grep -r pattern${i} .` }, { error: 'exit status 1' });
    for (let i = 0; i < 8; i += 1) h.run('read', { path: `/etc/secret${i}` }, { error: 'Permission denied' });
    expect(h.detect('bash', { command: 'grep -r other .' })).toBeUndefined();
    expect(h.detect('read', { path: '/etc/other' })).toBeUndefined();
  });

  it('failures that differ in any word or number are different failures', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 8; i += 1)
      h.run(
        'update_reservation_flights',
        { flight: `HAT${100 + i}` },
        { error: `Error: flight HAT${100 + i} not available on date 2024-05-2${i}` },
      );
    expect(h.detect('update_reservation_flights', { flight: 'HAT999' })).toBeUndefined();
  });

  it('a success of the same tool or another tool in between ends the streak', async () => {
    for (const between of [
      { tool: 'read', args: { path: '/a' }, result: 'a' },
      { tool: 'search', args: { query: 'found' }, result: 'Found 3 snippets containing `foo`.' },
    ]) {
      const h = await EngineHarness.create(SIMILAR);
      for (let i = 0; i < 3; i += 1) h.run('search', { query: `q${i}` }, { error: FEEDBACK });
      h.run(between.tool, between.args, { result: between.result });
      h.run('search', { query: 'q3' }, { error: FEEDBACK });
      expect(h.check('search', { query: 'q4' }).verdict).toBeUndefined();
    }
  });

  it('is off by default', async () => {
    const h = await EngineHarness.create({ enabled: true, similarOutcomeThreshold: 2 });
    for (let i = 0; i < 6; i += 1) h.run('search', { query: `q${i}` }, { error: FEEDBACK });
    expect(h.detect('search', { query: 'q9' })).toBeUndefined();
  });
});
