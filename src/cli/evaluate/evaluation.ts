import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import type { LoopDetectionConfig } from '../../config/types.js';
import type { ResolvedLoopDetectionConfig } from '../../engine/config.js';
import { calibrate, type CalibrationOptions } from '../calibrate/calibration-rule.js';
import { measurePeaks, type RunPeaks } from '../calibrate/peaks.js';
import { SpanReplayer } from '../replay/span-replayer.js';
import type { RunLabel } from '../sweep/labels.js';
import type { HashedRun } from '../sweep/sweep.js';
import { longestOutcomeStreak, type OutcomeStreak } from './loop-start.js';

/** Calls after a loop's start within which a block counts as timely. */
export const TIMELY_CALLS = 10;
/** A run that hit its limit is a loop when it ended up repeating one outcome at least this often. */
export const LOOP_STREAK = 3;

/** A labelled run, hashed, with what the evaluation needs to know of it once. */
export interface EvaluationRun {
  readonly label: RunLabel;
  readonly hashed: HashedRun;
  /** Its longest streak of one tool's calls with one outcome. */
  readonly streak: OutcomeStreak;
  /** It hit its limit while repeating ({@link LOOP_STREAK}); the loop began at `streak.start`. */
  readonly loop: boolean;
  /** The repeats it made, for calibration. */
  readonly peaks: RunPeaks;
}

/** Prepares hashed labelled runs for evaluation (measures each run's repeats once). */
export function evaluationRuns(runs: readonly HashedRun[]): EvaluationRun[] {
  return runs.map((hashed) => {
    const streak = longestOutcomeStreak(hashed.sequence.calls);
    const [peaks] = measurePeaks({ sequences: [hashed.sequence], spans: [] });
    return {
      label: hashed.label,
      hashed,
      streak,
      loop: hashed.label.hitLimit === true && streak.length >= LOOP_STREAK,
      peaks: peaks ?? { id: hashed.label.id, calls: 0, peaks: new Map() },
    };
  });
}

/** What a config did to one run. */
export interface RunScore {
  readonly warned: boolean;
  readonly criticals: number;
  readonly firstBlock?: number;
  /** The detector of the first critical, and of the first emitted warning. */
  readonly blockedBy?: string;
  readonly warnedBy?: string;
}

/** Replays one run under a config and scores it. */
export function scoreRun(run: EvaluationRun, config: ResolvedLoopDetectionConfig): RunScore {
  const replayer = new SpanReplayer({ configFor: () => config, runIdleTtlMs: Infinity, maxLiveRuns: 1 });
  run.hashed.sequence.replayAll(replayer);
  const events = replayer.runs[0]?.replay.events ?? [];
  const blocks = events.filter((event) => event.action === 'block');
  const warning = events.find((event) => event.action === 'warn');
  return {
    warned: warning !== undefined,
    criticals: blocks.length,
    ...(blocks[0] ? { firstBlock: blocks[0].call, blockedBy: blocks[0].detector } : {}),
    ...(warning ? { warnedBy: warning.detector } : {}),
  };
}

/** A config's figures on one agent set-up. */
export interface SetupScore {
  readonly setup: string;
  /** Successful runs: how many, and how many a warning reached, were blocked (first critical: the recovery turn), or ended (second critical). */
  readonly successful: {
    readonly runs: number;
    readonly warned: number;
    readonly blocked: number;
    readonly ended: number;
  };
  /** Runs that hit their limit while repeating: stopped (a critical), within {@link TIMELY_CALLS} calls of the loop's start, and how many calls after its start the first block came. */
  readonly loops: {
    readonly runs: number;
    readonly stopped: number;
    readonly timely: number;
    readonly after: readonly number[];
  };
  /** Examples: a successful run blocked or warned, a loop stopped (run ids). */
  readonly examples: { readonly blocked?: string; readonly warned?: string; readonly stopped?: string };
}

