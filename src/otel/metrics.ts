import {
  createNoopMeter,
  metrics,
  type Attributes,
  type Counter,
  type DiagLogger,
  type MeterProvider,
} from '@opentelemetry/api';
import { METRIC_TOOL_LOOP_EVENTS, METRIC_TOOL_LOOP_RECOVERY } from '../semconv.js';
import { PACKAGE_NAME, PACKAGE_VERSION } from '../version.js';
import { describeError } from '../util/describe-error.js';

/**
 * Creates the `tool_loop.events` counter (no-op until a MeterProvider is registered). A meter
 * provider that cannot hand one out (its `getMeter` or `createCounter` throws) gets a no-op
 * counter and a `diag` warning: detection does not depend on metrics.
 */
export function createLoopEventCounter(meterProvider: MeterProvider | undefined, log: DiagLogger): Counter<Attributes> {
  return createCounter(meterProvider, log, METRIC_TOOL_LOOP_EVENTS, {
    description: 'Tool-loop events emitted by tool-loop-guard (warnings, blocks, aborts, guard arms)',
    unit: '{event}',
  });
}

/** Creates the `tool_loop.recovery` counter, as {@link createLoopEventCounter} does. */
export function createRecoveryCounter(meterProvider: MeterProvider | undefined, log: DiagLogger): Counter<Attributes> {
  return createCounter(meterProvider, log, METRIC_TOOL_LOOP_RECOVERY, {
    description:
      'What runs did after a surfaced loop warning or block: left the loop (recovered), repeated it, or ended (tool_loop.recovery.outcome)',
    unit: '{verdict}',
  });
}

function createCounter(
  meterProvider: MeterProvider | undefined,
  log: DiagLogger,
  name: string,
  options: { description: string; unit: string },
): Counter<Attributes> {
  try {
    return (meterProvider ?? metrics).getMeter(PACKAGE_NAME, PACKAGE_VERSION).createCounter(name, options);
  } catch (error) {
    log.warn(`the meter provider could not create the ${name} counter; it is not counted: ${describeError(error)}`);
    return createNoopMeter().createCounter(name);
  }
}
