import type { Span } from '@opentelemetry/sdk-trace-base';

/**
 * The `onEnding` step for spans whose SDK never calls it: `sdk-trace-base` before 2.3 (the
 * Traceloop SDK's 2.0, Genkit's 1.x) and any wrapper that forwards `onStart` / `onEnd` only.
 * On such a span the processor's ending work (judging calls recognised at end, recording
 * outcomes, adding loop events, `redactContent`) would come in `onEnd`, when the span is
 * read-only and may already be exported. Instead {@link install} gives the span its own `end`,
 * which runs that work first, while the span is still writable, then the SDK's `end` (so every
 * processor's `onEnd`, exporters included, sees the annotated span, wherever the processor
 * sits). The own `end` is removed as it runs: the span exported is the SDK's as it was.
 */
export class EndingShim {
  /**
   * The span whose SDK `end` runs now, called from its own `end` after its ending step: the SDK
   * calls the processors' `onEnding` (if it has one) and `onEnd` within it, synchronously.
   */
  private ending: object | undefined = undefined;

  /**
   * Makes `ending(span)` run as `span.end()` is called, before the SDK ends it. `false` when the
   * span cannot take its own `end` (a frozen or sealed span object): its ending then comes in
   * `onEnd`.
   */
  install(span: Span, ending: (span: Span) => void): boolean {
    const end = (span as { end?: unknown }).end;
    if (typeof end !== 'function' || !Object.isExtensible(span)) return false;
    try {
      this.define(span, end as (...args: unknown[]) => unknown, ending);
    } catch {
      // An own `end` that cannot be redefined: the span's ending comes in `onEnd`.
      return false;
    }
    return true;
  }

  private define(span: Span, end: (...args: unknown[]) => unknown, ending: (span: Span) => void): void {
    Object.defineProperty(span, 'end', {
      configurable: true,
      enumerable: false,
      writable: true,
      value: (...args: unknown[]): unknown => {
        // Once: a second end() is the SDK's own, which reports it.
        delete (span as { end?: unknown }).end;
        try {
          ending(span);
        } catch {
          // The processor reports its own failures; the span is ended whatever happens.
        }
        const outer = this.ending;
        this.ending = span;
        try {
          return end.apply(span, args);
        } finally {
          this.ending = outer;
        }
      },
    });
  }

  /** Whether the span is being ended by its own `end`: its ending step has run (`onEnding` and `onEnd` skip it). */
  handled(span: object): boolean {
    return this.ending === span;
  }
}
