/** `ping_pong` with `pingPongRequiresNoProgress`: an alternation is a loop only when it shows no progress. */
import { describe, expect, it } from 'vitest';
import { EngineHarness, type Outcome } from '../../helpers/engine-harness.js';

const OPENCLAW = { enabled: true, warningThreshold: 4, criticalThreshold: 8 } as const;
const STRICT = { ...OPENCLAW, pingPongRequiresNoProgress: true } as const;

/** The emitted ping_pong verdicts, as `level@call`, over `n` alternating calls. */
async function pingPongs(
  config: object,
  n: number,
  side: (i: number) => { tool: string; args: unknown; outcome: Outcome },
) {
  const h = await EngineHarness.create(config);
  const seen: string[] = [];
  for (let i = 0; i < n; i += 1) {
    const { tool, args, outcome } = side(i);
    const checked = h.run(tool, args, outcome);
    if (checked.emit && checked.verdict?.detector === 'ping_pong') seen.push(`${checked.verdict.level}@${i + 1}`);
  }
  return seen;
}

/** Edit, then run the tests: the tests' output changes every lap. */
const editAndTest = (i: number) =>
  i % 2 === 0
    ? { tool: 'edit', args: { file: 'a.py', patch: 'fix' }, outcome: { result: 'File updated.' } }
    : { tool: 'bash', args: { command: 'pytest' }, outcome: { result: `${20 - i} failed, ${i} passed` } };

describe('ping_pong that requires no-progress evidence', () => {
  it("OpenClaw's rule warns on an edit / run-tests alternation whose test results change", async () => {
    expect(await pingPongs(OPENCLAW, 12, editAndTest)).toEqual(['warning@4', 'warning@8', 'warning@12']);
  });

  it('with pingPongRequiresNoProgress the same alternation is progress: no warning, no block', async () => {
    expect(await pingPongs(STRICT, 24, editAndTest)).toEqual([]);
  });

  it('an alternation whose both sides repeat one result still warns, then blocks, counted per side', async () => {
    const stuck = (i: number) =>
      i % 2 === 0
        ? { tool: 'edit', args: { file: 'a.py', patch: 'fix' }, outcome: { error: 'Your edit could not be applied.' } }
        : { tool: 'bash', args: { command: 'pytest' }, outcome: { result: '3 failed, 17 passed' } };
    // Counted as generic_repeat counts, by the repeats of each side: warned at 8 alternating calls
    // (each side 4 times), blocked at 16 — OpenClaw's rule blocks at 8 calls, each side 4 times.
    expect(await pingPongs(STRICT, 20, stuck)).toEqual(['warning@8', 'critical@16']);
    expect((await pingPongs(OPENCLAW, 20, stuck)).slice(0, 2)).toEqual(['warning@4', 'critical@8']);
  });

  it('a write that changed its target between the laps is progress, even with stable results', async () => {
    const writeAndRead = (i: number) =>
      i % 2 === 0
        ? {
            tool: 'write',
            args: { path: 'notes.md', content: 'draft' },
            outcome: { result: { content: [{ type: 'text', text: 'written' }], details: { changed: true } } },
          }
        : { tool: 'read', args: { path: 'notes.md' }, outcome: { result: 'draft' } };
    expect(await pingPongs(STRICT, 16, writeAndRead)).toEqual([]);
    expect(await pingPongs(OPENCLAW, 16, writeAndRead)).toContain('critical@8');
  });
});
