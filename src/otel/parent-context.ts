import { ROOT_CONTEXT, trace, type Context, type Span as ApiSpan } from '@opentelemetry/api';
import type { ContextRun, SpanParentContext } from '../spans/run-scope.js';
import { contextRunOf } from './context-run.js';
import { isEvidenceContext } from './evidence-spans.js';
import { HelperRequest } from './helper-bridge.js';

/** What the processor reads from the context a span starts in (the span guard's start takes it as it is). */
export interface ParentContextReading extends SpanParentContext {
  /** An evidence span's context (ours or another processor's): the span is about a loop, never part of one. */
  readonly evidence: boolean;
  /** A helper's request for the processor of the span (`traceRun`, `traceToolCall`). */
  readonly request: HelperRequest | undefined;
  /** The parent span when it is local (same process). */
  readonly parent: ApiSpan | undefined;
  /** Whether the parent span is remote: the span enters the trace here. */
  readonly remoteParent: boolean;
  /** The run the context carries (`withRun`). */
  readonly run: ContextRun | undefined;
}

const IN_ROOT: ParentContextReading = Object.freeze({
  evidence: false,
  request: undefined,
  parent: undefined,
  remoteParent: false,
  run: undefined,
});

/**
 * Reads span start contexts, keeping the last reading: a context never changes, and a service
 * starts a span's children in one context, so each is looked up once for all of them.
 */
export class ParentContexts {
  private context: Context = ROOT_CONTEXT;
  private reading: ParentContextReading = IN_ROOT;

  read(context: Context): ParentContextReading {
    if (context !== this.context) {
      this.reading = readParentContext(context);
      this.context = context;
    }
    return this.reading;
  }

  /** Lets go of the last context read (it holds its spans). */
  clear(): void {
    this.context = ROOT_CONTEXT;
    this.reading = IN_ROOT;
  }
}

function readParentContext(context: Context): ParentContextReading {
  // The root context holds no values.
  if (context === ROOT_CONTEXT) return IN_ROOT;
  const span = trace.getSpan(context);
  const remoteParent = span?.spanContext().isRemote === true;
  return {
    evidence: isEvidenceContext(context),
    request: HelperRequest.of(context),
    parent: remoteParent ? undefined : span,
    remoteParent,
    run: contextRunOf(context),
  };
}
