import {
  createNoopMeter,
  metrics,
  type Attributes,
  type Counter,
  type DiagLogger,
  type MeterProvider,
} from '@opentelemetry/api';
import { METRIC_TOOL_LOOP_EVENTS } from '../semconv.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { describeError } from './loop-event-emitter.js';

/**
 * Creates the `tool_loop.events` counter (no-op until a MeterProvider is registered). A meter
 * provider that cannot hand one out (its `getMeter` or `createCounter` throws) gets a no-op
 * counter and a `diag` warning: detection does not depend on metrics.
 */
export function createLoopEventCounter(meterProvider: MeterProvider | undefined, log: DiagLogger): Counter<Attributes> {
  try {
    const meter = (meterProvider ?? metrics).getMeter(PACKAGE_NAME, PACKAGE_VERSION);
    return meter.createCounter(METRIC_TOOL_LOOP_EVENTS, {
      description: 'Tool-loop events emitted by tool-loop-guard (warnings, blocks, aborts, guard arms)',
      unit: '{event}',
    });
  } catch (error) {
    log.warn(
      `the meter provider could not create the ${METRIC_TOOL_LOOP_EVENTS} counter; it is not counted: ${describeError(error)}`,
    );
    return createNoopMeter().createCounter(METRIC_TOOL_LOOP_EVENTS);
  }
}
