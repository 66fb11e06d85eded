import type { AgentConfigResolver } from '../../config/agent-config-resolver.js';
import type { EngineLogger } from '../../util/logger.js';
import { RunRegistry } from '../../spans/run-registry.js';
import { RunScopes, type SpanScope } from '../../spans/run-scope.js';
import { RunReplay, type CallHandle } from './run-replay.js';
import type { PreparedSpan } from './prepared-span.js';

/** A span of a recorded trace, already read and hashed (see `prepareSpan`). */
export interface ReplaySpan {
  readonly traceId: string;
  readonly spanId: string;
  /** The recorded parent, local or in another process; absent for the trace's root span. */
  readonly parentSpanId?: string;
  /** Like the SDK's spans (run scopes look parents up by span id too). */
  spanContext(): { traceId: string; spanId: string };
  readonly prepared: PreparedSpan;
  /** Where the span was read from (file name), for reports. */
  readonly source?: string;
}

/** One run instance seen during a replay. */
export interface ReplayedRun {
  readonly runKey: string;
  agentId?: string;
  readonly source?: string;
  readonly replay: RunReplay;
}

interface ToolState {
  readonly scope: SpanScope;
  readonly index: number;
  handle?: CallHandle;
}

export interface SpanReplayerOptions {
  readonly resolver: AgentConfigResolver;
  readonly logger?: EngineLogger;
  /** The processor's idle TTL and live-run cap, applied in replay time. */
  readonly runIdleTtlMs: number;
  readonly maxLiveRuns: number;
}

/**
 * Replays the span starts and ends of one process's recorded traces, in time order, the way
 * the span processor sees them live: adapters' run-scope hints and the parent span resolve
 * the run ({@link RunScopes}, shared with the processor); `compaction.retry` spans arm the
 * run's guard; a tool span is judged at start when its arguments were known at start, else
 * at its end; outcomes are recorded at end unless the call was blocked at its start; a run's state is
 * released when its root span ends, after the idle TTL, or by the live-run cap
 * ({@link RunRegistry}, shared with the processor, driven by the recorded timestamps).
 */
export class SpanReplayer {
  private readonly scopes = new RunScopes();
  private readonly tools = new WeakMap<ReplaySpan, ToolState>();
  private readonly registry: RunRegistry<ReplayedRun>;
  private readonly resolver: AgentConfigResolver;
  private readonly logger?: EngineLogger;
  /** Every run instance, in order of creation. */
  readonly runs: ReplayedRun[] = [];
  private time = 0;
  private currentSource?: string;

  constructor(options: SpanReplayerOptions) {
    this.resolver = options.resolver;
    this.logger = options.logger;
    this.registry = new RunRegistry<ReplayedRun>(
      { idleTtlMs: options.runIdleTtlMs, maxLiveRuns: options.maxLiveRuns },
      () => this.time,
      // Released runs keep their report; nothing else to do.
      () => undefined,
    );
  }

  /** A span starts at `timeMs`; `parent` is its parent span when that is local (same process). */
  start(span: ReplaySpan, parent: ReplaySpan | undefined, timeMs: number): void {
    this.time = timeMs;
    this.currentSource = span.source;
    const { prepared } = span;
    // A span recognised only at its end (`matchEnd`) resolves its scope as a non-tool span.
    const tool = prepared.tool?.matchedAtEnd ? undefined : prepared.tool;
    const scope = this.scopes.resolve(span, { traceId: span.traceId, spanId: span.spanId }, prepared.hint, parent, tool !== undefined || prepared.compactionRetry);
    if (scope.isRunRoot) this.registry.openRoot(scope.runKey);
    if (prepared.compactionRetry) {
      const run = this.touch(scope);
      run.replay.arm(this.resolver.forAgent(scope.agentId));
    }
    if (!tool) return;
    const config = this.resolver.forAgent(scope.agentId);
    const run = this.touch(scope);
    const state: ToolState = { scope, index: run.replay.nextIndex() };
    this.tools.set(span, state);
    if (tool.atStart) {
      state.handle = run.replay.judge(tool.identity, config, { index: state.index, toolCallId: tool.toolCallId, phase: 'start' });
    }
  }

  /** A span ends at `timeMs`. */
  end(span: ReplaySpan, timeMs: number): void {
    this.time = timeMs;
    this.currentSource = span.source;
    const tool = span.prepared.tool;
    let state = this.tools.get(span);
    if (!state && tool?.matchedAtEnd) {
      const scope: SpanScope = this.scopes.get(span) ?? { runKey: span.traceId, isRunRoot: false };
      state = { scope, index: this.touch(scope).replay.nextIndex() };
    }
    if (state && tool) {
      const run = this.touch(state.scope);
      const config = this.resolver.forAgent(state.scope.agentId);
      state.handle ??= run.replay.judge(tool.identity, config, { index: state.index, toolCallId: tool.toolCallId, phase: 'end' });
      run.replay.complete(state.handle, tool.outcome);
      this.tools.delete(span);
    }
    const closed = this.scopes.closedBy(span, span.traceId, span.parentSpanId !== undefined);
    if (closed !== undefined) this.registry.closeRoot(closed);
  }

  /** Releases every live run (end of input). */
  finish(): void {
    this.registry.clear('shutdown');
  }

  private touch(scope: SpanScope): ReplayedRun {
    const run = this.registry.touch(scope.runKey, () => {
      const created: ReplayedRun = {
        runKey: scope.runKey,
        source: this.currentSource,
        replay: new RunReplay(scope.runKey, { logger: this.logger, now: () => this.time }),
      };
      this.runs.push(created);
      return created;
    });
    if (run.agentId === undefined && scope.agentId !== undefined) run.agentId = scope.agentId;
    return run;
  }
}
