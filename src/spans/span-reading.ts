import type { Digester } from '../engine/hashing/digest.js';
import { hashToolOutcome, type OutcomeHash } from '../engine/hashing/outcome-hash.js';
import { DeferredOutcome, type DeferredContent, type KeptFacts } from '../engine/history/deferred-outcome.js';
import { TextMemo, type TextMemoLimits } from '../engine/hashing/text-memo.js';
import { describeToolCall } from '../engine/hashing/tool-call.js';
import { writeTargetHash } from '../engine/hashing/write-target.js';
import type { SimilarityEvidence, ToolCallSignature } from '../engine/types.js';
import { ATTR_COMPACTION_RETRY, ATTR_GEN_AI_CONVERSATION_COMPACTED } from '../semconv.js';
import type {
  RunScopeHint,
  ToolCallEnd,
  ToolCallStart,
  ToolResultMessage,
  ToolSpanAdapter,
} from './adapters/adapter.js';
import { boundedChat, boundedEnd, boundedHint, boundedStart } from './bounded-reading.js';
import { isHashOnlyResult } from './hash-only-result.js';
import { parseJsonAttribute } from './json-attribute.js';
import { ALL_ADAPTERS, inMask, SpanTriggers, type AdapterMask } from './span-triggers.js';
import type { SpanView } from './span-view.js';

/*
 * Framework-free readings of a span through the adapters: what the span processor reads from
 * live spans and the offline analyzer from spans decoded from files, so that both judge a span
 * the same way.
 */

/** What the adapters say about a starting span. */
export interface SpanStartReading {
  /** The first adapter that recognised a tool span, and its reading. */
  readonly adapter?: ToolSpanAdapter;
  readonly start?: ToolCallStart;
  /** Run-scope hints merged over every adapter (first non-empty value of each field wins). */
  readonly hint?: RunScopeHint;
  /** `compaction.retry` = true: the span arms the post-compaction guard of its run. */
  readonly compactionRetry: boolean;
}

/** A described call and the params its outcome projection needs. */
export interface DescribedCall {
  readonly call: ToolCallSignature;
  /** Parsed arguments (absent when a pre-computed args hash was used, or when {@link unparsed}). */
  readonly params?: unknown;
  /** The call was remembered, its raw arguments not parsed: parse them if the params are needed. */
  readonly unparsed?: true;
}

/**
 * What a span reader remembers of the calls and results it hashed recently (see
 * {@link TextMemo}): calls by their tool name and raw arguments, outcomes by their tool name,
 * raw result and raw arguments.
 */
export interface ToolTextMemos {
  readonly calls: TextMemo<ToolCallSignature>;
  readonly outcomes: TextMemo<OutcomeHash>;
}

/**
 * How much {@link AdapterSpanReader} remembers: 256 calls' raw arguments up to 1 Mi characters
 * together, and 256 outcomes' raw results and arguments up to 4 Mi characters together (at
 * most 10 MiB of strings, mostly ones the spans held anyway); of texts of 256 characters or more.
 */
export const TEXT_MEMO_LIMITS: { readonly calls: TextMemoLimits; readonly outcomes: TextMemoLimits } = {
  calls: { entries: 256, chars: 1024 * 1024, fromChars: 256 },
  outcomes: { entries: 256, chars: 4 * 1024 * 1024, fromChars: 256 },
};

/** Memos with {@link TEXT_MEMO_LIMITS}. */
export function createToolTextMemos(): ToolTextMemos {
  return { calls: new TextMemo(TEXT_MEMO_LIMITS.calls), outcomes: new TextMemo(TEXT_MEMO_LIMITS.outcomes) };
}

/** The reading of a span that is none of the adapters' business. */
export const NOTHING_TO_READ: SpanStartReading = Object.freeze({ compactionRetry: false });

/**
 * Runs the adapters over a starting span; `only` (see `SpanTriggers.adaptersFor`) leaves out
 * adapters the span cannot concern.
 */
