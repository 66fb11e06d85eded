import type { LoopDetectionConfig, ToolThresholds } from '../../config/types.js';
import type { Peak, PeakKind, RunPeaks } from './peaks.js';

/** How {@link calibrate} chooses thresholds. */
export interface CalibrationOptions {
  /**
   * Repeats a run would still need, beyond the most any calibration run made, to reach a
   * critical; at least 1, so that a warning fits between them. Default 2.
   */
  readonly margin?: number;
  /** Never below OpenClaw's count for the same evidence (see {@link THRESHOLD_RULES}). Default true. */
  readonly floors?: boolean;
  /** Give a tool whose peak stands out above the others' by more than the margin thresholds of its own (`byTool`). Default true. */
  readonly perTool?: boolean;
}

/** The calibration runs' highest count of a threshold's evidence: where it was reached. */
export interface PeakEvidence extends Peak {
  readonly kind: PeakKind;
  readonly run: string;
  readonly tool: string;
}

/** One chosen threshold and why. */
export interface CalibrationChoice {
  readonly key: ThresholdKey;
  readonly value: number;
  /** For a `byTool` entry: its tool. */
  readonly tool?: string;
  /** The highest count of the evidence (absent: none of the runs showed any). */
  readonly peak?: PeakEvidence;
  /** The floor that applied, when it decided the value. */
  readonly floor?: number;
}

/** A calibrated profile: the `tools.loopDetection` block and the choices behind it. */
export interface Calibration {
  readonly block: LoopDetectionConfig;
  readonly choices: readonly CalibrationChoice[];
  readonly runs: number;
  readonly calls: number;
  readonly margin: number;
}

type ThresholdKey = keyof ToolThresholds;

/** A critical threshold, its warning step, the evidence they are measured on, and its floor. */
interface ThresholdRule {
  readonly critical: ThresholdKey;
  readonly warning: ThresholdKey;
  /** What the critical and the warning compare. */
  readonly kinds: readonly PeakKind[];
  /** OpenClaw's count for the same evidence. */
  readonly floor: number;
  /** Why the floor is what it is (for the evidence lines). */
  readonly floorReason: string;
}

/**
 * The rules, one per threshold pair. The floors are OpenClaw's own counts: exact repeats, an
 * alternation or a known poll are blocked no earlier than OpenClaw warns (10); the same failure
 * across changing arguments as an exact repeat (OpenClaw blocks an `exec` failure across
 * arguments at its generic critical); an unavailable tool at OpenClaw's 10; a typed error at
 * OpenClaw's 5.
 */
export const THRESHOLD_RULES: readonly ThresholdRule[] = [
  {
    critical: 'criticalThreshold',
    warning: 'warningThreshold',
    kinds: ['repeat', 'alternation', 'poll'],
    floor: 10,
    floorReason: 'OpenClaw warns at 10',
  },
  {
    critical: 'similarOutcomeThreshold',
    warning: 'similarOutcomeWarningThreshold',
    kinds: ['failure'],
    floor: 10,
    floorReason: 'as exact repeats: OpenClaw blocks the same exec failure across arguments at its generic critical',
  },
  {
    critical: 'unknownToolThreshold',
    warning: 'unknownToolWarningThreshold',
    kinds: ['unknownTool'],
    floor: 10,
    floorReason: "OpenClaw's unknown-tool threshold",
  },
  {
    critical: 'typedErrorCriticalThreshold',
    warning: 'typedErrorWarningThreshold',
    kinds: ['typedError'],
    floor: 5,
    floorReason: "OpenClaw's typed-error identity",
  },
];

/** The recommended detectors' settings that are not thresholds. */
const SETTINGS: LoopDetectionConfig = {
  enabled: true,
  genericRepeatInARow: true,
  pingPongRequiresNoProgress: true,
  detectors: { similarOutcome: true },
};

/** The highest peak of some kinds for one tool over all runs. */
function toolPeaks(runs: readonly RunPeaks[], kinds: readonly PeakKind[]): Map<string, PeakEvidence> {
  const best = new Map<string, PeakEvidence>();
  for (const run of runs)
    for (const kind of kinds)
      for (const [tool, peak] of run.peaks.get(kind) ?? []) {
        const known = best.get(tool);
        if (!known || peak.count > known.count) best.set(tool, { ...peak, kind, run: run.id, tool });
      }
  return best;
}

