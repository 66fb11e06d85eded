/**
 * The pipeline users run, without the network: a `BatchSpanProcessor` whose exporter serialises
 * each batch to OTLP protobuf (`ProtobufTraceSerializer`, as the OTLP exporters do) and drops
 * the bytes. A processor's cost is put beside this as well as beside the bare SDK.
 */
import { BatchSpanProcessor, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';

/** Counts what it serialised, so a run can check that no span was dropped. */
export class NullProtobufExporter implements SpanExporter {
  spans = 0;
  bytes = 0;

  export(spans: ReadableSpan[], resultCallback: (result: { code: number }) => void): void {
    const body = ProtobufTraceSerializer.serializeRequest(spans);
    this.spans += spans.length;
    this.bytes += body?.length ?? 0;
    resultCallback({ code: 0 });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}

export function realisticPipeline(): { processor: BatchSpanProcessor; exporter: NullProtobufExporter } {
  const exporter = new NullProtobufExporter();
  return { processor: new BatchSpanProcessor(exporter), exporter };
}

/**
 * The batch processor exports 512 spans synchronously once its queue holds them, but starts the
 * next export only after a microtask; a synchronous loop longer than its queue (2048) would make
 * it drop spans. Pipeline batches therefore yield to microtasks every `PIPELINE_YIELD_EVERY` spans.
 */
export const PIPELINE_YIELD_EVERY = 256;

/** The batch processor's default `maxExportBatchSize`: one export per this many spans. */
export const EXPORT_BATCH = 512;
