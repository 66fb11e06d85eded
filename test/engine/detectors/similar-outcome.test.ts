/** `similar_outcome`: near-duplicate outcomes of one tool across arguments, with volatile fields masked. */
import { describe, expect, it } from 'vitest';
import { EngineHarness } from '../../helpers/engine-harness.js';

const SIMILAR = {
  enabled: true,
  similarOutcomeThreshold: 4,
  volatileFieldObservations: 3,
  detectors: { similarOutcome: true },
} as const;
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
    expect(checked.verdict!.message).toContain('even as the arguments changed');
    expect(checked.verdict!.maskedFields).toBeUndefined();
  });

  it('near-duplicates that differ in numbers only count as the same outcome', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 4; i += 1)
      h.run(
        'edit',
        { line: i },
        {
          error: `Your edit introduced syntax error E999 at line ${300 + i}: unexpected indent. Fix the indentation and retry the edit command.`,
        },
      );
    expect(h.detect('edit', { line: 9 })?.detector).toBe('similar_outcome');
  });

  it('results with new content are never similar', async () => {
    const h = await EngineHarness.create(SIMILAR);
    const words = ['apple', 'river', 'stone', 'cloud', 'ember', 'frost', 'grove', 'harbor'];
    for (let i = 0; i < 8; i += 1)
      expect(
        h.run(
          'search',
          { query: words[i] },
          { result: `found ${words[i]} in module ${words[(i + 3) % 8]} near ${words[(i + 5) % 8]}` },
        ).blocked,
      ).toBe(false);
  });

  it('another tool in between ends the streak', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 3; i += 1) h.run('search', { query: `q${i}` }, { error: FEEDBACK });
    h.run('read', { path: '/a' }, { result: 'a' });
    h.run('search', { query: 'q3' }, { error: FEEDBACK });
    expect(h.detect('search', { query: 'q4' })).toBeUndefined();
  });

  it('learns the fields that change on every call, masks them, and reports the mask', async () => {
    const h = await EngineHarness.create(SIMILAR);
    const status = (i: number) => ({
      result: { state: 'queued', position: 3, requestId: `req-${i}-${'x'.repeat(i)}`, at: `2026-12-01T12:0${i}:00Z` },
    });
    for (let i = 0; i < 4; i += 1) expect(h.run('job_status', { id: i }, status(i)).blocked).toBe(false);
    const checked = h.check('job_status', { id: 9 });
    expect(checked.verdict).toMatchObject({ detector: 'similar_outcome', count: 4, maskedFields: ['at', 'requestId'] });
    expect(checked.verdict!.message).toContain('volatile fields ignored: at, requestId');
  });

  it('a field is masked only once it changed on every one of the observed calls', async () => {
    const h = await EngineHarness.create({ ...SIMILAR, volatileFieldObservations: 5 });
    for (let i = 0; i < 4; i += 1)
      h.run('job_status', { id: i }, { result: { state: 'queued', requestId: `req-${i}-${'y'.repeat(i * 7)}` } });
    expect(h.detect('job_status', { id: 9 })).toBeUndefined();
  });

  it('fields that all change are no evidence of a stuck tool', async () => {
    const h = await EngineHarness.create(SIMILAR);
    for (let i = 0; i < 8; i += 1)
      h.run('clock', {}, { result: { requestId: `r${i}${'z'.repeat(i * 5)}`, at: `t${i}${'w'.repeat(i * 3)}` } });
    expect(h.detect('clock', {})).toBeUndefined();
  });

  it('is off by default', async () => {
    const h = await EngineHarness.create({ enabled: true, similarOutcomeThreshold: 2 });
    for (let i = 0; i < 6; i += 1) h.run('search', { query: `q${i}` }, { error: FEEDBACK });
    expect(h.detect('search', { query: 'q9' })).toBeUndefined();
  });
});
