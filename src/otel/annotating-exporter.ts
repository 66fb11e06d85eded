import { diag } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { PACKAGE_NAME } from '../version.js';
import { describeError } from './loop-event-emitter.js';
import type { ToolLoopSpanProcessor } from './processor.js';

/**
 * Wraps an exporter so that what `processor` decided reaches exported spans it could judge only
 * in `onEnd`: on SDKs that do not call `onEnding` (`sdk-trace-base` before 2.3) the processor
 * gives each span its own `end()` instead, and a span that cannot take one (a sealed span object)
 * is judged in `onEnd`, when it is read-only and, behind an exporting processor, already handed
 * to the exporter. The wrapper adds the loop events
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
