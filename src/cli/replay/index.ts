/**
 * Framework-free replay of recorded tool calls through the engine — the parts of the span
 * processor's flow that do not depend on the OTel SDK: adapter readings and hashing
 * (`tool-span-reading`), one run's check → record → outcome → guard order (`run-replay`),
 * and run scoping / run release over a span timeline (`span-replayer`, `trace-replay`).
 */
export * from './tool-span-reading.js';
export * from './run-replay.js';
export * from './span-replayer.js';
export * from './trace-replay.js';
export * from './call-sequence.js';