export function readSpanStart(
  adapters: readonly ToolSpanAdapter[],
  span: SpanView,
  only: AdapterMask = ALL_ADAPTERS,
): SpanStartReading {
  let start: ToolCallStart | undefined;
  let adapter: ToolSpanAdapter | undefined;
  let rejected = false;
  for (let i = 0; i < adapters.length && !start && !rejected; i += 1) {
    if (!inMask(only, i)) continue;
    const candidate = adapters[i];
    const match = candidate.matchStart(span);
    if (match) {
      start = boundedStart(match);
      adapter = candidate;
    }
    // This convention's span, but not a call to judge (e.g. an OpenClaw veto span).
    else rejected = candidate.rejects?.(span) === true;
  }
  const hint = readScopeHint(adapters, span, only);
  const compactionRetry = isCompactionMarker(span);
  // Most spans are none of these: answer them without allocating.
  if (!start && !hint && !compactionRetry) return NOTHING_TO_READ;
  return { adapter, start, hint, compactionRetry };
}

/** The first adapter that takes an ending span for a model-call (chat) span. */
export function matchChatEnd(
  adapters: readonly ToolSpanAdapter[],
  span: SpanView,
  only: AdapterMask = ALL_ADAPTERS,
): ToolSpanAdapter | undefined {
  for (let i = 0; i < adapters.length; i += 1) {
    if (!inMask(only, i)) continue;
    const adapter = adapters[i];
    if (adapter.readChat !== undefined && adapter.matchChat?.(span) === true) return adapter;
  }
  return undefined;
}

/**
 * Whether the span arms the post-compaction guard of its run: our `compaction.retry`, or the
 * GenAI convention's `gen_ai.conversation.compacted` (set only `true`, on the span after a compaction).
 */
export function isCompactionMarker(span: SpanView): boolean {
  return (
    span.attributes[ATTR_COMPACTION_RETRY] === true || span.attributes[ATTR_GEN_AI_CONVERSATION_COMPACTED] === true
  );
}

/** Run-scope hints merged over every adapter (first non-empty value of each field wins). */
export function readScopeHint(
  adapters: readonly ToolSpanAdapter[],
  span: SpanView,
  only: AdapterMask = ALL_ADAPTERS,
): RunScopeHint | undefined {
  let hint: RunScopeHint | undefined;
  for (let i = 0; i < adapters.length; i += 1) {
    if (!inMask(only, i)) continue;
    const given = adapters[i].scopeHint?.(span);
    if (!given) continue;
    const extra = boundedHint(given);
    hint = hint
      ? {
          runId: hint.runId ?? extra.runId,
          agentId: hint.agentId ?? extra.agentId,
          startsRun: hint.startsRun || extra.startsRun,
          joinsOnly: hint.runId !== undefined ? hint.joinsOnly : extra.joinsOnly,
        }
      : extra;
  }
  return hint;
}

/**
 * Adapters' `matchEnd`, for spans no adapter matched at start. An adapter that rejects the
 * span (an OpenClaw veto span) keeps later, generic adapters from claiming it at end too.
 */
export function matchSpanEnd(
  adapters: readonly ToolSpanAdapter[],
  span: SpanView,
  only: AdapterMask = ALL_ADAPTERS,
): { adapter: ToolSpanAdapter; start: ToolCallStart } | undefined {
  for (let i = 0; i < adapters.length; i += 1) {
    if (!inMask(only, i)) continue;
    const adapter = adapters[i];
    const start = adapter.matchEnd?.(span);
    if (start) return { adapter, start: boundedStart(start) };
    if (adapter.rejects?.(span) === true) return undefined;
  }
  return undefined;
}

/** Whether the arguments are known at start (then the call is judged before it runs). */
export function knownAtStart(start: ToolCallStart): boolean {
  return start.argsHash !== undefined || start.arguments !== undefined;
}

/** What a call is described from: an adapter's reading of its tool name and arguments. */
export type CallReading = Pick<ToolCallStart, 'toolName' | 'argsHash' | 'knownPoll' | 'arguments' | 'callFacts'>;

/**
 * The call: a pre-computed args hash wins; otherwise the raw arguments are parsed (JSON
 * text, or the text itself) and hashed with the engine's `describeToolCall` — or, when `memo`
 * remembers the same tool called with the same raw text, described as it was then, unparsed.
 */
