/**
 * OpenClaw's ladder for every detector that can block: a loop that goes on is warned about (a
 * note the model reads) before any of its calls is blocked. Each loop below is driven call by
 * call through `LoopRun.judge`, as an agent that ignores every note would drive it, and the
 * emitted verdicts of that loop's detector are listed in order.
 */
import { describe, expect, it } from 'vitest';
import type { LoopDetectionConfig } from '../../../src/config/index.js';
import { EngineHarness, type Outcome } from '../../helpers/engine-harness.js';

/** OpenClaw's rules with small thresholds, and a warning step for the unknown-tool rule. */
const LADDER: LoopDetectionConfig = {
  enabled: true,
  warningThreshold: 4,
  criticalThreshold: 8,
  unknownToolThreshold: 6,
  unknownToolWarningThreshold: 3,
  cycleCriticalLaps: 3,
  identicalCallBudget: 8,
  lowGainCallBudget: 6,
  similarOutcomeThreshold: 6,
  redundantCallBudget: 6,
};

/** {@link LADDER} with one opt-in detector on: the others would see the same loops first. */
const withOptIn = (detector: 'resultCycle' | 'identicalCallBudget' | 'similarOutcome' | 'redundantCall') => ({
  ...LADDER,
  detectors: { [detector]: true, pingPong: detector !== 'redundantCall' },
});

type Step = { tool: string; args: unknown; outcome: Outcome };

/** The emitted verdicts of `detector` over `steps`, as `level@call` (1-based), until its first critical. */
async function ladderOf(detector: string, steps: (i: number) => Step, config: LoopDetectionConfig = LADDER) {
  const h = await EngineHarness.create(config);
  const seen: string[] = [];
  for (let i = 0; i < 40 && !seen.some((s) => s.startsWith('critical')); i += 1) {
    const { tool, args, outcome } = steps(i);
    const checked = h.run(tool, args, outcome);
    if (checked.emit && checked.verdict?.detector === detector) seen.push(`${checked.verdict.level}@${i + 1}`);
  }
  return seen;
}

const firstIsWarning = (seen: string[]) => {
  expect(seen.at(-1)).toMatch(/^critical@/);
  expect(seen[0]).toMatch(/^warning@/);
};

const FEEDBACK = 'The search API calls seem not valid. Please check the arguments you give carefully and try again.';

describe('every detector warns before it blocks', () => {
  it('generic_repeat: the same call and result', async () => {
    const seen = await ladderOf('generic_repeat', () => ({
      tool: 'read',
      args: { p: 'a' },
      outcome: { result: 'same' },
    }));
    expect(seen).toEqual(['warning@5', 'critical@9']);
  });

  it('ping_pong: two calls alternating with one result each', async () => {
    const seen = await ladderOf('ping_pong', (i) =>
      i % 2 === 0
        ? { tool: 'read', args: { p: 'a' }, outcome: { result: 'A' } }
        : { tool: 'list', args: { d: '.' }, outcome: { result: 'B' } },
    );
    firstIsWarning(seen);
    expect(seen.at(-1)).toBe('critical@8');
  });

  it('known_poll_no_progress: a poll that never changes', async () => {
    const poll = { action: 'poll', sessionId: 's1' };
    const seen = await ladderOf('known_poll_no_progress', () => ({
      tool: 'process',
      args: poll,
      outcome: { result: { content: [{ type: 'text', text: 'running' }], details: { status: 'running' } } },
    }));
    expect(seen).toEqual(['warning@5', 'critical@9']);
  });

  it('unknown_tool_repeat: the same missing tool, whatever the arguments (with unknownToolWarningThreshold)', async () => {
    const seen = await ladderOf('unknown_tool_repeat', (i) => ({
      tool: 'exec',
      args: { command: `x${i}` },
      outcome: { error: 'Unknown tool: foo' },
    }));
    expect(seen).toEqual(['warning@4', 'critical@7']);
  });

  it('result_cycle: a cycle of three calls repeating its results', async () => {
    const tools = ['search', 'open', 'think'];
    const seen = await ladderOf(
      'result_cycle',
      (i) => ({ tool: tools[i % 3], args: { n: i % 3 }, outcome: { result: `r${i % 3}` } }),
      withOptIn('resultCycle'),
    );
    expect(seen).toEqual(['warning@7', 'critical@10']);
  });

  it('identical_call_budget: the same call whose result changes every time', async () => {
    const seen = await ladderOf(
      'identical_call_budget',
      (i) => ({
        tool: 'scroll_down',
        args: {},
        outcome: { result: `page ${'abcdefghijklmnopqrstuvwxyz'[i]} of the file` },
      }),
      withOptIn('identicalCallBudget'),
    );
    expect(seen).toEqual(['warning@5', 'critical@9']);
  });

  it('similar_outcome: the same explained failure to changing arguments', async () => {
    const seen = await ladderOf(
      'similar_outcome',
      (i) => ({ tool: 'search', args: { q: `q${i}` }, outcome: { error: FEEDBACK } }),
      withOptIn('similarOutcome'),
    );
    expect(seen).toEqual(['warning@4', 'critical@7']);
  });

  it('redundant_call: rereading two files that do not change', async () => {
    const seen = await ladderOf(
      'redundant_call',
      (i) => ({ tool: 'read', args: { p: i % 2 }, outcome: { result: `file ${i % 2}` } }),
      withOptIn('redundantCall'),
    );
    // One warning per call asking again (its own key), then the block at the budget.
    expect(seen).toEqual(['warning@6', 'warning@7', 'critical@9']);
  });

  it('typed_error_repeat: one typed failure across changing arguments', async () => {
    const seen = await ladderOf(
      'typed_error_repeat',
      (i) => ({ tool: 'deploy', args: { target: `t${i}` }, outcome: { error: 'failed: typed_code=QUOTA_EXCEEDED' } }),
      {
        ...LADDER,
        warningThreshold: 3,
        criticalThreshold: 8,
        typedErrorWarningThreshold: 3,
        typedErrorCriticalThreshold: 5,
      },
    );
    firstIsWarning(seen);
  });
});
