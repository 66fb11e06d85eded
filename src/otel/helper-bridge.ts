import { createContextKey, type Context, type Span } from '@opentelemetry/api';
import type { OutcomeHash, ToolOutcome } from '../engine/hashing/outcome-hash.js';
import type { ToolCallSignature } from '../engine/types.js';
import * as sc from '../semconv.js';

/**
 * What a processor offers the helpers (`traceRun`, `traceToolCall`) whose spans it sees start:
 * its hashing (its seed) and its run aborts. Reached through a {@link HelperRequest} in the
 * span's parent context, never through module state, so that two processors on two providers
 * in one process never see each other's runs.
 */
export interface HelperBridge {
  /** Hashes a call's arguments as the processor hashes raw arguments. */
  describeCall(toolName: string, params: unknown): ToolCallSignature;
  /** Hashes a call's outcome as the processor hashes raw results. */
  hashOutcome(outcome: ToolOutcome): OutcomeHash;
  /** Registers a `traceRun` controller, aborted with the run; returns the function that unregisters it. */
  registerRun(runId: string, controller: AbortController): () => void;
}

/** The call a `traceToolCall` span stands for, hashed by the processor as the span starts. */
export interface RequestedCall {
  readonly toolName: string;
  readonly params: unknown;
}

const HELPER_REQUEST = createContextKey('tool-loop-guard helper request');

/**
 * A helper's request for the processor of the span it is about to start. The helper starts
 * its span in {@link context}; the processor that sees that span start answers (and, for a tool
 * call, writes the args hash onto the span before judging it); the helper then reads the answer
 * with {@link close}, after which nothing can answer any more — the spans the helper's body
 * starts in the same context are not the helper's.
 */
export class HelperRequest {
  private bridge: HelperBridge | undefined = undefined;
  private open = true;

  private constructor(readonly call: RequestedCall | undefined) {}

  /** A request, and the context to start the helper's span in. */
  static start(parent: Context, call?: RequestedCall): { request: HelperRequest; context: Context } {
    const request = new HelperRequest(call);
    return { request, context: parent.setValue(HELPER_REQUEST, request) };
  }

  /** The processor's answer: the bridge, or `undefined` when no processor saw the span. Closes the request. */
  close(): HelperBridge | undefined {
    this.open = false;
    return this.bridge;
  }

  /** The request in a span's parent context, if any. */
  static of(parentContext: Context): HelperRequest | undefined {
    const request = parentContext.getValue(HELPER_REQUEST);
    return request instanceof HelperRequest ? request : undefined;
  }

  /**
   * The processor's side, at the start of a span in the request's context: answers the request
   * while it is open and unanswered, and writes a requested call's `tool_loop.args_hash` and
   * `tool_loop.poll` (and its write target and `tool_call` family, which the args hash no longer
   * shows).
   */
  answer(span: Span, bridge: HelperBridge): void {
    if (!this.open || this.bridge) return;
    this.bridge = bridge;
    if (!this.call) return;
    const call = bridge.describeCall(this.call.toolName, this.call.params);
    span.setAttribute(sc.ATTR_TOOL_LOOP_ARGS_HASH, call.argsHash);
    span.setAttribute(sc.ATTR_TOOL_LOOP_POLL, call.knownPoll);
    if (call.mutationTargetHash !== undefined)
      span.setAttribute(sc.ATTR_TOOL_LOOP_MUTATION_TARGET_HASH, call.mutationTargetHash);
    if (call.failureFamily !== undefined) span.setAttribute(sc.ATTR_TOOL_LOOP_FAILURE_FAMILY, call.failureFamily);
  }
}
