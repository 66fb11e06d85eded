import type { ResolvedLoopDetectionConfig } from '../config.js';
import type { RunHistory } from '../history/run-history.js';
import type { LoopVerdict, ToolCallSignature } from '../types.js';

/** The log line a detector writes when it matches (OpenClaw's subsystem `agents/loop-detection`). */
export interface DetectorLogLine {
  readonly level: 'warn' | 'error';
  readonly message: string;
}

/** A detector's verdict and its log line. */
export interface DetectorFinding {
  readonly verdict: LoopVerdict;
  readonly log?: DetectorLogLine;
}

/** A detector: a pure function of the run's history, the call and the config. */
export type Detector = (
  history: RunHistory,
  call: ToolCallSignature,
  config: ResolvedLoopDetectionConfig,
) => DetectorFinding | undefined;
