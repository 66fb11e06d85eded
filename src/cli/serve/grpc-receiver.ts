import type { ServiceDefinition, sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import { describeError } from '../../util/describe-error.js';
import type { EngineLogger } from '../../util/logger.js';
import type { OtlpProtobuf } from './otlp-protobuf.js';
import type { ListenAddress } from './serve-options.js';
import { receiverOf, type Receiver } from './receiver.js';
import type { TraceExportHandler } from './trace-export-handler.js';

/** The method the collector's OTLP/gRPC exporters (the load-balancing exporter's among them) call. */
export const TRACE_EXPORT_PATH = '/opentelemetry.proto.collector.trace.v1.TraceService/Export';

/** Requests and responses pass through grpc-js as bytes: decoding is ours. */
const IDENTITY = (bytes: Buffer): Buffer => bytes;

/**
 * OTLP/gRPC: `TraceService/Export` on `address`, insecure (it runs next to the collector).
 * Requests are decoded here (not by grpc-js, so a malformed one gets a clear message):
 * malformed or truncated → `INVALID_ARGUMENT`; larger than `maxRequestBytes`, compressed or
 * once gzip-decompressed → `RESOURCE_EXHAUSTED` (grpc-js); the service refusing (its buffer is
 * full, it is stopping) → `UNAVAILABLE`, which the collector's exporter retries. One request's
 * failure never touches another's.
 */
export async function startGrpcReceiver(
  address: ListenAddress,
  handler: TraceExportHandler,
  codec: OtlpProtobuf,
  log: EngineLogger,
): Promise<Receiver> {
  const grpc = await import('@grpc/grpc-js');
  const definition: ServiceDefinition = {
    Export: {
      path: TRACE_EXPORT_PATH,
      requestStream: false,
      responseStream: false,
      requestSerialize: IDENTITY,
      requestDeserialize: IDENTITY,
      responseSerialize: IDENTITY,
      responseDeserialize: IDENTITY,
    },
  };
  const exportCall = (call: ServerUnaryCall<Buffer, Buffer>, answer: sendUnaryData<Buffer>): void => {
    const refusal = handler.refusal();
    if (refusal !== undefined) {
      answer({ code: grpc.status.UNAVAILABLE, details: refusal });
      return;
    }
    let source;
    try {
      source = codec.readTraceRequest(call.request);
    } catch (error) {
      answer({
        code: grpc.status.INVALID_ARGUMENT,
        details: `malformed ExportTraceServiceRequest: ${(error as Error).message}`,
      });
      return;
    }
    try {
      const outcome = handler.accept(source);
      answer(null, Buffer.from(codec.encodeTraceResponse(outcome.rejected, outcome.problem ?? '')));
    } catch (error) {
      log.error(`OTLP/gRPC export failed: ${describeError(error)}`);
      answer({ code: grpc.status.INTERNAL, details: 'the request could not be processed' });
    }
  };
  const server = new grpc.Server({
    'grpc.max_receive_message_length': handler.maxRequestBytes,
  });
  server.addService(definition, { Export: exportCall });
  const host = address.host.includes(':') ? `[${address.host}]` : address.host;
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${host}:${address.port}`, grpc.ServerCredentials.createInsecure(), (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return receiverOf(address.host, port, {
    graceful: (done) => server.tryShutdown(() => done()),
    force: () => server.forceShutdown(),
  });
}
