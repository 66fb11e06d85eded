/**
 * A tiny OTLP/HTTP JSON receiver for tests: listens on 127.0.0.1 (port 0 → a random
 * free port), accepts `POST /v1/traces` and `POST /v1/metrics` with a JSON body and keeps every
 * decoded request body. Non-JSON content types get 415, other paths 404, other methods 405.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One OTLP `AnyValue` in the JSON encoding. */
export interface OtlpAnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: OtlpAnyValue[] };
  kvlistValue?: { values?: OtlpKeyValue[] };
  bytesValue?: string;
}

export interface OtlpKeyValue {
  key: string;
  value?: OtlpAnyValue;
}

export interface OtlpEvent {
  name: string;
  timeUnixNano?: string | number;
  attributes?: OtlpKeyValue[];
}

export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano?: string | number;
  endTimeUnixNano?: string | number;
  links?: Array<{ traceId: string; spanId: string }>;
  attributes?: OtlpKeyValue[];
  events?: OtlpEvent[];
  status?: { code?: number; message?: string };
}

export interface OtlpTraceRequest {
  resourceSpans?: Array<{ resource?: { attributes?: OtlpKeyValue[] }; scopeSpans?: Array<{ spans?: OtlpSpan[] }> }>;
}

/** One data point of a sum, as the OTLP JSON encoding has it. */
export interface OtlpNumberPoint {
  attributes?: OtlpKeyValue[];
  asInt?: string | number;
  asDouble?: number;
}

export interface OtlpMetricsRequest {
  resourceMetrics?: Array<{
    resource?: { attributes?: OtlpKeyValue[] };
    scopeMetrics?: Array<{
      metrics?: Array<{
        name: string;
        sum?: { dataPoints?: OtlpNumberPoint[] };
        gauge?: { dataPoints?: OtlpNumberPoint[] };
      }>;
    }>;
  }>;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>/v1/traces`. */
  readonly url: string;
  readonly port: number;
  /** Decoded bodies of accepted requests, in arrival order. */
  readonly requests: OtlpTraceRequest[];
  /** Raw bodies of accepted requests. */
  readonly rawBodies: string[];
  /** Status codes answered so far, in order (accepted and rejected). */
  readonly statuses: number[];
  /** Decoded bodies of accepted `/v1/metrics` requests, in arrival order. */
  readonly metricRequests: OtlpMetricsRequest[];
  /** Every span of every accepted request. */
  spans(): OtlpSpan[];
  close(): Promise<void>;
}

/** Starts the receiver. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const requests: OtlpTraceRequest[] = [];
  const rawBodies: string[] = [];
  const statuses: number[] = [];
  const metricRequests: OtlpMetricsRequest[] = [];

  const answer = (res: ServerResponse, status: number, body: string, type = 'application/json') => {
    statuses.push(status);
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };

  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0];
      if (path !== '/v1/traces' && path !== '/v1/metrics') return answer(res, 404, '{"error":"not found"}');
      if (req.method !== 'POST') return answer(res, 405, '{"error":"method not allowed"}');
      const type = (req.headers['content-type'] ?? '').toLowerCase();
      if (!type.startsWith('application/json'))
        return answer(res, 415, '{"error":"only application/json is accepted"}');
      const text = Buffer.concat(chunks).toString('utf8');
      let decoded: OtlpTraceRequest;
      try {
        decoded = JSON.parse(text) as OtlpTraceRequest;
      } catch {
        return answer(res, 400, '{"error":"invalid JSON"}');
      }
      if (path === '/v1/metrics') metricRequests.push(decoded as OtlpMetricsRequest);
      else {
        rawBodies.push(text);
        requests.push(decoded);
      }
      return answer(res, 200, '{}');
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    port,
    requests,
    rawBodies,
    statuses,
    metricRequests,
    spans: () =>
      requests.flatMap((request) =>
        (request.resourceSpans ?? []).flatMap((rs) => (rs.scopeSpans ?? []).flatMap((ss) => ss.spans ?? [])),
      ),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** Decodes an OTLP JSON `AnyValue` to a plain JS value (intValue as a number). */
export function otlpValue(value: OtlpAnyValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(otlpValue);
  if (value.kvlistValue !== undefined) return otlpAttributes(value.kvlistValue.values);
  if (value.bytesValue !== undefined) return value.bytesValue;
  return undefined;
}

/** Decodes an OTLP JSON attribute list to a record. */
export function otlpAttributes(list: OtlpKeyValue[] | undefined): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = otlpValue(value);
  return out;
}
