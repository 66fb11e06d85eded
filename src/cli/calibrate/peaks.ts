import { resolveLoopDetectionConfig } from '../../config/resolve.js';
import type { LoopDetectionConfig } from '../../config/types.js';
import type { ResolvedLoopDetectionConfig } from '../../engine/config.js';
import type { Recording } from '../replay/recording.js';
import { replayRecording } from '../replay/recording.js';

/**
 * The kinds of repeat evidence the recommended detectors count, each measured the way its
 * detector counts it before comparing with a threshold:
 * - `repeat`: identical calls with identical outcomes back to back (`generic_repeat`'s streak
 *   with `genericRepeatInARow`, for its warning and its critical);
 * - `alternation`: an alternation whose both sides repeat one result, in repeats of each side (`ping_pong`);
 * - `poll`: unchanged known polls (`known_poll_no_progress`);
 * - `failure`: calls of one tool in a row failing with the same explained error (`similar_outcome`);
 * - `unknownTool`: failures in a row naming one unavailable tool (`unknown_tool_repeat`);
 * - `typedError`: failures with one typed error code in the run (`typed_error_repeat`).
 */
export type PeakKind = 'repeat' | 'alternation' | 'poll' | 'failure' | 'unknownTool' | 'typedError';

export const PEAK_KINDS: readonly PeakKind[] = [
  'repeat',
  'alternation',
  'poll',
  'failure',
  'unknownTool',
  'typedError',
];

/** The highest count of one kind a run reached for one tool, and the call (1-based) where it did. */
export interface Peak {
  readonly count: number;
  readonly call: number;
}

/** What one run reached: per kind, per tool. */
export interface RunPeaks {
  readonly id: string;
  readonly calls: number;
  readonly peaks: ReadonlyMap<PeakKind, ReadonlyMap<string, Peak>>;
}

const HUGE = 1_000_000_000;

/** Every detector toggle off (`unknown_tool_repeat` and the breaker have none: thresholds turn them off). */
export const ALL_TOGGLES_OFF: Readonly<NonNullable<LoopDetectionConfig['detectors']>> = Object.freeze({
  genericRepeat: false,
  knownPollNoProgress: false,
  pingPong: false,
  typedErrorRepeat: false,
  argumentChurn: false,
  resultCycle: false,
  identicalCallBudget: false,
  similarOutcome: false,
  redundantCall: false,
});

/** Every detector off, nothing reachable: a probe turns one kind on with its thresholds at their least. */
const SILENT: LoopDetectionConfig = {
  enabled: true,
  warningThreshold: HUGE,
  criticalThreshold: HUGE + 1,
  globalCircuitBreakerThreshold: HUGE + 2,
  unknownToolThreshold: HUGE,
  detectors: ALL_TOGGLES_OFF,
};

/** One probe: the config that makes one kind's detector report every count, and how to read its verdicts. */
interface Probe {
  readonly detector: string;
  readonly config: LoopDetectionConfig;
  /** The verdict's count as the kind counts (default: the count). */
  readonly countOf?: (event: { count: number; period?: number; level: string }) => number | undefined;
}

const on = (detectors: NonNullable<LoopDetectionConfig['detectors']>) => ({ ...SILENT.detectors, ...detectors });

const PROBES: Readonly<Record<PeakKind, Probe>> = {
  repeat: {
    detector: 'generic_repeat',
    config: {
      ...SILENT,
      warningThreshold: 1,
      criticalThreshold: 2,
      genericRepeatInARow: true,
      detectors: on({ genericRepeat: true }),
    },
  },
  alternation: {
    detector: 'ping_pong',
    // Counted as the detector compares it with the thresholds: the repeats of each side.
    countOf: (event) => Math.floor(event.count / 2),
    config: {
      ...SILENT,
      warningThreshold: 1,
      criticalThreshold: 2,
      pingPongRequiresNoProgress: true,
      detectors: on({ pingPong: true }),
    },
  },
  poll: {
    detector: 'known_poll_no_progress',
    config: {
      ...SILENT,
      warningThreshold: 1,
      criticalThreshold: 2,
      waitCriticalThreshold: 2,
      detectors: on({ knownPollNoProgress: true }),
    },
  },
  failure: {
    detector: 'similar_outcome',
    config: { ...SILENT, similarOutcomeThreshold: 1, detectors: on({ similarOutcome: true }) },
  },
  unknownTool: { detector: 'unknown_tool_repeat', config: { ...SILENT, unknownToolThreshold: 1 } },
  typedError: {
    detector: 'typed_error_repeat',
    config: {
      ...SILENT,
      typedErrorWarningThreshold: 1,
      typedErrorCriticalThreshold: 2,
      detectors: on({ typedErrorRepeat: true }),
    },
  },
};

/**
 * Measures, for every run of a recording, the highest count each kind of repeat evidence
 * reached, per tool: one replay per kind, in shadow mode (every call runs, as it did), with only
 * that kind's detector on and its thresholds at their least, so that it reports every count it
 * would compare with a threshold. `historySize` is the window the detectors will run with.
 */
export function measurePeaks(
  recording: Pick<Recording, 'sequences' | 'spans'>,
  options: { readonly historySize?: number } = {},
): RunPeaks[] {
  const byRun = new Map<string, { calls: number; peaks: Map<PeakKind, Map<string, Peak>> }>();
  for (const kind of PEAK_KINDS) {
    const probe = PROBES[kind];
    const config: ResolvedLoopDetectionConfig = resolveLoopDetectionConfig({
      ...probe.config,
      ...(options.historySize !== undefined ? { historySize: options.historySize } : {}),
    });
    for (const run of replayRecording(recording, config, { shadow: true })) {
      let entry = byRun.get(run.id);
      if (!entry) byRun.set(run.id, (entry = { calls: run.calls, peaks: new Map() }));
      for (const event of run.events) {
        if (event.detector !== probe.detector) continue;
        const count = probe.countOf ? probe.countOf(event) : event.count;
        if (count === undefined || count <= 0) continue;
        let tools = entry.peaks.get(kind);
        if (!tools) entry.peaks.set(kind, (tools = new Map<string, Peak>()));
        const known = tools.get(event.toolName);
        if (!known || count > known.count) tools.set(event.toolName, { count, call: event.call });
      }
    }
  }
  return [...byRun].map(([id, { calls, peaks }]) => ({ id, calls, peaks }));
}
