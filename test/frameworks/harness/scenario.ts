import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import type { LoopEvent } from 'tool-loop-guard';

/**
 * The three agents of the acceptance criteria, each asking for 30 tool calls:
 * - `loop`: same tool, same arguments, same result every time;
 * - `healthy`: same arguments, but the result changes (progress);
 * - `clean`: different arguments every time.
 */
export type Variant = 'loop' | 'healthy' | 'clean';

export const VARIANTS: readonly Variant[] = ['loop', 'healthy', 'clean'];

/** How many tool calls each scripted model asks for before it answers. */
export const CALLS = 30;

/** The tool every scripted model calls; not one of OpenClaw's known poll tools. */
export const TOOL_NAME = 'lookup_order';

export interface LookupArgs {
  orderId: string;
}

/** Arguments of the call with 0-based index `call`. */
export function argsFor(variant: Variant, call: number): LookupArgs {
  return { orderId: variant === 'clean' ? `order-${call}` : 'order-42' };
}

/** What the tool returns on its `execution`-th run (0-based). */
export function resultFor(variant: Variant, execution: number): string {
  return variant === 'loop' ? 'status: pending' : `status: step ${execution}`;
}

/** Counts executions inside the tool body, the only proof that a call ran. */
export class ToolBody {
  executions = 0;
  readonly argsSeen: LookupArgs[] = [];

  constructor(readonly variant: Variant) {}

  run(args: LookupArgs): string {
    this.argsSeen.push(args);
    const result = resultFor(this.variant, this.executions);
    this.executions += 1;
    return result;
  }
}

/** Event names the guard adds to tool spans. */
export const WARNING_EVENT = 'tool_loop.warning';
export const BLOCKED_EVENT = 'tool_loop.blocked';

/** Exported spans in start order. */
export function byStart(spans: readonly ReadableSpan[]): ReadableSpan[] {
  return [...spans].sort((a, b) => a.startTime[0] - b.startTime[0] || a.startTime[1] - b.startTime[1]);
}

/** 1-based positions, among `toolSpans` in start order, of the spans carrying event `name`. */
export function callsWithEvent(toolSpans: readonly ReadableSpan[], name: string): number[] {
  return byStart(toolSpans).flatMap((span, index) => (span.events.some((event) => event.name === name) ? [index + 1] : []));
}

/** What a variant test asserts about the guard's callbacks and the exported tool spans. */
export interface Observed {
  events: readonly LoopEvent[];
  toolSpans: readonly ReadableSpan[];
}

export function levels(events: readonly LoopEvent[]): string[] {
  return events.map((event) => `${event.level}:${event.detector}:${event.count}`);
}
