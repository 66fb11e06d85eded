import type { RunScopeHint } from '../../spans/adapters/adapter.js';
import type { RunReleaseReason } from '../../spans/run-registry.js';
import type { PreparedSpan } from '../replay/prepared-span.js';
import { SpanReplayer, type ReplayObserver, type SpanReplayerOptions } from '../replay/span-replayer.js';
import { pooledSpan, replayInTimeOrder } from '../replay/trace-replay.js';
import { setBounded } from '../../util/bounded-map.js';
import type { ServedSpan } from './span-intake.js';

/** How a {@link RunJudge} replays. */
export interface RunJudgeOptions {
  /** Each process's replay: the processor's settings (config, idle TTL and live-run cap per process, shadow, budget). */
  readonly replay: Omit<SpanReplayerOptions, 'observer' | 'keepRuns' | 'keepEvents' | 'timelineCalls'>;
  /** Most emitting processes judged at once; beyond it the least recently active is let go, with its runs. */
  readonly maxProcesses: number;
  /** Sees what the guard decided in the replay of the process that emitted `first`. */
  readonly observerFor: (first: ServedSpan) => ReplayObserver;
  /** A process was let go for room (`capacity`) or idleness (`idle`), releasing its live runs. */
  readonly onProcessReleased?: (reason: 'capacity' | 'idle', liveRuns: number) => void;
}

/** One emitting process: its replay, as the processor in it would have judged its spans. */
interface ProcessReplay {
  readonly process: string;
  readonly replayer: SpanReplayer;
  /** Wall-clock ms of its latest judged span. */
  lastActive: number;
}

/** The stand-in for the ancestors of a trace's spans that have not arrived (see {@link RunJudge}). */
interface StandIn {
  readonly key: string;
  readonly span: ServedSpan;
  readonly owner: ProcessReplay;
  /** Its trace's latest span end judged so far (µs): when the stand-in ends. */
  lastUs: number;
  lastActive: number;
}

/**
 * Judges received spans, trace by trace as they become due, through one long-lived replay per
 * emitting process (the span guard the processor runs, in span time), so a run keeps its
 * history across batches and traces and is scoped as the processor scopes it.
 *
 * Spans arrive after they end: a trace's root, which ends last, arrives last. A span whose
 * parent has not arrived (or arrived in an earlier batch) is started under a **stand-in** for its
 * trace's missing ancestors, made from the run hints of the first such span that has any (its run
 * id, session or conversation id, agent id): so an intermediate span carrying its run's session
 * id does not open and close that run by itself, releasing the run's history at its end. The
 * stand-in ends when the trace's root is judged (or the trace goes idle), closing the run as the
 * root would have.
 */
export class RunJudge {
  /** In least-recently-active order. */
  private readonly processes = new Map<string, ProcessReplay>();
  /** By `process NUL trace id`, in order of creation. */
  private readonly standIns = new Map<string, StandIn>();
  /**
   * Traces (`process NUL trace id`) some of whose tool calls were judged in the trace's run, their
   * ancestors not there yet, and when that last happened (wall-clock ms).
   */
  private readonly inPieces = new Map<string, number>();

  constructor(private readonly options: RunJudgeOptions) {}

  /** Runs whose state is held now, over every process. */
  get liveRuns(): number {
    let runs = 0;
    for (const { replayer } of this.processes.values()) runs += replayer.liveRuns;
    return runs;
  }

  /** Processes judged now. */
  get processCount(): number {
    return this.processes.size;
  }

  /** Judges spans (whole traces, as they became due) at wall-clock `now`: their starts and ends in time order. */
  judge(received: readonly ServedSpan[], now: number): void {
    const batch = new Map<string, ProcessReplay>();
    for (const span of received) if (!batch.has(span.process)) batch.set(span.process, this.touch(span, now));
    const spans = this.inPieces.size > 0 ? received.map((span) => this.continued(span)) : received;
    replayInTimeOrder(spans, {
      replayerOf: (span) => batch.get(span.process)!.replayer,
      missingParent: (span, timeMs) => this.standInFor(span as ServedSpan, timeMs, batch.get(span.process)!, now),
    });
    if (this.standIns.size > 0 || this.inPieces.size > 0) this.settle(spans, now);
  }

  /** Lets go of processes and stand-ins idle for the run idle TTL at `now`. */
  sweep(now: number): void {
    const ttl = this.options.replay.runIdleTtlMs;
    for (const [key, last] of [...this.inPieces]) if (now - last >= ttl) this.inPieces.delete(key);
    for (const standIn of [...this.standIns.values()]) if (now - standIn.lastActive >= ttl) this.endStandIn(standIn);
    for (const owner of [...this.processes.values()]) {
      if (now - owner.lastActive < ttl) break;
      this.release(owner, 'idle');
    }
  }

  /** Releases every run of every process (the service stops). */
  releaseAll(reason: RunReleaseReason): void {
    this.standIns.clear();
    this.inPieces.clear();
    for (const owner of this.processes.values()) owner.replayer.finish(reason);
    this.processes.clear();
  }

