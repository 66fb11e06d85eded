import { diag } from '@opentelemetry/api';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { PACKAGE_NAME } from '../version.js';
import { describeError } from '../util/describe-error.js';
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
 * `onEnding` it exports the spans as they are. An exporter that throws from `export` is reported
 * through `diag`, and its result callback gets `FAILED`: the processor in front of it goes on,
 * and settles its exports and `forceFlush` as it would without the wrapper.
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
      // Called once, whatever the exporter does: a processor waits on it (forceFlush, shutdown).
      let reported = false;
      const done: ExportCallback = (result) => {
        if (reported) return;
        reported = true;
        resultCallback(result);
      };
      queueMicrotask(() => {
        try {
          exporter.export(spans.map(exportedView), done);
        } catch (error) {
          log.error(
            `the wrapped exporter's export threw; the spans are reported as not exported: ${describeError(error)}`,
          );
          done({ code: EXPORT_FAILED, error: error instanceof Error ? error : new Error(describeError(error)) });
        }
      });
    },
    // Async, so that an exporter that throws rejects as it would unwrapped, never throws.
    shutdown: async () => exporter.shutdown(),
    forceFlush: async () => exporter.forceFlush?.(),
  };
}

type ExportCallback = Parameters<SpanExporter['export']>[1];

/** `ExportResultCode.FAILED` of `@opentelemetry/core` (not a dependency of ours). */
const EXPORT_FAILED = 1;
