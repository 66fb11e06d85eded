/**
 * The recommended profile on the shared evaluation data (../shared/trajectories; skipped, with
 * a note, when absent): it is what the calibration rule gives, it blocks and warns no
 * successful run on any set-up or on a set-up left out of the rule, and a profile calibrated on
 * some set-ups blocks none of their runs and none of the others' successful runs.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { calibrate } from '../../../src/cli/calibrate/calibration-rule.js';
import {
  evaluationRuns,
  leaveOneOut,
  ruleProfile,
  scoreBySetup,
  scoreRun,
  type EvaluationRun,
} from '../../../src/cli/evaluate/evaluation.js';
import { loadRunLabels } from '../../../src/cli/sweep/labels.js';
import { hashRuns } from '../../../src/cli/sweep/sweep.js';
import { resolveLoopDetectionConfig } from '../../../src/config/index.js';
import { SMALL_MODEL_PROFILE } from '../../../src/config/profiles.js';
import { digester } from '../../helpers/engine-harness.js';
import { TRAJECTORIES, TRAJECTORIES_MISSING, onTrajectories } from '../helpers.js';

const index = join(TRAJECTORIES, 'index.json');
const present = TRAJECTORIES_MISSING === '';

let runs: EvaluationRun[] = [];
beforeAll(async () => {
  if (present) runs = evaluationRuns(await hashRuns(await loadRunLabels(index), await digester()));
}, 120_000);

describe.skipIf(!present)(onTrajectories('the recommended profile on the real runs'), () => {
  it('is exactly what the calibration rule chooses on the successful runs', () => {
    expect(resolveLoopDetectionConfig(ruleProfile(runs))).toEqual(resolveLoopDetectionConfig(SMALL_MODEL_PROFILE));
  });

  it('warns and blocks no successful run on any set-up, and stops the repeating gpt-oss loops 10 calls in', () => {
    const scores = scoreBySetup(runs, resolveLoopDetectionConfig(SMALL_MODEL_PROFILE));
    for (const score of scores)
      expect(score.successful, score.setup).toMatchObject({ warned: 0, blocked: 0, ended: 0 });
    const gptOss = scores.find((score) => score.setup.includes('gpt-oss'))!;
    expect(gptOss.loops).toMatchObject({ runs: 6, stopped: 5, timely: 5 });
    expect(Math.max(...gptOss.loops.after)).toBe(10);
  });

  it('left out of the rule, no set-up has a successful run blocked or more than 5 % warned', () => {
    for (const { score } of leaveOneOut(runs)) {
      expect(score.successful.blocked, score.setup).toBe(0);
      expect(score.successful.warned, score.setup).toBeLessThanOrEqual(0.05 * score.successful.runs);
    }
  });

  it("a profile calibrated on some set-ups blocks none of their runs, without floors, and none of the others' successful runs", () => {
    const isTau2 = (run: EvaluationRun) => run.label.file.includes('tau2-bench');
    const healthy = runs.filter((run) => isTau2(run) && run.label.resolved && run.peaks.calls > 0);
    for (const floors of [true, false]) {
      const { block } = calibrate(
        healthy.map((run) => run.peaks),
        { floors },
      );
      const config = resolveLoopDetectionConfig(block);
      for (const run of healthy) expect(scoreRun(run, config).criticals, `${run.label.id} (floors ${floors})`).toBe(0);
      if (!floors) continue;
      for (const run of runs.filter((r) => !isTau2(r) && r.label.resolved))
        expect(scoreRun(run, config).criticals, run.label.id).toBe(0);
    }
  });
});