export function describeToolSpanCall(
  digester: Digester,
  { toolName, argsHash, knownPoll, arguments: rawArguments, callFacts }: CallReading,
  memo?: TextMemo<ToolCallSignature>,
): DescribedCall {
  if (argsHash !== undefined) return { call: { toolName, argsHash, knownPoll: knownPoll ?? false, ...callFacts } };
  const text = memo !== undefined && typeof rawArguments === 'string' ? rawArguments : undefined;
  const remembered = text === undefined ? undefined : memo?.get(toolName, text);
  if (remembered !== undefined) return { call: withKnownPoll(remembered, knownPoll), unparsed: true };
  const params = parseJsonAttribute(rawArguments);
  const described = describeToolCall(digester, toolName, params);
  if (text !== undefined) memo?.set(toolName, text, undefined, described);
  return { call: withKnownPoll(described, knownPoll), params };
}

/** A described call with the adapter's own poll reading, when it has one. */
function withKnownPoll(described: ToolCallSignature, knownPoll: boolean | undefined): ToolCallSignature {
  return knownPoll === undefined
    ? described
    : { toolName: described.toolName, argsHash: described.argsHash, knownPoll };
}

/** Describes a call from the end reading, falling back to the start reading (late arguments). */
export function describeAtEnd(
  digester: Digester,
  start: ToolCallStart,
  end: ToolCallEnd,
  memo?: TextMemo<ToolCallSignature>,
): DescribedCall {
  return describeToolSpanCall(
    digester,
    {
      toolName: start.toolName,
      argsHash: end.argsHash ?? start.argsHash,
      knownPoll: end.knownPoll ?? start.knownPoll,
      arguments: end.arguments ?? start.arguments,
      callFacts: start.callFacts,
    },
    memo,
  );
}

/** A described call's content, as its outcome is hashed with it. */
export interface CallContent {
  readonly toolName: string;
  /** The parsed arguments (`undefined` for a pre-computed args hash). */
  readonly params: unknown;
  /** What `params` were parsed from (a deferred outcome parses them again when it is read). */
  readonly rawArguments?: unknown;
  /** The call's digest of a `write`'s target from the same params, if it has one. */
  readonly targetHash?: string;
}

/** The outcome hash of an ending tool span: pre-computed hash, error, result, or nothing. */
export function hashToolSpanOutcome(
  digester: Digester,
  { toolName, params, targetHash }: CallContent,
  end: ToolCallEnd,
): OutcomeHash {
  if (end.resultHash !== undefined || end.outcomeFacts?.outcomeKind === 'tool-loop-veto')
    return { ...end.outcomeFacts, resultHash: end.resultHash, unknownToolName: end.unknownToolName };
  if (end.isError) return hashToolOutcome(digester, { toolName, params, error: end.errorText ?? '', isError: true });
  if (!end.hasResult) return {};
  return hashToolOutcome(
    digester,
    { toolName, params, result: parseJsonAttribute(end.result) },
    targetHash === undefined ? undefined : { targetHash },
  );
}

/**
 * The result text of an ending tool span whose outcome {@link hashToolSpanOutcome} computes from
 * the tool name, the params and that text alone (a successful text result with no pre-computed
 * hash and no veto), else `undefined`.
 */
export function resultTextOf(end: ToolCallEnd): string | undefined {
  if (end.resultHash !== undefined || end.outcomeFacts?.outcomeKind === 'tool-loop-veto') return undefined;
  return !end.isError && end.hasResult && typeof end.result === 'string' ? end.result : undefined;
}

/**
 * Results of at least this many characters are hashed only when their hash is first read (see
 * {@link deferredToolSpanOutcome}): most calls' hashes never are, and even a 100-byte result
 * costs more to parse and hash than its deferral. Shorter ones (`ok`, `{}`) are hashed as their
 * span ends, where the deferred outcome's objects would cost more than the hash.
 */
export const DEFER_RESULTS_FROM = 16;

/** How {@link deferredToolSpanOutcome} defers an outcome. */
export interface DeferOptions {
  /** Results of at least this many characters are deferred (`Infinity`: none). */
  readonly deferFrom: number;
  /** Told the outcome once it is hashed. Default: nobody. */
  readonly remember?: (outcome: OutcomeHash) => void;
}

