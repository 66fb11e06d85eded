import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyze } from '../../src/cli/analyze/analyzer.js';
import { loadRunLabels } from '../../src/cli/sweep/labels.js';
import { evaluate, hashRuns, pointConfig, replayHashedRun } from '../../src/cli/sweep/sweep.js';
import { createDigester } from '../../src/engine/hashing/digest.js';
import { TRAJECTORIES, TRAJECTORIES_MISSING, onTrajectories, runCli } from './helpers.js';

/** The recommended profile for smaller models (docs/evaluation.md). */
const RECOMMENDED = ['--enable', '--warning', '3', '--critical', '4'];
const RECOMMENDED_CONFIG = { tools: { loopDetection: { enabled: true, warningThreshold: 3, criticalThreshold: 4 } } };

const LOOPING = join(TRAJECTORIES, 'autocoderover/acr-run-1__django__django-12589.jsonl');
const LOOPING_PING_PONG = join(TRAJECTORIES, 'autocoderover/acr-run-1__psf__requests-2674.jsonl');
// Resolved SWE-agent runs that sent the same rejected `edit` 3 times with the same result.
const RESOLVED_REPEATS = [
  join(TRAJECTORIES, 'swe-agent/cost_2_1__django__django-11039.jsonl'),
  join(TRAJECTORIES, 'swe-agent/cost_2_2__django__django-11039.jsonl'),
];
// A resolved run with an A, B, A pattern: a ping-pong critical at critical 3, not at 4.
const RESOLVED_ABA = join(TRAJECTORIES, 'swe-agent/cost_2_3__django__django-13710.jsonl');

interface Run {
  id: string;
  calls: number;
  blocks: number;
  firstBlock?: { call: number; step?: number };
  events: Array<{ call: number; action: string; detector: string; count: number; toolName: string; message: string }>;
}

async function runsOf(args: string[]): Promise<Run[]> {
  const { code, stdout } = await runCli(['analyze', '--json', ...args]);
  expect(code).toBe(0);
  return (JSON.parse(stdout) as { runs: Run[] }).runs;
}

describe.skipIf(TRAJECTORIES_MISSING !== '')(onTrajectories('analyzer on real trajectories'), () => {
  it('blocks the AutoCodeRover round-limit loop at call 16 under the recommended profile', async () => {
    const [run] = await runsOf([...RECOMMENDED, LOOPING]);
    expect(run).toMatchObject({ id: LOOPING, calls: 23, firstBlock: { call: 16, step: 16 } });
    const first = run.events.find((event) => event.action === 'block')!;
    expect(first).toMatchObject({ call: 16, detector: 'generic_repeat', count: 4, toolName: '(no_valid_api_call)' });
    expect(first.message).toBe(
      'CRITICAL: Called (no_valid_api_call) with identical arguments and identical outcomes 4 times. Session execution blocked to prevent runaway loops.',
    );
    // The harness feedback repeats until the round limit: calls 16–20 are all blocked.
    expect(
      run.events.filter((e) => e.detector === 'generic_repeat' && e.action === 'block').map((e) => e.call),
    ).toEqual([16, 17, 18, 19, 20]);
  });

  it('blocks an alternation loop (ping_pong) at call 14', async () => {
    const [run] = await runsOf([...RECOMMENDED, LOOPING_PING_PONG]);
    expect(run.firstBlock).toEqual({ call: 14, step: 14 });
    expect(run.events.find((e) => e.action === 'block')).toMatchObject({ detector: 'ping_pong', count: 4 });
  });

  it('never blocks resolved runs that repeat an identical call 3 times', async () => {
    for (const run of await runsOf([...RECOMMENDED, ...RESOLVED_REPEATS, RESOLVED_ABA])) {
      expect(run.blocks, run.id).toBe(0);
    }
  });

  it('critical 3 is below the floor: an A, B, A pattern in a resolved run is blocked as ping-pong', async () => {
    const [run] = await runsOf(['--enable', '--warning', '2', '--critical', '3', RESOLVED_ABA]);
    expect(run.firstBlock).toEqual({ call: 4, step: 4 });
    expect(run.events.find((e) => e.action === 'block')).toMatchObject({
      detector: 'ping_pong',
      count: 3,
      toolName: 'bash',
    });
  });

  it('OpenClaw default thresholds block nothing here (no identical-triple run reaches 10)', async () => {
    const runs = await runsOf(['--enable', LOOPING, LOOPING_PING_PONG, ...RESOLVED_REPEATS]);
    expect(runs.reduce((total, run) => total + run.blocks, 0)).toBe(0);
  });

  it('the sweep replay of hashed calls matches the analyzer run for run', async () => {
    const labels = (await loadRunLabels(join(TRAJECTORIES, 'index.json'))).filter((label) =>
      label.file.includes('/autocoderover/acr-run-1__django__'),
    );
    expect(labels.length).toBeGreaterThan(10);
    const runs = await hashRuns(labels, await createDigester());
    const config = pointConfig(undefined, { warningThreshold: 3, criticalThreshold: 4 });
    const report = await analyze({ inputs: labels.map((label) => label.file), config: RECOMMENDED_CONFIG });
    runs.forEach((run, i) => {
      const swept = replayHashedRun(run, config);
      const analysed = report.runs[i];
      expect([analysed.calls, analysed.warnings, analysed.blocks, analysed.firstBlock?.call], run.label.id).toEqual([
        swept.calls,
        swept.warnings,
        swept.blocks,
        swept.firstBlock,
      ]);
    });
    const metrics = evaluate(runs, config);
    expect(metrics.resolved.blocked).toBe(0);
  });
});
