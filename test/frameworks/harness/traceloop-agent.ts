import { withTool } from '@traceloop/node-server-sdk';
import { argsFor, CALLS, TOOL_NAME, type ToolBody } from './scenario.js';

/**
 * A scripted agent loop over the Traceloop SDK's `withTool`: CALLS tool calls, checking the
 * run's signal before each one as an agent loop checks it before each model step.
 */
export async function traceloopAgent(body: ToolBody, signal?: AbortSignal): Promise<void> {
  for (let call = 0; call < CALLS; call += 1) {
    signal?.throwIfAborted();
    await withTool({ name: TOOL_NAME }, async (args: ReturnType<typeof argsFor>) => body.run(args), argsFor(body.variant, call));
  }
}

/** `initialize` options that keep the SDK offline: no API key, no prompt-registry sync, no banner. */
export const OFFLINE = { appName: 'framework-tests', traceloopSyncEnabled: false, silenceInitializationMessage: true, disableBatch: true } as const;
