import type { RunScopeHint } from './adapters/adapter.js';
import { spanIdOf } from './span-view.js';
import { setBounded } from '../util/bounded-map.js';

/**
 * Default cap of remembered live spans by span id: a memory bound for spans that never end. An
 * entry costs its key, and for a remote entry its own scope and run key (SECURITY.md gives the
 * measured bytes, which `test/robustness/remote-entry-span-cost.test.ts` keeps true).
 */
const DEFAULT_MAX_BY_SPAN_ID = 1_000_000;

/**
 * Keys of runs: an explicit run id as it is, derived keys behind a NUL no explicit id keeps (one
 * that starts with NUL gets another), so a run id that equals a trace id, or
 * `<traceId>/<spanId>`, never joins the run derived from it.
 */
export function explicitRunKey(runId: string): string {
  return runId.charCodeAt(0) === 0 ? `\u0000${runId}` : runId;
}

/** The key of the run of a trace that started in this process (its root span is local). */
export function traceRunKey(traceId: string): string {
  return `\u0000t:${traceId}`;
}

/** The key of the run of one entry of a trace into this process: a span whose parent is remote. */
function entryRunKey(traceId: string, spanId: string): string {
  return `\u0000e:${traceId}/${spanId}`;
}

/** The key of an id-less run span's run (an adapter's run boundary). */
function spanRunKey(traceId: string, spanId: string): string {
  return `\u0000s:${traceId}/${spanId}`;
}

/** A run a span's context carries (`withRun`): spans with no run of their own join it. */
export interface ContextRun {
  readonly runId: string;
  readonly agentId?: string;
}

/**
 * What a starting span's parent context says about it: its parent span when that is local and
 * live (`undefined` for a root or a remote parent), whether the parent is remote, and the run
 * the context carries (`withRun`).
 */
export interface SpanParentContext {
  readonly parent?: object;
  /** The parent span is in another process: the span enters the trace here. Default `false`. */
  readonly remoteParent?: boolean;
  /** The run the context carries (`withRun`), joined by a span with no run of its own or of a live ancestor. */
  readonly run?: ContextRun;
}

/** A starting span's context with no parent, remote parent nor run. */
export const NO_PARENT: SpanParentContext = Object.freeze({});

/** How {@link RunScopes.resolve} takes a span that concerns a run. */
export interface ScopeResolveOptions {
  /** The span's own run hints, if any. */
  readonly hint: RunScopeHint | undefined;
  /**
   * The span never opens a run (tool calls and `compaction.retry` markers): a run outlives each
   * of its tool calls, and a marker started outside the run's span tree must not release the run
   * when it ends. Default `false`.
   */
  readonly joinsOnly?: boolean;
  /**
   * The caller keeps the scope of this span (with a live parent) with its own state of it (see
   * {@link RunScopes.resolve}). Default `false`.
   */
  readonly held?: boolean;
}

/** The run a span belongs to. */
export interface SpanScope {
  /** Key of the run's state (see {@link explicitRunKey}); never shown to users. */
  readonly runKey: string;
  /** The run as users see it (`LoopEvent.runId`, `tool_loop.run_id`): the run id, `<traceId>/<spanId>`, or the trace id. */
  readonly runId: string;
  readonly agentId?: string;
  /** The span opened this run; its end releases the run's state. */
  readonly isRunRoot: boolean;
  /** A run root's scope as its descendants see it (never a run root), made with the root's scope. */
  readonly descendants?: SpanScope;
}

/**
 * The scope of a span that opens a run, carrying its descendants' scope from the start. Only
 * the descendants' is remembered (the root's own is told apart by {@link RunScopes.roots}): a run
 * costs one scope object while it lives, not two.
 */
function rootScope(runKey: string, runId: string, agentId: string | undefined): SpanScope {
  const descendants = memberScope(runKey, runId, agentId);
  return { runKey, runId, agentId, isRunRoot: true, descendants };
}

/** The scope of a span in a run it did not open. */
function memberScope(runKey: string, runId: string, agentId: string | undefined): SpanScope {
  return { runKey, runId, agentId, isRunRoot: false };
}

/**
 * The scope of a span that joins the run its context carries (`withRun`): never its root, so no
 * span's end releases it (the idle TTL and the live-run cap do).
 */
function joinedScope(contextRun: ContextRun, agentId: string | undefined): SpanScope {
  const { runId } = contextRun;
  return memberScope(explicitRunKey(runId), runId, agentId ?? contextRun.agentId);
}

/**
 * Whether a span's scope is worth remembering for its children: it opened a run, names an agent,
 * or is not its trace's default run (a child in the default scope finds that without it).
 */
export function passesOn(scope: SpanScope, traceId: string): boolean {
  return scope.isRunRoot || scope.agentId !== undefined || scope.runKey !== traceRunKey(traceId);
}

/**
 * Resolves and remembers run scopes along the span tree: the span's own run id,
 * else the nearest live ancestor's, else the trace id. Scopes are kept in a `WeakMap` keyed
 * by the span object, so a span that never ends costs nothing once the SDK drops it.
 * Only spans whose scope differs from the trace default are remembered: a span in the
 * default scope of its trace costs one parent lookup and no allocation. (Runs in the trace
 * scope are released when the trace's local root ends; the processor tells that from the
 * span's parent span context, without remembering anything.)
 */
