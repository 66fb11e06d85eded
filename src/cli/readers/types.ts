import { printable } from '../terminal-text.js';
import type { SpanView } from '../../spans/span-view.js';

/** The input formats the analyzer reads. */
export type InputFormat = 'otlp' | 'jaeger' | 'trajectory';
export const INPUT_FORMATS: readonly InputFormat[] = ['otlp', 'jaeger', 'trajectory'];

/** A span decoded from a trace file. */
export interface DecodedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  /** Microseconds since the epoch. */
  readonly startUs: number;
  readonly endUs: number;
  /** Identity of the emitting process (resource attributes / Jaeger process). */
  readonly process: string;
  /** The emitting service's name, for reports. */
  readonly service?: string;
  /** The emitting process's resource attributes, when the input has them (OTLP), shared by its spans. */
  readonly resource?: Readonly<Record<string, unknown>>;
  readonly view: SpanView;
}

/** One line of the neutral trajectory format: one tool call. */
export interface TrajectoryCall {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly step?: number;
  readonly tool: string;
  readonly args: unknown;
  /** The recorded result (text, or any JSON value); absent = no result. */
  readonly result?: unknown;
  readonly error: boolean;
  readonly synthetic: boolean;
}

/** A problem with an input: unreadable file, unknown format, malformed line. */
export interface InputProblem {
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

/** Formats a problem as `file:line: message`, for a terminal ({@link printable}). */
export function formatProblem(problem: InputProblem): string {
  return printable(`${problem.file}${problem.line !== undefined ? `:${problem.line}` : ''}: ${problem.message}`);
}

/** Receives what a reader decodes. */
export interface DecodeSink {
  span(span: DecodedSpan): void;
  problem(message: string, line?: number): void;
}
