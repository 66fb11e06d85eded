import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzip } from 'node:zlib';
import { describeError } from '../../util/describe-error.js';
import type { EngineLogger } from '../../util/logger.js';
import { receiverOf, type Receiver } from './receiver.js';
import type { OtlpProtobuf } from './otlp-protobuf.js';
import type { ListenAddress } from './serve-options.js';
import { jsonSpanSource, NotAnExportRequest } from './span-intake.js';
import {
  RPC_INVALID_ARGUMENT,
  RPC_RESOURCE_EXHAUSTED,
  RPC_UNAVAILABLE,
  type ExportOutcome,
  type TraceExportHandler,
} from './trace-export-handler.js';

const PROTOBUF = 'application/x-protobuf';
const JSON_TYPE = 'application/json';

/** An answer: HTTP status, and for an error the google.rpc code and message of its `Status` body. */
class HttpAnswer extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

/**
 * OTLP/HTTP: `POST /v1/traces` on `address`, `application/x-protobuf` or `application/json`,
 * plain or `Content-Encoding: gzip`; `GET /health` answers 200 while the service takes requests
 * (503 once it stops). Errors are the protocol's, with a `google.rpc.Status` body in the
 * request's encoding: malformed or truncated → 400; larger than `maxRequestBytes`, sent or once
 * decompressed → 413; an unsupported content type or encoding → 415; the service refusing (its
 * buffer is full, it is stopping) → 503 with `Retry-After`, which the collector's exporter
 * retries. One request's failure never touches another's.
 */
export async function startHttpReceiver(
  address: ListenAddress,
  handler: TraceExportHandler,
  codec: OtlpProtobuf,
  log: EngineLogger,
): Promise<Receiver> {
  const server = createServer((request, response) => {
    serve(request, response, handler, codec).catch((error: unknown) => {
      log.error(`OTLP/HTTP request failed: ${describeError(error)}`);
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(address.port, address.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return receiverOf(address.host, port, {
    graceful: (done) => {
      server.close(() => done());
      server.closeIdleConnections();
    },
    force: () => server.closeAllConnections(),
  });
}

async function serve(
  request: IncomingMessage,
  response: ServerResponse,
  handler: TraceExportHandler,
  codec: OtlpProtobuf,
): Promise<void> {
  const path = (request.url ?? '').split('?')[0];
  if (path === '/health') {
    respond(
      response,
      handler.ready ? 200 : 503,
      JSON_TYPE,
      JSON.stringify({ status: handler.ready ? 'ok' : 'stopping' }),
    );
    return;
  }
  const json = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() === JSON_TYPE;
  try {
    if (path !== '/v1/traces') throw new HttpAnswer(404, 5, `no such path ${JSON.stringify(path)}: POST /v1/traces`);
    if (request.method !== 'POST')
      throw new HttpAnswer(405, 12, `method ${request.method ?? ''} not allowed: POST /v1/traces`, { allow: 'POST' });
    const type = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== PROTOBUF && type !== JSON_TYPE)
      throw new HttpAnswer(
        415,
        RPC_INVALID_ARGUMENT,
        `content type must be ${PROTOBUF} or ${JSON_TYPE}, got ${JSON.stringify(type)}`,
      );
    const encoding = (request.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    if (encoding !== 'gzip' && encoding !== 'identity')
      throw new HttpAnswer(
        415,
        RPC_INVALID_ARGUMENT,
        `content encoding must be gzip or none, got ${JSON.stringify(encoding)}`,
      );
    const refusal = handler.refusal();
    if (refusal !== undefined)
      throw new HttpAnswer(503, RPC_UNAVAILABLE, refusal, { 'retry-after': String(handler.retryAfterSeconds) });
    const sent = await readBody(request, handler.maxRequestBytes);
    const body = encoding === 'gzip' ? await decompress(sent, handler.maxRequestBytes) : sent;
    const outcome = json ? acceptJson(body, handler) : acceptProtobuf(body, handler, codec);
    if (json) {
      const partial =
        outcome.rejected > 0
          ? { partialSuccess: { rejectedSpans: String(outcome.rejected), errorMessage: outcome.problem ?? '' } }
          : {};
      respond(response, 200, JSON_TYPE, JSON.stringify(partial));
    } else respond(response, 200, PROTOBUF, codec.encodeTraceResponse(outcome.rejected, outcome.problem ?? ''));
  } catch (error) {
    if (!(error instanceof HttpAnswer)) throw error;
    // A request answered before its body was read: the connection is closed rather than drained.
    if (!request.complete) response.setHeader('connection', 'close');
    for (const [name, value] of Object.entries(error.headers)) response.setHeader(name, value);
    if (json) respond(response, error.status, JSON_TYPE, JSON.stringify({ code: error.code, message: error.message }));
    else respond(response, error.status, PROTOBUF, codec.encodeStatus(error.code, error.message));
    if (!request.complete) request.resume();
  }
}

function acceptProtobuf(body: Buffer, handler: TraceExportHandler, codec: OtlpProtobuf): ExportOutcome {
  let source;
  try {
    source = codec.readTraceRequest(body);
  } catch (error) {
    throw new HttpAnswer(400, RPC_INVALID_ARGUMENT, `malformed ExportTraceServiceRequest: ${(error as Error).message}`);
  }
  return handler.accept(source);
}

function acceptJson(body: Buffer, handler: TraceExportHandler): ExportOutcome {
  let document: unknown;
  try {
    document = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new HttpAnswer(400, RPC_INVALID_ARGUMENT, `malformed JSON: ${(error as Error).message}`);
  }
  let source;
  try {
    source = jsonSpanSource(document);
  } catch (error) {
    if (error instanceof NotAnExportRequest) throw new HttpAnswer(400, RPC_INVALID_ARGUMENT, error.message);
    throw error;
  }
  return handler.accept(source);
}

/** The request body, refused with 413 as soon as it passes `limit` bytes. */
function readBody(request: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else {
        request.off('data', onData);
        reject(tooLarge(limit));
      }
    };
    request.on('data', onData);
    request.once('end', () => {
      if (size <= limit) resolve(Buffer.concat(chunks, size));
    });
    request.once('error', reject);
    request.once('aborted', () => reject(new HttpAnswer(400, RPC_INVALID_ARGUMENT, 'the request was cut short')));
  });
}

/** A gzip body decompressed, refused with 413 past `limit` bytes and with 400 when it is no gzip. */
function decompress(body: Buffer, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) =>
    gunzip(body, { maxOutputLength: limit }, (error, result) => {
      if (!error) resolve(result);
      else if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') reject(tooLarge(limit));
      else reject(new HttpAnswer(400, RPC_INVALID_ARGUMENT, `malformed gzip body: ${error.message}`));
    }),
  );
}

function tooLarge(limit: number): HttpAnswer {
  return new HttpAnswer(413, RPC_RESOURCE_EXHAUSTED, `the request is larger than ${limit} bytes (--max-request-bytes)`);
}

function respond(response: ServerResponse, status: number, type: string, body: string | Uint8Array): void {
  response.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  response.end(body);
}
