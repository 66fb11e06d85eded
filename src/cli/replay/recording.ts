import type { ResolvedLoopDetectionConfig } from '../../engine/config.js';
import type { Digester } from '../../engine/hashing/digest.js';
import type { ToolSpanAdapter } from '../../spans/adapters/adapter.js';
import { expandInputs } from '../files.js';
import type { Progress } from '../progress.js';
import { readInputFile } from '../readers/input.js';
import type { InputFormat, InputProblem } from '../readers/types.js';
import { CallSequence } from './call-sequence.js';
import type { ReplayEvent } from './replay-event.js';
import { SpanReplayer } from './span-replayer.js';
import { hashedSpan, replayTraces, type PooledSpan } from './trace-replay.js';

/**
 * Recorded runs read and hashed once, to be replayed under any number of settings: each
 * trajectory file as one run, and the spans of every trace file, whose runs the replay scopes
 * as the processor does.
 */
export interface Recording {
  /** One per trajectory file, keyed by the file. */
  readonly sequences: readonly CallSequence[];
  /** Every span of the trace files (OTLP, Jaeger), hashed. */
  readonly spans: readonly PooledSpan[];
  readonly problems: readonly InputProblem[];
}

/** How {@link readRecording} reads. */
export interface RecordingOptions {
  readonly adapters: readonly ToolSpanAdapter[];
  readonly digester: Digester;
  /** Force a format instead of detecting it per file. */
  readonly format?: InputFormat;
  /** Leave out trajectory steps marked `synthetic`. Default false. */
  readonly skipSynthetic?: boolean;
  readonly progress?: Progress;
}

/** Reads files and folders (as `analyze` does) into a {@link Recording}. */
export async function readRecording(inputs: readonly string[], options: RecordingOptions): Promise<Recording> {
  const expanded = await expandInputs(inputs);
  const problems: InputProblem[] = [...expanded.problems];
  const sequences: CallSequence[] = [];
  const spans: PooledSpan[] = [];
  for (const [index, file] of expanded.files.entries()) {
    let sequence: CallSequence | undefined;
    await readInputFile(file, options.format, {
      format(detected) {
        if (detected === 'trajectory') sequence = new CallSequence(file);
      },
      span(span) {
        spans.push(hashedSpan(span, file, options.adapters, options.digester));
      },
      call(call) {
        if (!(options.skipSynthetic && call.synthetic)) sequence!.add(options.digester, call);
      },
      problem(message, line) {
        problems.push({ file, ...(line !== undefined ? { line } : {}), message });
      },
    });
    if (sequence) sequences.push(sequence);
    options.progress?.update(() => `reading ${index + 1}/${expanded.files.length} ${file}`);
  }
  options.progress?.clear();
  return { sequences, spans, problems };
}

/** One run of a replayed recording: its id (the file, or the run scope) and its emitted events. */
export interface RecordedRun {
  readonly id: string;
  readonly calls: number;
  readonly events: readonly ReplayEvent[];
}

/**
 * Replays a recording under one config, in shadow mode when asked (every call runs, so later
 * calls see what the agent actually did): the trajectories one by one, the traces together.
 */
export function replayRecording(
  recording: Pick<Recording, 'sequences' | 'spans'>,
  config: ResolvedLoopDetectionConfig,
  options: { readonly shadow?: boolean } = {},
): RecordedRun[] {
  const replayOptions = {
    configFor: () => config,
    runIdleTtlMs: Number.POSITIVE_INFINITY,
    maxLiveRuns: Number.MAX_SAFE_INTEGER,
    shadow: options.shadow === true,
  };
  const runs: RecordedRun[] = [];
  for (const sequence of recording.sequences) {
    const replayer = new SpanReplayer({ ...replayOptions, maxLiveRuns: 1 });
    sequence.replayAll(replayer);
    const replay = replayer.runs[0]?.replay;
    runs.push({ id: sequence.runKey, calls: replay?.counters.calls ?? 0, events: replay?.events ?? [] });
  }
  if (recording.spans.length > 0)
    for (const run of replayTraces(recording.spans, replayOptions))
      runs.push({ id: run.runKey, calls: run.replay.counters.calls, events: run.replay.events });
  return runs;
}
