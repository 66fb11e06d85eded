import { metrics, type Attributes, type Counter, type MeterProvider } from '@opentelemetry/api';
import { METRIC_TOOL_LOOP_EVENTS } from '../semconv.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';

/** Creates the `tool_loop.events` counter (no-op until a MeterProvider is registered). */
export function createLoopEventCounter(meterProvider?: MeterProvider): Counter<Attributes> {
  const meter = (meterProvider ?? metrics).getMeter(PACKAGE_NAME, PACKAGE_VERSION);
  return meter.createCounter(METRIC_TOOL_LOOP_EVENTS, {
    description: 'Tool-loop events emitted by tool-loop-guard (warnings, blocks, aborts, guard arms)',
    unit: '{event}',
  });
}