  private touch(first: ServedSpan, now: number): ProcessReplay {
    const { process } = first;
    let owner = this.processes.get(process);
    if (owner) this.processes.delete(process);
    else
      owner = {
        process,
        replayer: new SpanReplayer({
          ...this.options.replay,
          keepRuns: false,
          keepEvents: false,
          observer: this.options.observerFor(first),
        }),
        lastActive: now,
      };
    owner.lastActive = now;
    this.processes.set(process, owner);
    while (this.processes.size > this.options.maxProcesses)
      this.release(this.processes.values().next().value!, 'capacity');
    return owner;
  }

  private release(owner: ProcessReplay, reason: 'capacity' | 'idle'): void {
    this.processes.delete(owner.process);
    for (const key of [...this.inPieces.keys()])
      if (key.startsWith(`${owner.process}\u0000`)) this.inPieces.delete(key);
    for (const standIn of [...this.standIns.values()]) if (standIn.owner === owner) this.standIns.delete(standIn.key);
    const liveRuns = owner.replayer.liveRuns;
    owner.replayer.finish(reason);
    this.options.onProcessReleased?.(reason, liveRuns);
  }

  /** The stand-in parent of a span whose parent is missing: its trace's, made from its hints if none is yet. */
  private standInFor(span: ServedSpan, timeMs: number, owner: ProcessReplay, now: number): ServedSpan | undefined {
    const key = `${span.process}\u0000${span.traceId}`;
    const known = this.standIns.get(key);
    if (known) return known.span;
    const hint = standInHint(span.prepared.hint);
    if (!hint) {
      // Its call goes to the trace's run: the trace's later spans must not open another.
      if (span.prepared.tool || span.prepared.lateTool)
        setBounded(this.inPieces, key, now, this.options.replay.maxLiveRuns);
      return undefined;
    }
    const prepared: PreparedSpan = { hint, compactionRetry: false };
    const standInSpan = pooledSpan({
      traceId: span.traceId,
      // Never a real span id (16 hex digits), and one per trace.
      spanId: `~${span.traceId}`,
      // Not a trace root: its end closes only the run it opened.
      parentSpanId: '~',
      startUs: span.startUs,
      endUs: span.startUs,
      process: span.process,
      prepared,
    }) as ServedSpan & { resource: unknown };
    standInSpan.resource = span.resource;
    const standIn: StandIn = { key, span: standInSpan, owner, lastUs: span.endUs, lastActive: now };
    this.standIns.set(key, standIn);
    owner.replayer.start(standInSpan, undefined, timeMs);
    // Stand-ins hold runs open: no more of them than runs a process may hold.
    while (this.standIns.size > this.options.replay.maxLiveRuns) this.endStandIn(this.standIns.values().next().value!);
    return standInSpan;
  }

  /**
   * A span of a trace judged in pieces: one that would open a run without an id (an agent span)
   * does not, so that the trace's calls stay in the trace's run, where its earlier calls went.
   */
  private continued(span: ServedSpan): ServedSpan {
    const { hint } = span.prepared;
    if (hint?.startsRun !== true || hint.runId !== undefined) return span;
    const key = `${span.process}\u0000${span.traceId}`;
    if (!this.inPieces.has(key)) return span;
    const { startsRun: _startsRun, ...rest } = hint;
    return Object.assign(Object.create(Object.getPrototypeOf(span) as object) as ServedSpan, span, {
      prepared: { ...span.prepared, hint: rest },
    });
  }

  /**
   * After a batch: the stand-ins of its traces are active; a trace whose root came is whole
   * (its stand-in ends, closing the run it held open as the root would have).
   */
  private settle(spans: readonly ServedSpan[], now: number): void {
    const rooted: StandIn[] = [];
    for (const span of spans) {
      const key = `${span.process}\u0000${span.traceId}`;
      const standIn = this.standIns.get(key);
      if (standIn) {
        standIn.lastActive = now;
        standIn.lastUs = Math.max(standIn.lastUs, span.endUs);
      }
      if (span.parentSpanId !== undefined) continue;
      this.inPieces.delete(key);
      if (standIn) rooted.push(standIn);
    }
    for (const standIn of rooted) this.endStandIn(standIn);
  }

  private endStandIn(standIn: StandIn): void {
    if (this.standIns.get(standIn.key) !== standIn) return;
    this.standIns.delete(standIn.key);
    standIn.owner.replayer.end(standIn.span, standIn.lastUs / 1000);
  }
}

/** What a stand-in takes of a span's run hints: its run and agent (never "this span is a run"). */
function standInHint(hint: RunScopeHint | undefined): RunScopeHint | undefined {
  if (hint === undefined || (hint.runId === undefined && hint.agentId === undefined)) return undefined;
  return {
    ...(hint.runId !== undefined ? { runId: hint.runId } : {}),
    ...(hint.agentId !== undefined ? { agentId: hint.agentId } : {}),
    ...(hint.joinsOnly === true ? { joinsOnly: true } : {}),
  };
}
