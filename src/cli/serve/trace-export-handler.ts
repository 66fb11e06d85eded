import type { SpanSource } from './span-intake.js';

/** What one export request came to: the spans left out as unusable, and why the first was. */
export interface ExportOutcome {
  readonly rejected: number;
  readonly problem?: string;
}

/**
 * What the receivers hand each OTLP trace export request to, once decoded; the protocol's
 * answer (status codes, bodies, size limits, decompression) is theirs.
 */
export interface TraceExportHandler {
  /**
   * Why the request at hand cannot be taken now (the buffer is full, the service is stopping),
   * or `undefined`; asked once per request, before its body is read. A refused request is
   * answered with the protocol's retryable status: the sender (the collector's exporter) keeps
   * it and tries again.
   */
  refusal(): string | undefined;
  /** False once the service stops (a health check fails). */
  readonly ready: boolean;
  /** Seconds a refused sender should wait before it retries (HTTP `Retry-After`). */
  readonly retryAfterSeconds: number;
  /** Largest request body taken, in bytes (after decompression). */
  readonly maxRequestBytes: number;
  /** Takes a request's spans, as the reader of its encoding reads them. */
  accept(request: SpanSource): ExportOutcome;
}

/** gRPC status codes the receivers answer with (google.rpc.Code). */
export const RPC_INVALID_ARGUMENT = 3;
export const RPC_RESOURCE_EXHAUSTED = 8;
export const RPC_UNAVAILABLE = 14;
