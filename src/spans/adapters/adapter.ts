import type { OutcomeHash, ToolCallSignature } from '../../engine/types.js';
import type { SpanView } from '../span-view.js';

/** A tool call as an adapter recognises it at span start. */
export interface ToolCallStart {
  readonly toolName: string;
  readonly toolCallId?: string;
  /** A pre-computed normalised args hash (wins over `arguments`). */
  readonly argsHash?: string;
  /** Whether the call is a known poll, when the span says so explicitly. */
  readonly knownPoll?: boolean;
  /** Raw arguments: JSON text (parsed; plain text if not JSON) or an already-parsed value. */
  readonly arguments?: unknown;
  /** With a pre-computed args hash: the call's write target and `tool_call` family, when the span carries them. */
  readonly callFacts?: Pick<ToolCallSignature, 'mutationTargetHash' | 'failureFamily'>;
}

/** What an adapter reads from a span as it ends. */
export interface ToolCallEnd {
  /** Arguments that arrived only at end (instrumentations that record content at end). */
  readonly argsHash?: string;
  readonly knownPoll?: boolean;
  readonly arguments?: unknown;
  /** A pre-computed outcome hash (wins over everything else). */
  readonly resultHash?: string;
  readonly unknownToolName?: string;
  /** The facts written with a pre-computed outcome hash (`tool_loop.outcome_kind` and the others). */
  readonly outcomeFacts?: Omit<OutcomeHash, 'resultHash' | 'unknownToolName'>;
  /** Raw result: JSON text (parsed; plain text if not JSON) or a parsed value. Absent = no result. */
  readonly result?: unknown;
  readonly hasResult: boolean;
  /** Error text when the call failed (status ERROR / exception event). */
  readonly errorText?: string;
  readonly isError: boolean;
}

/** A tool call a model asked for, read from its chat span's output messages. */
export interface RequestedToolCall {
  readonly toolName: string;
  /** The model's id for the call (absent in conventions that record none). */
  readonly toolCallId?: string;
  /** Arguments: JSON text (parsed; plain text if not JSON) or an already-parsed value. */
  readonly arguments?: unknown;
}

/** A tool result an agent sent a model, read from the chat span's input messages. */
export interface ToolResultMessage {
  /** The id of the call it answers (absent in conventions that record none: matched by position). */
  readonly toolCallId?: string;
  /** The result as sent: JSON text (parsed; plain text if not JSON) or a parsed value. */
  readonly result: unknown;
}

/** What a chat span (one model call) says about tool calls, read as it ends. */
export interface ChatToolCalls {
  /** The calls the model asked for in its response (its first choice), in order. */
  readonly requested: readonly RequestedToolCall[];
  /**
   * The results sent with the request: the tool messages after its last assistant message, in
   * order (those of the calls the previous model call asked for).
   */
  readonly results: readonly ToolResultMessage[];
}

/** Run-scope hints a span carries: explicit ids, or "this span is a run". */
export interface RunScopeHint {
  readonly runId?: string;
  readonly agentId?: string;
  /** The span is a run boundary without an id (e.g. `openclaw.run`, an AI SDK root call). */
  readonly startsRun?: boolean;
  /**
   * The span belongs to the run `runId` names but does not bound it (a model call carrying its
   * conversation's id): it never opens the run, so its end releases nothing. Default `false`.
   */
  readonly joinsOnly?: boolean;
}

/**
 * What a span must carry for an adapter to read anything from it. Lets the processor answer
 * the spans no adapter cares about (most of an application's spans) with a few attribute
 * lookups instead of asking every adapter.
 */
export interface AdapterTriggers {
  /**
   * Attribute keys: a span carrying none of them (and not named one of {@link spanNames}) gets
   * `undefined` from `matchStart`, `matchEnd` and `scopeHint`, and `false` from `rejects`.
   */
  readonly attributes: readonly string[];
  /** Span names that concern the adapter whatever their attributes. */
  readonly spanNames?: readonly string[];
}

/**
 * One instrumentation convention. Adding a convention is adding one file that implements
 * this and listing it in `adapters/index.ts`.
 */
export interface ToolSpanAdapter {
  readonly name: string;
  /** Recognises a tool span at start; `undefined` when the span is not one of this convention's tool spans. */
  matchStart(span: SpanView): ToolCallStart | undefined;
  /**
   * `true` when the span is this convention's but not a call to judge (e.g. an OpenClaw veto
   * span), so that later adapters (the generic GenAI one) do not claim it at start.
   */
  rejects?(span: SpanView): boolean;
  /**
   * Recognises, as the span ends, a tool span whose identifying attributes were set only after
   * it started (e.g. Traceloop sets `traceloop.span.kind` inside the started span). Called only
   * for spans no adapter matched at start; such spans are evaluated at end.
   */
  matchEnd?(span: SpanView): ToolCallStart | undefined;
  /** Reads arguments (if they arrive late) and the outcome as the span ends. */
  readEnd(span: SpanView): ToolCallEnd;
  /**
   * `true` for a model-call (chat) span of this convention, as it ends: an LLM-client
   * instrumentation's span, whose output messages hold the tool calls the model asked for and
   * whose input messages hold the results of earlier ones. Such a span is then read with
   * {@link readChat}. Only asked about spans no adapter took for a tool span.
   */
  matchChat?(span: SpanView): boolean;
  /** Reads a span {@link matchChat} recognised, as it ends. */
  readChat?(span: SpanView): ChatToolCalls;
  /** Attributes holding raw content, removed after hashing when `redactContent` is on. */
  readonly contentAttributes?: readonly string[];
  /**
   * Prefixes of attributes holding raw content (flattened message lists such as
   * `llm.input_messages.0.message.content`): every attribute that starts with one is removed
   * with {@link contentAttributes}.
   */
  readonly contentAttributePrefixes?: readonly string[];
  /** Run-scope hints on any span (not only tool spans). */
  scopeHint?(span: SpanView): RunScopeHint | undefined;
  /**
   * The attributes and span names without which this adapter reads nothing from a span. Optional:
   * when any adapter in use leaves it out, every span is shown to every adapter (correct, slower).
   */
  readonly triggers?: AdapterTriggers;
}
