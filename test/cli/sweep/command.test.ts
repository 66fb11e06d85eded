import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { integerRange } from '../../../src/cli/options.js';
import { gridPoints } from '../../../src/cli/sweep/sweep.js';
import { TRAJECTORIES, TRAJECTORIES_MISSING, fixtureDir, jsonl, onTrajectories, runCli } from '../helpers.js';

describe('sweep grid', () => {
  it('parses ranges, steps and lists', () => {
    expect(integerRange('warning', '3..6')).toEqual([3, 4, 5, 6]);
    expect(integerRange('warning', '2..10/4')).toEqual([2, 6, 10]);
    expect(integerRange('warning', '5,3..4,5')).toEqual([3, 4, 5]);
    expect(() => integerRange('warning', '0..3')).toThrow(/bad range/);
    expect(() => integerRange('warning', 'x')).toThrow(/positive integer/);
  });

  it('crosses --set axes with every threshold pair', () => {
    const points = gridPoints({
      warning: [3],
      critical: [4, 5],
      set: [
        { key: 'similarOutcomeThreshold', values: [4, 6] },
        { key: 'identicalCallBudget', values: [5] },
      ],
    });
    expect(points.map((p) => [p.criticalThreshold, p.settings])).toEqual([
      [4, { similarOutcomeThreshold: 4, identicalCallBudget: 5 }],
      [4, { similarOutcomeThreshold: 6, identicalCallBudget: 5 }],
      [5, { similarOutcomeThreshold: 4, identicalCallBudget: 5 }],
      [5, { similarOutcomeThreshold: 6, identicalCallBudget: 5 }],
    ]);
  });

  it('skips combinations where critical does not exceed warning (or breaker critical)', () => {
    const points = gridPoints({ warning: [3, 4, 5], critical: [4, 5], breaker: [5, 30] });
    expect(points.map((p) => [p.warningThreshold, p.criticalThreshold, p.globalCircuitBreakerThreshold])).toEqual([
      [3, 4, 5],
      [3, 4, 30],
      [3, 5, 30],
      [4, 5, 30],
    ]);
  });
});

