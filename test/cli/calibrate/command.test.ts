/** `tool-loop-guard calibrate`: a profile from healthy runs that blocks none of them. */
import JSON5 from 'json5';
import { describe, expect, it } from 'vitest';
import type { ToolLoopGuardConfig } from '../../../src/config/types.js';
import { fixtureDir, jsonl, loopSpans, otlpDocument, runCli } from '../helpers.js';

/** A healthy trajectory: `n` identical status polls (same result), then some distinct reads. */
const polls = (n: number) =>
  jsonl([
    ...Array.from({ length: n }, (_, i) => ({ step: i + 1, tool: 'poll_status', args: { job: 7 }, result: 'queued' })),
    ...Array.from({ length: 4 }, (_, i) => ({
      step: n + i + 1,
      tool: 'read',
      args: { path: `/f${i}` },
      result: `file ${i}`,
    })),
  ]);

/** A healthy trajectory that gets the same explained error twice from a search, then finds something. */
const failures = jsonl([
  {
    step: 1,
    tool: 'search',
    args: { q: 'a' },
    result: 'The search API calls seem not valid. Please check them.',
    error: true,
  },
  {
    step: 2,
    tool: 'search',
    args: { q: 'b' },
    result: 'The search API calls seem not valid. Please check them.',
    error: true,
  },
  { step: 3, tool: 'search', args: { q: 'c' }, result: 'Found class Foo in foo.py' },
]);

describe('tool-loop-guard calibrate', () => {
  it('prints a profile that blocks none of the runs it was calibrated on, with the evidence of each threshold', async () => {
    const fx = fixtureDir();
    try {
      fx.write('poll-9.jsonl', polls(9));
      fx.write('poll-4.jsonl', polls(4));
      fx.write('failures.jsonl', failures);
      fx.write(
        'otlp.json',
        otlpDocument('0af7651916cd43dd8448eb211c80319c', loopSpans(6, { tool: 'list', runId: 'r1' })),
      );
      for (const extra of [[], ['--no-floors'], ['--no-floors', '--margin', '1']]) {
        const { code, stdout, stderr } = await runCli(['calibrate', ...extra, fx.dir]);
        expect(stderr).toBe('');
        expect(code).toBe(0);
        const profile = JSON5.parse<ToolLoopGuardConfig>(stdout);
        const block = profile.tools!.loopDetection!;
        if (extra.length === 0) {
          // poll_status repeats 9 times: it stands out, and gets thresholds of its own.
          expect(block).toMatchObject({ criticalThreshold: 10, byTool: { poll_status: { criticalThreshold: 11 } } });
          expect(stdout).toMatch(
            /highest 8 identical calls in a row with identical outcomes \(.*poll-9\.jsonl, call 9, poll_status\)/,
          );
        }
        const config = fx.write(`profile${extra.join('')}.json5`, stdout);
        const analyzed = await runCli(['analyze', '--json', '--config', config, fx.dir]);
        const report = JSON.parse(analyzed.stdout) as { totals: { runs: number; blocks: number; warnings: number } };
        expect(report.totals.runs).toBe(4);
        expect(report.totals.blocks, `blocks with ${extra.join(' ') || 'the defaults'}`).toBe(0);
        expect(report.totals.warnings).toBe(0);
      }
    } finally {
      fx.cleanup();
    }
  });

  it('a run repeating more than the calibration runs did is warned, then blocked', async () => {
    const fx = fixtureDir();
    try {
      fx.write('healthy.jsonl', polls(4));
      const { stdout } = await runCli(['calibrate', '--no-floors', fx.dir]);
      const config = fx.write('profile.json5', stdout);
      const looping = fx.write('looping.jsonl', polls(12));
      const analyzed = await runCli(['analyze', '--json', '--config', config, looping]);
      const [run] = (JSON.parse(analyzed.stdout) as { runs: Array<{ events: Array<{ level: string; call: number }> }> })
        .runs;
      expect(run.events[0]).toMatchObject({ level: 'warning' });
      expect(run.events.some((event) => event.level === 'critical')).toBe(true);
    } finally {
      fx.cleanup();
    }
  });

  it('refuses a missing input, a bad margin and an unknown format, with exit code 2', async () => {
    expect((await runCli(['calibrate'])).code).toBe(2);
    expect((await runCli(['calibrate', '--margin', '-1', '.'])).code).toBe(2);
    expect((await runCli(['calibrate', '--margin', '0', '.'])).code).toBe(2);
    expect((await runCli(['calibrate', '--format', 'csv', '.'])).code).toBe(2);
    const fx = fixtureDir();
    try {
      const empty = await runCli(['calibrate', fx.dir]);
      expect(empty.code).toBe(2);
      expect(empty.stderr).toContain('no run with a tool call');
    } finally {
      fx.cleanup();
    }
  });

  it('documents every option in --help', async () => {
    const { code, stdout } = await runCli(['calibrate', '--help']);
    expect(code).toBe(0);
    for (const option of ['--margin', '--no-floors', '--shared-only', '--format', '--skip-synthetic', '--history'])
      expect(stdout).toContain(option);
  });
});