/**
 * The outcome of an ending tool span, hashed only when its hash is first read if the run keeps
 * it so: a successful result text of at least `deferFrom` characters, not of `exec` (whose
 * projection yields failure facts). The run keeps it unhashed only when nothing but the hash
 * depends on the result ({@link DeferredOutcome.keep}): it can be neither OpenClaw's loop veto, a
 * `write` that changed nothing, nor carry a typed-error stamp (none of `tool-loop`, `changed`,
 * `typed_code` in its text, and no `\\u` escape that could spell them: {@link isHashOnlyResult}). A
 * `write`'s mutation target comes from its params, so it is known now. The call's `params` are
 * kept until the run keeps the outcome, then parsed again from its `rawArguments` if it is read.
 * Otherwise `undefined`: hash it now with {@link hashToolSpanOutcome}.
 */
export function deferredToolSpanOutcome(
  digester: Digester,
  call: CallContent,
  end: ToolCallEnd,
  { deferFrom, remember }: DeferOptions,
): DeferredOutcome | undefined {
  const { toolName, rawArguments } = call;
  const { result } = end;
  if (
    typeof result !== 'string' ||
    result.length < deferFrom ||
    end.isError ||
    !end.hasResult ||
    end.resultHash !== undefined ||
    end.outcomeFacts !== undefined ||
    toolName === 'exec'
  )
    return undefined;
  const bytes = 2 * (result.length + (typeof rawArguments === 'string' ? rawArguments.length : 0));
  return new DeferredOutcome(new DeferredToolResult(digester, call, result, remember), bytes);
}

const NO_FACTS = Object.freeze({});

/**
 * What a deferred tool span outcome hashes when it is read (see {@link deferredToolSpanOutcome}):
 * the raw result and arguments, and the parsed arguments until the outcome may stay unhashed
 * (then they are let go, and parsed again from the raw text if the hash is read).
 */
class DeferredToolResult implements DeferredContent {
  private kept = false;
  private readonly toolName: string;
  private params: unknown;
  private readonly rawArguments: unknown;
  private readonly targetHash: string | undefined;

  /** Keeps the call's fields, not the call: its params are let go once the outcome may stay unhashed. */
  constructor(
    private readonly digester: Digester,
    call: CallContent,
    private readonly result: string,
    private readonly remember: ((outcome: OutcomeHash) => void) | undefined,
  ) {
    this.toolName = call.toolName;
    this.params = call.params;
    this.rawArguments = call.rawArguments;
    this.targetHash = call.targetHash;
  }

  hash(): OutcomeHash {
    const { digester, toolName, targetHash } = this;
    const outcome = hashToolOutcome(
      digester,
      {
        toolName,
        params: this.kept ? parseJsonAttribute(this.rawArguments) : this.params,
        result: parseJsonAttribute(this.result),
      },
      targetHash === undefined ? undefined : { targetHash },
    );
    this.remember?.(outcome);
    return outcome;
  }

  mayKeep(): KeptFacts | false {
    const { digester, toolName } = this;
    if (!isHashOnlyResult(toolName, this.result)) return false;
    const mutationTargetHash =
      toolName === 'write' ? writeTargetHash(digester, this.params, this.targetHash) : undefined;
    this.kept = true;
    this.params = undefined;
    return mutationTargetHash === undefined ? NO_FACTS : { mutationTargetHash };
  }
}

/**
 * An outcome as a memo keeps it: its near-duplicate evidence, computed on first use, comes from
 * the texts the memo holds anyway, not from the parsed result the outcome's own holds (many times
 * the text's size for a large structure).
 */
function rememberedOf(
  digester: Digester,
  outcome: OutcomeHash,
  { toolName, result, rawArguments }: { toolName: string; result: string; rawArguments: string | undefined },
): OutcomeHash {
  if (outcome.similarity === undefined) return outcome;
  let evidence: SimilarityEvidence | undefined;
  const similarity = () =>
    (evidence ??=
      hashToolOutcome(digester, {
        toolName,
        params: parseJsonAttribute(rawArguments),
        result: parseJsonAttribute(result),
      }).similarity?.() ?? {});
  return { ...outcome, similarity };
}

