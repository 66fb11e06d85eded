/** `tool-loop-guard evaluate`: configs per agent set-up, and the calibration rule on set-ups it never saw. */
import { describe, expect, it } from 'vitest';
import { longestOutcomeStreak } from '../../../src/cli/evaluate/loop-start.js';
import { setupNames } from '../../../src/cli/evaluate/setups.js';
import { CallSequence } from '../../../src/cli/replay/call-sequence.js';
import type { RunLabel } from '../../../src/cli/sweep/labels.js';
import { digester } from '../../helpers/engine-harness.js';
import { fixtureDir, jsonl, runCli } from '../helpers.js';

const step = (n: number, tool: string, args: object, result: string, error = false) => ({
  step: n,
  tool,
  args,
  result,
  error,
});

describe('evaluate', () => {
  it("a loop begins at the run's longest streak of one tool's calls with one outcome", async () => {
    const sequence = new CallSequence('run');
    const d = await digester();
    const calls = [
      step(1, 'read', { p: 1 }, 'a'),
      step(2, 'read', { p: 2 }, 'a'),
      step(3, 'search', { q: 1 }, 'x'),
      ...[4, 5, 6, 7].map((n) => step(n, 'transfer', { n }, 'Transfer successful')),
      step(8, 'read', { p: 3 }, 'b'),
    ];
    calls.forEach((call, i) => sequence.add(d, { ...call, line: i + 1, synthetic: false }));
    expect(longestOutcomeStreak(sequence.calls)).toEqual({ start: 4, length: 4 });
  });

  it('names a set-up by its own folder, else by the file prefix its runs share', () => {
    const label = (file: string, setup: string): RunLabel => ({
      id: file,
      file,
      agent: 'x',
      setup,
      resolved: true,
      hitLimit: false,
    });
    const names = setupNames([
      label('/d/swe-agent/cost_2_1__a.jsonl', 'SWE-agent / gpt-4'),
      label('/d/swe-agent/cost_2_3__b.jsonl', 'SWE-agent / gpt-4'),
      label('/d/tau2/gpt-oss__airline__task1.jsonl', 'LangGraph / gpt-oss'),
      label('/d/tau2/o3__airline__task1.jsonl', 'IronForge / o3'),
      label('/d/tau2/o3-mini__x.jsonl', 'IronForge / o3-mini'),
      label('/d/tau2/mixed-a__x.jsonl', 'Mixed / m'),
      label('/d/tau2/mixed-b__x.jsonl', 'Mixed / m'),
    ]);
    expect(Object.fromEntries(names)).toEqual({
      'SWE-agent / gpt-4': 'swe-agent',
      'LangGraph / gpt-oss': 'gpt-oss',
      'IronForge / o3': 'o3',
      'IronForge / o3-mini': 'o3-mini',
      'Mixed / m': 'Mixed / m',
    });
  });

  it('scores configs per set-up and leaves each set-up out of the rule', async () => {
    const fx = fixtureDir();
    try {
      const transfers = (n: number) =>
        jsonl([
          step(1, 'get', { id: 1 }, 'found'),
          ...Array.from({ length: n }, (_, i) => step(i + 2, 'transfer', { to: 'human' }, 'Transfer successful')),
        ]);
      fx.write('a-ok.jsonl', transfers(6));
      fx.write('a-loop.jsonl', transfers(30));
      fx.write('b-ok.jsonl', jsonl([step(1, 'read', { p: 1 }, 'x'), step(2, 'read', { p: 2 }, 'y')]));
      const index = fx.write('index.json', {
        trajectories: [
          { id: 'a-ok', file: 'a-ok.jsonl', agent: 'Agent A', model: 'm1', resolved: true, hit_limit: false },
          { id: 'a-loop', file: 'a-loop.jsonl', agent: 'Agent A', model: 'm1', resolved: false, hit_limit: true },
          { id: 'b-ok', file: 'b-ok.jsonl', agent: 'Agent B', model: 'm2', resolved: true, hit_limit: false },
        ],
      });
      const profile = fx.write('p.json5', "{ tools: { loopDetection: { profile: 'small-model' } } }");
      const { code, stdout, stderr } = await runCli(['evaluate', '--index', index, '--config', profile]);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const section = (name: string) =>
        stdout.split(`<!-- evaluate:${name} -->`)[1].split(`<!-- /evaluate:${name} -->`)[0];
      // OpenClaw's defaults block the transfer loop 20 calls in; the profile 10 calls in, after a warning.
      expect(section('profile:openclaw-defaults')).toContain(
        '| Agent A / m1 | 1 | 0/1 | 0/1 | 0/1 | 1 | 1/1 | 0/1 | 20 (20) |',
      );
      expect(section('profile:p')).toContain('| Agent A / m1 | 1 | 0/1 | 0/1 | 0/1 | 1 | 1/1 | 1/1 | 10 (10) |');
      expect(section('leave-one-out')).toMatch(
        /\| Agent A \/ m1 \| W8\/C10, failure 8\/10 \| 0\/1 \| 0\/1 \| 0\/1 \| 1\/1 \| 1\/1 \|/,
      );
      expect(section('detectors')).toContain('| `generic_repeat` | on | 1 (`a-loop`)');
      expect(section('rule-profile')).toContain('criticalThreshold: 10,');
      expect((await runCli(['evaluate'])).code).toBe(2);
      expect((await runCli(['evaluate', '--index', index, '--margin', '0'])).code).toBe(2);
    } finally {
      fx.cleanup();
    }
  });
});
