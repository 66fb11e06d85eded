/** `generic_repeat` with `genericRepeatInARow`: only identical calls made back to back are a repeat. */
import { describe, expect, it } from 'vitest';
import { EngineHarness, type Outcome } from '../../helpers/engine-harness.js';

const OPENCLAW = { enabled: true, warningThreshold: 4, criticalThreshold: 8 } as const;
const IN_A_ROW = { ...OPENCLAW, genericRepeatInARow: true } as const;

/** The emitted generic_repeat verdicts, as `level@call`. */
async function repeats(
  config: object,
  n: number,
  step: (i: number) => { tool: string; args: unknown; outcome: Outcome },
) {
  const h = await EngineHarness.create({ ...config, detectors: { pingPong: false } });
  const seen: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const { tool, args, outcome } = step(i);
    const checked = h.run(tool, args, outcome);
    if (checked.emit && checked.verdict?.detector === 'generic_repeat') seen.push(`${checked.verdict.level}@${i + 1}`);
  }
  return seen;
}

/** An edit (new each time), then the same failing test run: a coding agent at work. */
const editThenTest = (i: number) =>
  i % 2 === 0
    ? { tool: 'edit', args: { file: 'a.py', patch: `attempt ${i}` }, outcome: { result: `edited (${i})` } }
    : { tool: 'bash', args: { command: 'pytest tests/test_a.py' }, outcome: { result: '1 failed: test_a' } };

describe('generic_repeat in a row', () => {
  it("OpenClaw's rule counts the same test run between edits as a repeat, warns and blocks it", async () => {
    const seen = await repeats(OPENCLAW, 24, editThenTest);
    expect(seen[0]).toMatch(/^warning@/);
    expect(seen).toContain('critical@18');
  });

  it('in a row, rerunning the tests between edits is work: no warning, no block', async () => {
    expect(await repeats(IN_A_ROW, 40, editThenTest)).toEqual([]);
  });

  it('the same call sent back to back with the same outcome is warned, then blocked, and vetoes keep counting', async () => {
    const transfer = () => ({
      tool: 'transfer_to_human_agents',
      args: { summary: 's' },
      outcome: { result: 'Transfer successful' },
    });
    expect(await repeats(IN_A_ROW, 12, transfer)).toEqual([
      'warning@5',
      'critical@9',
      'critical@10',
      'critical@11',
      'critical@12',
    ]);
  });

  it('a new outcome ends the streak; so does any other call in between', async () => {
    const h = await EngineHarness.create(IN_A_ROW);
    for (let i = 0; i < 6; i += 1) h.run('read', { p: 'a' }, { result: 'same' });
    h.run('read', { p: 'a' }, { result: 'changed' });
    expect(h.check('read', { p: 'a' }).verdict).toBeUndefined();
    for (let i = 0; i < 6; i += 1) h.run('read', { p: 'a' }, { result: 'changed' });
    h.run('list', { d: '.' }, { result: 'a b' });
    expect(h.check('read', { p: 'a' }).verdict).toBeUndefined();
  });
});