/**
 * A tool span's call as the span guard asks for it: the call once (at start when its
 * arguments are known then, else at end) and the outcome at end.
 */
export interface ToolCallSource<S = SpanView> {
  readonly toolName: string;
  readonly toolCallId?: string;
  /** The adapter that recognised the span (its content attributes are redacted on request). */
  readonly adapter?: ToolSpanAdapter;
  /** The call when its arguments are known at span start (judged before it runs), else `undefined`. */
  callAtStart(): ToolCallSignature | undefined;
  /** The call read as the span ends, for a call not judged at start. */
  callAtEnd(span: S): ToolCallSignature;
  /** The outcome hash as the span ends (`{}`: no outcome). */
  outcome(span: S): OutcomeHash;
}

/**
 * A live tool span read through its adapter, hashed lazily: arguments at start or end, the
 * outcome at end, or a large result only when its hash is first read (see
 * {@link deferredToolSpanOutcome}). A call or result the reader's memos remember is not parsed
 * and hashed again.
 */
class LiveToolCall implements ToolCallSource {
  /** Parsed arguments, for the outcome projection; dropped once the outcome is hashed. */
  private params: unknown = undefined;
  /** Whether `params` holds the parsed arguments (not for a remembered call: parsed if needed). */
  private parsed = true;
  /** The call's digest of a `write`'s target, when it was described from these arguments. */
  private targetHash: string | undefined = undefined;
  /** What `params` were parsed from (for a deferred outcome, which parses them again when read). */
  private rawArguments: unknown = undefined;
  private end: ToolCallEnd | undefined = undefined;
  /** The outcome once hashed: what the span state keeps from then on, instead of the parsed content. */
  private hashed: OutcomeHash | undefined = undefined;

  constructor(
    private readonly digester: Digester,
    readonly adapter: ToolSpanAdapter,
    private readonly start: ToolCallStart,
    /** Results of at least this many characters are deferred (`Infinity`: none). */
    private readonly deferFrom: number,
    private readonly memos: ToolTextMemos | undefined,
  ) {}

  get toolName(): string {
    return this.start.toolName;
  }

  get toolCallId(): string | undefined {
    return this.start.toolCallId;
  }

  callAtStart(): ToolCallSignature | undefined {
    const { start } = this;
    if (!knownAtStart(start)) return undefined;
    return this.keep(describeToolSpanCall(this.digester, start, this.memos?.calls), start.argsHash, start.arguments);
  }

  callAtEnd(span: SpanView): ToolCallSignature {
    const { start } = this;
    const end = this.readEnd(span);
    return this.keep(
      describeAtEnd(this.digester, start, end, this.memos?.calls),
      end.argsHash ?? start.argsHash,
      end.arguments ?? start.arguments,
    );
  }

  outcome(span: SpanView): OutcomeHash {
    if (this.hashed === undefined) {
      this.hashed = this.hashOutcome(this.readEnd(span));
      this.params = undefined;
      this.rawArguments = undefined;
      this.end = undefined;
    }
    return this.hashed;
  }

  private hashOutcome(end: ToolCallEnd): OutcomeHash {
    const { toolName } = this.start;
    const { rawArguments, memos, digester } = this;
    // The outcome is a function of the tool name, the raw arguments and the raw result alone.
    const text =
      memos !== undefined && (rawArguments === undefined || typeof rawArguments === 'string')
        ? resultTextOf(end)
        : undefined;
    const result = text !== undefined && memos?.outcomes.admits(text) === true ? text : undefined;
    const args = rawArguments as string | undefined;
    if (result !== undefined) {
      const remembered = memos?.outcomes.get(toolName, result, args);
      if (remembered !== undefined) return remembered;
    }
    const remember =
      result === undefined
        ? undefined
        : (outcome: OutcomeHash) =>
            memos?.outcomes.set(
              toolName,
              result,
              args,
              rememberedOf(digester, outcome, { toolName, result, rawArguments: args }),
            );
    const call: CallContent = { toolName, params: this.parsedParams(), rawArguments, targetHash: this.targetHash };
    const deferred = deferredToolSpanOutcome(digester, call, end, { deferFrom: this.deferFrom, remember });
    if (deferred !== undefined) return deferred;
    const hashed = hashToolSpanOutcome(digester, call, end);
    remember?.(hashed);
    return hashed;
  }