describe('sweep command', () => {
  it('reports false positives, loops blocked, how early, and warnings per setting (table and JSON)', async () => {
    const fx = fixtureDir();
    try {
      const loop = (n: number) => [
        ...Array.from({ length: n }, (_, i) => ({
          step: i + 1,
          tool: 'search',
          args: { q: 'x' },
          result: 'invalid',
          error: true,
        })),
        { step: n + 1, tool: 'done', args: {}, result: 'ok' },
      ];
      const healthy = (n: number) =>
        Array.from({ length: n }, (_, i) => ({ step: i + 1, tool: 'read', args: { i }, result: `r${i}` }));
      fx.write('loop.jsonl', jsonl(loop(8)));
      fx.write('repeats3.jsonl', jsonl([...loop(3), ...healthy(3)]));
      fx.write('healthy.jsonl', jsonl(healthy(5)));
      const index = fx.write('index.json', {
        trajectories: [
          { id: 'loop', file: 'loop.jsonl', agent: 'LoopAgent v1', resolved: false, hit_limit: true },
          { id: 'repeats3', file: 'repeats3.jsonl', agent: 'LoopAgent v1', resolved: true, hit_limit: false },
          { id: 'healthy', file: 'healthy.jsonl', agent: 'Other', resolved: true, hit_limit: false },
        ],
      });
      const { code, stdout } = await runCli([
        'sweep',
        '--index',
        index,
        '--warning',
        '2..3',
        '--critical',
        '3..5',
        '--window',
        '2..5',
        '--json',
      ]);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        runs: number;
        calls: number;
        rows: Array<{
          warningThreshold: number;
          criticalThreshold: number;
          windowSizes: number[];
          metrics: {
            resolved: { runs: number; blocked: number };
            loops: {
              runs: number;
              blocked: number;
              meanFirstBlock?: number;
              meanCallsSaved?: number;
              byAgent: unknown[];
            };
            warningsPerRun: number;
          };
        }>;
        best: { warningThreshold: number; criticalThreshold: number } | null;
        baselines: { openclawDefaultsEnabled: { loops: { blocked: number } } };
        timing: { settings: number; gridPoints: number };
      };
      expect(report).toMatchObject({ runs: 3, calls: 9 + 7 + 5 });
      // (2,3) (2,4) (2,5) (3,4) (3,5) × windows 2..5, merged: the window has no effect here.
      expect(report.timing).toEqual(expect.objectContaining({ gridPoints: 20, settings: 5 }));
      expect(report.rows.every((row) => row.windowSizes.join() === '2,3,4,5')).toBe(true);
      const row = (w: number, c: number) =>
        report.rows.find((r) => r.warningThreshold === w && r.criticalThreshold === c)!;
      // critical 3 blocks the 4th identical call: the loop (at call 4) but not the run with 3 repeats.
      expect(row(2, 3).metrics.resolved).toEqual({ runs: 2, blocked: 0, warned: 1 });
      expect(row(2, 3).metrics.loops).toMatchObject({
        runs: 1,
        blocked: 1,
        meanFirstBlock: 4,
        meanCallsSaved: 6,
        byAgent: [{ agent: 'LoopAgent', runs: 1, blocked: 1, meanFirstBlock: 4 }],
      });
      expect(row(3, 5).metrics.loops).toMatchObject({ blocked: 1, meanFirstBlock: 6, meanCallsSaved: 4 });
      expect(report.best).toMatchObject({ warningThreshold: 2, criticalThreshold: 3 });
      expect(report.baselines.openclawDefaultsEnabled.loops.blocked).toBe(0);

      const text = await runCli(['sweep', '--index', index, '--warning', '2', '--critical', '3..4']);
      expect(text.stdout).toMatch(/warn\s+crit\s+breaker\s+history\s+window\s+FP resolved\s+loops blocked/);
      expect(text.stdout).toContain('Best with 0 false positives: warning 2, critical 3, history 30');
    } finally {
      fx.cleanup();
    }
  });

  it('--set sweeps another key over a base config, one row per value', async () => {
    const fx = fixtureDir();
    try {
      const feedback = (n: number, from = 1) =>
        Array.from({ length: n }, (_, i) => ({
          step: from + i,
          tool: 'search',
          args: { q: `q${i}` },
          result: 'The search API calls seem not valid. Please check the arguments.',
          error: true,
        }));
      fx.write('loop.jsonl', jsonl(feedback(6)));
      fx.write('ok.jsonl', jsonl([...feedback(2), { step: 3, tool: 'read', args: {}, result: 'file' }]));
      const index = fx.write('index.json', {
        trajectories: [
          { id: 'loop', file: 'loop.jsonl', agent: 'A', resolved: false, hit_limit: true },
          { id: 'ok', file: 'ok.jsonl', agent: 'A', resolved: true, hit_limit: false },
        ],
      });
      const config = fx.write('base.json5', '{ tools: { loopDetection: { detectors: { similarOutcome: true } } } }');
      const args = ['sweep', '--index', index, '--warning', '3', '--critical', '4', '--config', config];
      const { code, stdout } = await runCli([...args, '--set', 'similarOutcomeThreshold=1..5', '--json']);
      expect(code).toBe(0);
      const rows = (
        JSON.parse(stdout) as {
          rows: Array<{
            settings: Record<string, number>;
            metrics: { resolved: { blocked: number }; loops: { blocked: number; meanFirstBlock?: number } };
          }>;
        }
      ).rows;
      const at = (n: number) => rows.find((row) => row.settings.similarOutcomeThreshold === n)!.metrics;
      expect(at(1).resolved.blocked).toBe(1);
      expect(at(2).resolved.blocked).toBe(0);
      expect(at(2).loops).toMatchObject({ blocked: 1, meanFirstBlock: 3 });
      expect(at(5).loops).toMatchObject({ blocked: 1, meanFirstBlock: 6 });
      const table = await runCli([...args, '--set', 'similarOutcomeThreshold=2']);
      expect(table.stdout).toMatch(/settings\s+warn\s+crit/);
      expect(table.stdout).toContain('similarOutcomeThreshold=2');
      expect((await runCli([...args, '--set', 'historySize=3'])).code).toBe(2);
      expect((await runCli([...args, '--set', 'similarOutcomeThreshold'])).code).toBe(2);
    } finally {
      fx.cleanup();
    }
  });

  it('exits 2 without --index or with an empty grid', async () => {
    expect((await runCli(['sweep'])).code).toBe(2);
    const fx = fixtureDir();
    try {
      const index = fx.write('index.json', { trajectories: [] });
      expect((await runCli(['sweep', '--index', index, '--warning', '5', '--critical', '3'])).code).toBe(2);
    } finally {
      fx.cleanup();
    }
  });

  const present = TRAJECTORIES_MISSING === '';
  it.skipIf(!present)(
    onTrajectories('sweeps every indexed trajectory over the documented grid within a minute'),
    async () => {
      const index = join(TRAJECTORIES, 'index.json');
      const { n_trajectories: count } = JSON.parse(readFileSync(index, 'utf8')) as { n_trajectories: number };
      const started = performance.now();
      const args = [
        'sweep',
        '--index',
        index,
        '--warning',
        '3..10',
        '--critical',
        '4..20',
        '--window',
        '2..5',
        '--json',
      ];
      const { code, stdout } = await runCli(args);
      expect(code).toBe(0);
      const report = JSON.parse(stdout) as {
        runs: number;
        baselines: { openclawDefaultsEnabled: { resolved: { blocked: number } } };
        rows: unknown[];
      };
      expect(report.runs).toBe(count);
      expect(report.baselines.openclawDefaultsEnabled.resolved.blocked).toBe(0);
      expect(report.rows.length).toBeGreaterThan(100);
      expect(performance.now() - started).toBeLessThan(60_000);
    },
    120_000,
  );
});