export class RunScopes {
  /** Remembered scopes of spans (a run root's is its descendants' scope). */
  private readonly scopes = new WeakMap<object, SpanScope>();
  /** Spans that opened a run. */
  private readonly roots = new WeakSet<object>();
  /**
   * Remembered scopes of live spans by span id, for children whose parent context holds only
   * the parent's span context (`trace.setSpanContext`, as OpenClaw's diagnostics-otel and the
   * OpenInference LangChain tracer do): the parent object is then a wrapper, not the span.
   * Entries are dropped by {@link forget} at span end, so the map holds live spans only; its
   * cap is a memory bound for spans that never end, far above any count of live scoped spans
   * (see the constructor), and reaching it is reported once: past it the oldest entries are
   * dropped, and their children fall back to the trace's scope.
   */
  private readonly bySpanId = new Map<string, SpanScope>();
  private fullReported = false;
  /**
   * Scopes remembered and not yet forgotten by their span's end (at least as many as there are
   * such spans: an entry dropped at the cap is never counted off). While it is 0 no ending span
   * has a scope, so most spans end without a lookup; a scoped span that never ends keeps it
   * above 0, which only costs the lookups again.
   */
  private unclosed = 0;

  /**
   * @param maxBySpanId - Most live scoped spans remembered by span id. Default 1 000 000.
   * @param onFull - Told once when the cap is reached.
   * @param heldScope - The scope of a live span resolved as `held` (see {@link resolve}), which
   *   the caller keeps with its own state of the span; `undefined` once it ended. Default: none.
   * @param heldScopeById - The same, found by the span's id (for a child under a wrapper of the
   *   held span's context), for the held spans the caller did not hand back through
   *   {@link rememberById}. Default: none.
   */
  constructor(
    private readonly maxBySpanId = DEFAULT_MAX_BY_SPAN_ID,
    private readonly onFull?: (limit: number) => void,
    private readonly heldScope?: (span: object) => SpanScope | undefined,
    private readonly heldScopeById?: (spanId: string) => SpanScope | undefined,
  ) {}

  /**
   * The remembered scope of a live span, if any, as its descendants see it (for a run root: its
   * run, not marked as opened by it).
   */
  get(span: object): SpanScope | undefined {
    return this.scopes.get(span) ?? this.heldScope?.(span);
  }

  /**
   * Resolves the scope of a starting span that concerns a run from its hints and its parent
   * context (see {@link ScopeResolveOptions}).
   *
   * `held`: the caller keeps the scope of this span (with a live parent) with its own state of
   * it, and answers {@link RunScopes.heldScope} and {@link RunScopes.heldScopeById} for it until
   * it ends: the span's scope is then not remembered here at all (a tool span's: its state is
   * kept by the span anyway), unless the caller hands it back with {@link rememberById}, after
   * which its end must {@link forget} it.
   *
   * The run the context carries joins a span with no run id of its own and no live ancestor's
   * run (never opened by it), ahead of an id-less run boundary, a remote parent's entry and the
   * trace.
   */
  resolve(
    span: object,
    ids: { traceId: string; spanId: string },
    { parent, remoteParent, run: contextRun }: SpanParentContext,
    { hint, joinsOnly, held }: ScopeResolveOptions,
  ): SpanScope {
    const inherited = parent ? this.lookup(parent) : undefined;
    // Without a live parent a span may be a trace's root, whose end must find its scope.
    const heldByCaller = held === true && parent !== undefined;
    if (hint === undefined) {
      const joined = inherited ?? (contextRun && joinedScope(contextRun, undefined));
      if (joined && !heldByCaller) this.remember(span, ids.spanId, joined);
      if (joined) return joined;
      if (remoteParent !== true) return this.traceScope(ids.traceId);
      return this.enter(span, ids);
    }
    const agentId = hint.agentId ?? inherited?.agentId;
    let scope: SpanScope;
    if (hint.runId !== undefined) {
      const runKey = explicitRunKey(hint.runId);
      const opens = joinsOnly !== true && hint.joinsOnly !== true && inherited?.runKey !== runKey;
      scope = opens ? rootScope(runKey, hint.runId, agentId) : memberScope(runKey, hint.runId, agentId);
    } else if (inherited) {
      scope = memberScope(inherited.runKey, inherited.runId, agentId);
    } else if (contextRun) {
      scope = joinedScope(contextRun, agentId);
    } else if (hint.startsRun && joinsOnly !== true) {
      scope = rootScope(spanRunKey(ids.traceId, ids.spanId), `${ids.traceId}/${ids.spanId}`, agentId);
    } else if (remoteParent === true) {
      scope = rootScope(entryRunKey(ids.traceId, ids.spanId), ids.traceId, agentId);
    } else {
      scope = memberScope(traceRunKey(ids.traceId), ids.traceId, agentId);
    }
    // A run root is remembered whoever holds it: its end must find it to release the run.
    if (passesOn(scope, ids.traceId) && (scope.isRunRoot || !heldByCaller)) this.remember(span, ids.spanId, scope);
    return scope;
  }