  private parsedParams(): unknown {
    if (!this.parsed) {
      this.params = parseJsonAttribute(this.rawArguments);
      this.parsed = true;
    }
    return this.params;
  }

  private keep(described: DescribedCall, argsHash: string | undefined, rawArguments: unknown): ToolCallSignature {
    this.params = described.params;
    this.parsed = described.unparsed !== true;
    this.rawArguments = argsHash === undefined ? rawArguments : undefined;
    // A pre-computed args hash comes with no params, and then an outcome has no target.
    this.targetHash = argsHash === undefined ? described.call.mutationTargetHash : undefined;
    return described.call;
  }

  private readEnd(span: SpanView): ToolCallEnd {
    this.end ??= boundedEnd(this.adapter.readEnd(span), this.start.toolName);
    return this.end;
  }
}

/** A tool call a model asked for, described for judging. */
export interface RequestedCall {
  readonly toolName: string;
  readonly toolCallId?: string;
  readonly call: ToolCallSignature;
  /** The call's outcome, from a result the agent sent the model (plain text or JSON text, or a value). */
  outcome(result: unknown): OutcomeHash;
}

/** What a model-call (chat) span says about tool calls, read as it ends. */
export interface ChatCalls {
  /** The calls its model asked for, in order. */
  readonly requested: readonly RequestedCall[];
  /** The results sent with it (those of the calls an earlier model call asked for), in order. */
  readonly results: readonly ToolResultMessage[];
  /**
   * Attributes the SDK dropped from the span (its attribute count limit): some of its messages,
   * and the calls in them, may be missing.
   */
  readonly droppedAttributes: number;
}

/** A model-call span, read as it ends. */
export interface ChatCallsSource<S = SpanView> {
  /** Tells it apart from a {@link ToolCallSource}. */
  readonly kind: 'chat';
  /** The adapter that recognised the span. */
  readonly adapter?: ToolSpanAdapter;
  read(span: S): ChatCalls;
}

/** Whether what a reader recognised at a span's end is a model-call span. */
export function isChatCalls<S>(source: ToolCallSource<S> | ChatCallsSource<S>): source is ChatCallsSource<S> {
  return (source as Partial<ChatCallsSource<S>>).kind === 'chat';
}

/**
 * A live model-call span read through its adapter: each requested call described (a call the
 * reader's memo remembers is not parsed again), each outcome hashed with the call's parsed
 * arguments when its result arrives.
 */
class LiveChatCalls implements ChatCallsSource {
  readonly kind = 'chat';

  constructor(
    private readonly digester: Digester,
    readonly adapter: ToolSpanAdapter,
    private readonly memos: ToolTextMemos | undefined,
  ) {}

  read(span: SpanView): ChatCalls {
    const { requested, results } = boundedChat(this.adapter.readChat!(span));
    const { digester } = this;
    const calls: RequestedCall[] = [];
    for (const { toolName, toolCallId, arguments: rawArguments } of requested) {
      const described = describeToolSpanCall(digester, { toolName, arguments: rawArguments }, this.memos?.calls);
      const { call } = described;
      let params = described.params;
      let parsed = described.unparsed !== true;
      calls.push({
        toolName,
        toolCallId,
        call,
        outcome: (result) => {
          if (!parsed) [params, parsed] = [parseJsonAttribute(rawArguments), true];
          return hashToolSpanOutcome(
            digester,
            { toolName, params, targetHash: call.mutationTargetHash },
            { result, hasResult: result !== undefined, isError: false },
          );
        },
      });
    }
    const dropped = (span as { droppedAttributesCount?: unknown }).droppedAttributesCount;
    return { requested: calls, results, droppedAttributes: typeof dropped === 'number' ? dropped : 0 };
  }
}