/** The highest of some peaks (absent when there is none). */
function highest(peaks: Iterable<PeakEvidence>): PeakEvidence | undefined {
  let top: PeakEvidence | undefined;
  for (const peak of peaks) if (!top || peak.count > top.count) top = peak;
  return top;
}

/**
 * Tools whose peak stands out: sorted by peak, the top tool stands out while its peak is above
 * the next tool's by more than `margin`. They get thresholds of their own; the rest share one.
 */
function outstandingTools(peaks: ReadonlyMap<string, PeakEvidence>, margin: number): Set<string> {
  const sorted = [...peaks.values()].sort((a, b) => b.count - a.count || (a.tool < b.tool ? -1 : 1));
  const out = new Set<string>();
  for (let i = 0; i < sorted.length; i += 1) {
    const next = sorted[i + 1]?.count ?? 0;
    if (sorted[i].count - next <= margin) break;
    out.add(sorted[i].tool);
  }
  return out;
}

/**
 * Chooses thresholds from runs assumed healthy (`tool-loop-guard calibrate`, and the rule the
 * recommended profile is built with). For each threshold pair, with p the highest count of its
 * evidence any run reached (0: none):
 * - the critical is the larger of its floor and p + 1 + `margin`: a run would need `margin` more
 *   repeats than any calibration run made to be blocked;
 * - the warning is `margin` below the critical, or p + 1 for the warning's evidence when a
 *   calibration run came closer (no calibration run is warned), and always below the critical.
 * With `perTool`, tools whose peaks stand out (see {@link outstandingTools}) get `byTool`
 * entries; the shared thresholds are chosen on the other tools.
 */
export function calibrate(runs: readonly RunPeaks[], options: CalibrationOptions = {}): Calibration {
  const margin = Math.max(1, options.margin ?? 2);
  const floors = options.floors !== false;
  const choices: CalibrationChoice[] = [];
  const block: LoopDetectionConfig = { ...SETTINGS };
  const byTool: Record<string, ToolThresholds> = Object.create(null) as Record<string, ToolThresholds>;

  const choose = (rule: ThresholdRule, peak: PeakEvidence | undefined) => {
    // Without floors the least a critical can be is 2, which leaves a warning at 1.
    const floor = floors ? rule.floor : 2;
    const fromPeak = (peak?.count ?? 0) + 1 + margin;
    const criticalValue = Math.max(floor, fromPeak);
    // The ladder's step is the margin: the note comes `margin` repeats before the block, unless a
    // calibration run came closer (then just above it).
    const step = Math.max(1, criticalValue - margin);
    const warningValue = Math.min(criticalValue - 1, Math.max(step, (peak?.count ?? 0) + 1));
    const evidence = peak ? { peak } : {};
    return {
      critical: { value: criticalValue, ...evidence, ...(fromPeak < floor ? { floor } : {}) },
      warning: { value: warningValue, ...evidence, ...((peak?.count ?? 0) + 1 < step ? { floor: step } : {}) },
    };
  };

  for (const rule of THRESHOLD_RULES) {
    const peaks = toolPeaks(runs, rule.kinds);
    const own = options.perTool === false ? new Set<string>() : outstandingTools(peaks, margin);
    const global = choose(rule, highest([...peaks.values()].filter((peak) => !own.has(peak.tool))));
    block[rule.critical] = global.critical.value;
    block[rule.warning] = global.warning.value;
    choices.push({ key: rule.critical, ...global.critical }, { key: rule.warning, ...global.warning });
    for (const tool of [...own].sort()) {
      const mine = choose(rule, peaks.get(tool));
      if (mine.critical.value === global.critical.value && mine.warning.value === global.warning.value) continue;
      byTool[tool] = { ...byTool[tool], [rule.critical]: mine.critical.value, [rule.warning]: mine.warning.value };
      choices.push({ key: rule.critical, tool, ...mine.critical }, { key: rule.warning, tool, ...mine.warning });
    }
  }
  if (Object.keys(byTool).length > 0) block.byTool = byTool;
  return {
    block,
    choices,
    runs: runs.length,
    calls: runs.reduce((total, run) => total + run.calls, 0),
    margin,
  };
}
