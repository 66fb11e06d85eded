import { diag } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { PACKAGE_NAME } from '../version.js';
import { describeError } from './loop-event-emitter.js';
import type { ToolLoopSpanProcessor } from './processor.js';

/**
 * Wraps an exporter so that what `processor` decided reaches the exported spans on SDKs that
 * do not call `onEnding` (`sdk-trace-base` before 2.3, such as the one the Traceloop SDK brings,
 * or Genkit's own): there the processor judges ended spans in `onEnd`, when they are read-only
 * and, when its processor is not first (the Traceloop SDK appends `initialize({ processor })`
 * after its exporting one), already handed to the exporter. The wrapper adds the loop events
 * (`tool_loop.*`) and the `tool_loop.verdict` attribute and applies `redactContent` to the
 * spans it exports. It waits for the end of the current `onEnd` round before exporting, so a
 * processor placed after the exporting one has judged the span by then. On SDKs with
 * `onEnding` it exports the spans as they are.
 *
 * ```ts
 * initialize({ exporter: wrapExporter(exporter, processor), processor });
 * ```
 */
export function wrapExporter(exporter: SpanExporter, processor: ToolLoopSpanProcessor): SpanExporter {
  const view = processor.annotateExports();
  const log = diag.createComponentLogger({ namespace: PACKAGE_NAME });
  const exportedView = (span: ReadableSpan): ReadableSpan => {
    try {
      return view(span);
    } catch (error) {
      log.error(`wrapExporter could not annotate a span: ${describeError(error)}`);
      return span;
    }
  };
  return {
    export(spans, resultCallback) {
      queueMicrotask(() => exporter.export(spans.map(exportedView), resultCallback));
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}