/** What the span guard needs to know of a starting span. */
export interface SpanReading<S = SpanView> {
  readonly hint?: RunScopeHint;
  readonly compactionRetry: boolean;
  /** Present for a tool span recognised at start. */
  readonly tool?: ToolCallSource<S>;
}

/** The reading of a span that concerns no run and no tool call. */
export const NOTHING_READ: SpanReading<never> = Object.freeze({ compactionRetry: false });

/** How the span guard reads spans: live spans through the adapters, or spans prepared from a file. */
export interface SpanReader<S> {
  /** Reads a starting span ({@link NOTHING_READ} when it is none of our business). */
  readStart(span: S): SpanReading<S>;
  /**
   * A span no adapter recognised at start, as it ends: a tool span whose identifying attributes
   * were set after it started, or a model-call (chat) span whose messages hold tool calls.
   */
  matchEnd(span: S): ToolCallSource<S> | ChatCallsSource<S> | undefined;
  /**
   * Run-scope hints of an ending tool span that was not judged at start: instrumentations that
   * set every attribute after `onStart` (OpenInference's `session.id`) settle the call's run here.
   */
  hintAtEnd?(span: S): RunScopeHint | undefined;
}

/**
 * Reads live spans through the adapters, answering the spans none of them can concern from
 * their triggers (a few attribute lookups) without asking each adapter.
 */
export class AdapterSpanReader implements SpanReader<SpanView> {
  private readonly triggers: SpanTriggers;
  private readonly deferFrom: number;
  private readonly memos: ToolTextMemos | undefined;

  /**
   * `options.deferResultsFrom`: results of at least this many characters are hashed only when
   * their hash is first read (default {@link DEFER_RESULTS_FROM}; `Infinity`: every result as
   * its span ends, as the tests that compare the two do). `options.memos`: what the reader
   * remembers of the calls and results it hashed (default {@link createToolTextMemos}; `false`:
   * nothing, every call and result is hashed, as the tests that compare the two do).
   * @internal the options
   */
  constructor(
    private readonly adapters: readonly ToolSpanAdapter[],
    private readonly digester: Digester,
    options: { readonly deferResultsFrom?: number; readonly memos?: ToolTextMemos | false } = {},
  ) {
    this.triggers = SpanTriggers.of(adapters);
    this.deferFrom = options.deferResultsFrom ?? DEFER_RESULTS_FROM;
    this.memos = options.memos === false ? undefined : (options.memos ?? createToolTextMemos());
  }

  readStart(span: SpanView): SpanReading {
    return this.triggers.mayConcern(span) ? this.readConcerned(span) : NOTHING_READ;
  }

  /**
   * {@link readStart} of a span the triggers let through. Kept apart so that the trigger check
   * alone is inlined into the hooks, not the adapters' reading that most spans never need.
   */
  private readConcerned(span: SpanView): SpanReading {
    const { adapter, start, hint, compactionRetry } = readSpanStart(
      this.adapters,
      span,
      this.triggers.adaptersFor(span),
    );
    if (!start || !adapter) return hint === undefined && !compactionRetry ? NOTHING_READ : { hint, compactionRetry };
    return { hint, compactionRetry, tool: new LiveToolCall(this.digester, adapter, start, this.deferFrom, this.memos) };
  }

  matchEnd(span: SpanView): ToolCallSource | ChatCallsSource | undefined {
    return this.triggers.mayConcern(span) ? this.matchConcerned(span) : undefined;
  }

  /** {@link matchEnd} of a span the triggers let through (kept apart as {@link readConcerned}). */
  private matchConcerned(span: SpanView): ToolCallSource | ChatCallsSource | undefined {
    const only = this.triggers.adaptersFor(span);
    const match = matchSpanEnd(this.adapters, span, only);
    if (match) return new LiveToolCall(this.digester, match.adapter, match.start, this.deferFrom, this.memos);
    const chat = matchChatEnd(this.adapters, span, only);
    return chat && new LiveChatCalls(this.digester, chat, this.memos);
  }

  hintAtEnd(span: SpanView): RunScopeHint | undefined {
    return this.triggers.mayConcern(span)
      ? readScopeHint(this.adapters, span, this.triggers.adaptersFor(span))
      : undefined;
  }
}