  /** The run of a trace that started here, for a span in no other scope. */
  traceScope(traceId: string): SpanScope {
    return { runKey: traceRunKey(traceId), runId: traceId, isRunRoot: false };
  }

  /**
   * A span whose parent is in another process (a request handler under a propagated context)
   * enters the trace here: its id-less calls form a run of their own, keyed by this span too,
   * so a caller who picks the trace id (`traceparent`) cannot join another request's run. The
   * span's end releases it. Costs one scope per entry, and one remembered scope per span
   * below it (a trace that started here costs nothing: its run is keyed by the trace id).
   */
  enter(span: object, ids: { traceId: string; spanId: string }): SpanScope {
    const scope = rootScope(entryRunKey(ids.traceId, ids.spanId), ids.traceId, undefined);
    this.remember(span, ids.spanId, scope);
    return scope;
  }

  /**
   * For a span with no run hints of its own that is neither a tool call nor a marker: it
   * passes on its parent's scope, if the parent has one, else the run its context carries
   * (`contextRun`, see {@link resolve}). Nothing is allocated otherwise.
   */
  inherit(span: object, spanId: string, parent: object, contextRun?: ContextRun): void {
    const inherited = this.lookup(parent) ?? (contextRun && joinedScope(contextRun, undefined));
    if (inherited) this.remember(span, spanId, inherited);
  }

  /**
   * For a span with no run hints of its own and no live parent (a trace's root, or under a
   * remote parent) in a context that carries a run (see {@link resolve}): it joins that run, and
   * passes it on to its children (which a span matched only at its end reads back).
   */
  join(span: object, spanId: string, contextRun: ContextRun): void {
    this.remember(span, spanId, joinedScope(contextRun, undefined));
  }

  /** The scope a live parent passes to its children, if it has one worth passing. */
  private lookup(parent: object): SpanScope | undefined {
    // Only a stand-in for a span (a non-recording wrapper of its span context) can carry the
    // id of a remembered span; a recording span is remembered under itself or not at all.
    const scope =
      this.scopes.get(parent) ?? (isRecording(parent) ? this.heldScope?.(parent) : this.byId(spanIdOf(parent) ?? ''));
    return scope?.descendants ?? scope;
  }

  private byId(spanId: string): SpanScope | undefined {
    return this.bySpanId.get(spanId) ?? this.heldScopeById?.(spanId);
  }

  /** Remembers a span's scope by the span object and by its span id (a run root's: its descendants'). */
  private remember(span: object, spanId: string, opened: SpanScope): void {
    let scope = opened;
    if (opened.descendants) {
      this.roots.add(span);
      scope = opened.descendants;
    }
    this.scopes.set(span, scope);
    this.unclosed += 1;
    this.rememberById(spanId, scope);
  }

  /**
   * Remembers a scope by span id alone (as {@link remember} does besides the span object). A
   * caller hands a live `held` span's scope back with it when it can no longer find the span by
   * id itself; the span's end then calls {@link forget}.
   */
  rememberById(spanId: string, scope: SpanScope): void {
    if (!this.fullReported && this.bySpanId.size >= this.maxBySpanId && !this.bySpanId.has(spanId)) {
      this.fullReported = true;
      this.onFull?.(this.maxBySpanId);
    }
    setBounded(this.bySpanId, spanId, scope, this.maxBySpanId);
  }

  /** Whether a live span may hold a scope: while none does, {@link closedBy} finds none. */
  get anyUnclosed(): boolean {
    return this.unclosed > 0;
  }

  /**
   * The run an ending span closes, if any, and forgets the span: the run it opened, or — for a
   * trace's root span in the default trace scope — the run keyed by its trace id. `rootTraceId`:
   * that trace id, given only for a span with no parent (a span whose parent is in another
   * process closes nothing: that process may send more calls of the same trace, so such runs are
   * released by the idle TTL), and only while some run may be live (building the trace's run key
   * for every plain root of an application with no run alive would be a string per span for
   * nothing).
   */
  closedBy(span: object, rootTraceId?: string): string | undefined {
    const scope = this.unclosed > 0 ? this.scopes.get(span) : undefined;
    if (scope) {
      // Counted off once per span-id entry, so that a span ended twice is not counted off twice.
      if (this.forget(span)) this.unclosed -= 1;
      if (this.roots.delete(span)) return scope.runKey;
    }
    if (rootTraceId === undefined) return undefined;
    const traceKey = traceRunKey(rootTraceId);
    return scope === undefined || scope.runKey === traceKey ? traceKey : undefined;
  }

  /**
   * Drops the span-id entry of an ended span (the `WeakMap` entry goes with the span); whether
   * there was one.
   */
  forget(span: object): boolean {
    const spanId = spanIdOf(span);
    return spanId !== undefined && this.bySpanId.delete(spanId);
  }
}

function isRecording(span: object): boolean {
  return (span as { isRecording?: () => boolean }).isRecording?.() === true;
}
