import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import type { LoopDetectionConfig, LoopDetectorToggles } from '../../config/types.js';
import { ALL_TOGGLES_OFF } from '../calibrate/peaks.js';
import { scoreRun, scoreSetup, TIMELY_CALLS, type EvaluationRun } from './evaluation.js';
import { markdownTable } from './markdown.js';

type Toggle = keyof LoopDetectorToggles;

/** Thresholds that no run reaches: a detector OpenClaw does not gate by a toggle is switched off with them. */
const UNREACHABLE = 1_000_000_000;

/**
 * Each detector, and the toggle that runs it alone (`unknown_tool_repeat` and
 * `global_circuit_breaker` have none: they run with every toggle off).
 */
const DETECTORS: ReadonlyArray<{ readonly name: string; readonly toggle?: Toggle }> = [
  { name: 'global_circuit_breaker' },
  { name: 'generic_repeat', toggle: 'genericRepeat' },
  { name: 'ping_pong', toggle: 'pingPong' },
  { name: 'known_poll_no_progress', toggle: 'knownPollNoProgress' },
  { name: 'unknown_tool_repeat' },
  { name: 'typed_error_repeat', toggle: 'typedErrorRepeat' },
  { name: 'argument_churn', toggle: 'argumentChurn' },
  { name: 'result_cycle', toggle: 'resultCycle' },
  { name: 'similar_outcome', toggle: 'similarOutcome' },
  { name: 'identical_call_budget', toggle: 'identicalCallBudget' },
  { name: 'redundant_call', toggle: 'redundantCall' },
];

const of = (part: number, whole: number) => (whole === 0 ? '–' : `${part}/${whole}`);
const example = (id: string | undefined) => (id === undefined ? '' : ` (\`${id}\`)`);

/**
 * Per detector: in the profile, the loops whose first block it made and the successful runs
 * whose first warning it gave; alone (every other detector off, the profile's thresholds, its own
 * defaults where the profile sets none), the successful runs it would warn or block and the loops
 * it would stop — with one example run each.
 */
export function detectorTable(runs: readonly EvaluationRun[], profile: LoopDetectionConfig): string {
  const inProfile = resolveLoopDetectionConfig(profile);
  const profileScores = runs.map((run) => scoreRun(run, inProfile));
  const rows = DETECTORS.map(({ name, toggle }) => {
    const onInProfile = toggle === undefined || inProfile.detectors[toggle];
    const first = (pick: 'blockedBy' | 'warnedBy', keep: (run: EvaluationRun) => boolean) => {
      const hits = runs.filter((run, i) => keep(run) && profileScores[i][pick] === name);
      return `${hits.length}${example(hits[0]?.label.id)}`;
    };
    const alone = resolveLoopDetectionConfig({
      ...profile,
      ...(name === 'unknown_tool_repeat' ? {} : { unknownToolThreshold: UNREACHABLE }),
      ...(name === 'global_circuit_breaker' ? {} : { globalCircuitBreakerThreshold: UNREACHABLE }),
      detectors: { ...profile.detectors, ...ALL_TOGGLES_OFF, ...(toggle ? { [toggle]: true } : {}) },
    });
    const score = scoreSetup(
      name,
      runs,
      runs.map((run) => scoreRun(run, alone)),
    );
    return [
      `\`${name}\``,
      onInProfile ? 'on' : 'off',
      onInProfile ? first('blockedBy', (run) => run.loop) : '–',
      onInProfile ? first('warnedBy', (run) => run.label.resolved) : '–',
      `${of(score.successful.warned, score.successful.runs)}${example(score.examples.warned)}`,
      `${of(score.successful.blocked, score.successful.runs)}${example(score.examples.blocked)}`,
      `${of(score.loops.stopped, score.loops.runs)} (${score.loops.timely} within ${TIMELY_CALLS})${example(score.examples.stopped)}`,
    ];
  });
  return markdownTable(
    [
      'detector',
      'in the profile',
      'loops it stopped first, in the profile',
      'successful runs it warned first, in the profile',
      'alone: successful warned',
      'alone: successful blocked',
      'alone: loops stopped',
    ],
    rows,
  );
}