/** Scores runs of one set-up. */
export function scoreSetup(setup: string, runs: readonly EvaluationRun[], scores: readonly RunScore[]): SetupScore {
  const successful = { runs: 0, warned: 0, blocked: 0, ended: 0 };
  const loops = { runs: 0, stopped: 0, timely: 0, after: [] as number[] };
  const examples: { blocked?: string; warned?: string; stopped?: string } = {};
  runs.forEach((run, i) => {
    const score = scores[i];
    if (run.label.resolved) {
      successful.runs += 1;
      if (score.warned) {
        successful.warned += 1;
        examples.warned ??= run.label.id;
      }
      if (score.criticals > 0) {
        successful.blocked += 1;
        examples.blocked ??= run.label.id;
      }
      if (score.criticals > 1) successful.ended += 1;
    } else if (run.loop) {
      loops.runs += 1;
      if (score.firstBlock === undefined) return;
      loops.stopped += 1;
      examples.stopped ??= run.label.id;
      const after = Math.max(0, score.firstBlock - run.streak.start);
      loops.after.push(after);
      if (after <= TIMELY_CALLS) loops.timely += 1;
    }
  });
  return { setup, successful, loops, examples };
}

/** Scores every set-up (in order of first appearance) under one config; the last entry is the total. */
export function scoreBySetup(runs: readonly EvaluationRun[], config: ResolvedLoopDetectionConfig): SetupScore[] {
  const groups = groupBySetup(runs);
  const all = [...groups].map(([setup, members]) =>
    scoreSetup(
      setup,
      members,
      members.map((run) => scoreRun(run, config)),
    ),
  );
  return [...all, total(all)];
}

/** The set-ups of some runs, in order of first appearance. */
export function groupBySetup(runs: readonly EvaluationRun[]): Map<string, EvaluationRun[]> {
  const groups = new Map<string, EvaluationRun[]>();
  for (const run of runs) {
    const group = groups.get(run.label.setup);
    if (group) group.push(run);
    else groups.set(run.label.setup, [run]);
  }
  return groups;
}

/** The sum of set-up scores (`setup` is `total`). */
export function total(scores: readonly SetupScore[]): SetupScore {
  const sum = (pick: (score: SetupScore) => number) => scores.reduce((n, score) => n + pick(score), 0);
  return {
    setup: 'total',
    successful: {
      runs: sum((s) => s.successful.runs),
      warned: sum((s) => s.successful.warned),
      blocked: sum((s) => s.successful.blocked),
      ended: sum((s) => s.successful.ended),
    },
    loops: {
      runs: sum((s) => s.loops.runs),
      stopped: sum((s) => s.loops.stopped),
      timely: sum((s) => s.loops.timely),
      after: scores.flatMap((s) => s.loops.after),
    },
    examples: {},
  };
}

/** The profile the calibration rule gives on the successful runs of some set-ups (one set of thresholds for every tool). */
export function ruleProfile(runs: readonly EvaluationRun[], options: CalibrationOptions = {}): LoopDetectionConfig {
  const healthy = runs.filter((run) => run.label.resolved && run.peaks.calls > 0).map((run) => run.peaks);
  return calibrate(healthy, { ...options, perTool: false }).block;
}

/** One left-out set-up: the profile the rule chose without it, and what that profile did to it. */
export interface LeftOut {
  readonly block: LoopDetectionConfig;
  readonly score: SetupScore;
}

/**
 * Leave-one-set-up-out: for each set-up, the rule's profile chosen on the successful runs of all
 * the others, scored on that set-up alone — how the rule does on an agent it has never seen.
 */
export function leaveOneOut(runs: readonly EvaluationRun[], options: CalibrationOptions = {}): LeftOut[] {
  const groups = groupBySetup(runs);
  return [...groups].map(([setup, members]) => {
    const block = ruleProfile(
      runs.filter((run) => run.label.setup !== setup),
      options,
    );
    const config = resolveLoopDetectionConfig(block);
    return {
      block,
      score: scoreSetup(
        setup,
        members,
        members.map((run) => scoreRun(run, config)),
      ),
    };
  });
}
