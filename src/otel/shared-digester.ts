import { createDigester, type Digester } from '../engine/hashing/digest.js';

let shared: Promise<Digester> | undefined;

/**
 * Makes `digester` the one helpers hash with, so that hashes computed by `traceToolCall`
 * match those the processor computes from raw attributes (same seed). The most recently
 * created processor wins.
 */
export function shareDigester(digester: Digester): void {
  shared = Promise.resolve(digester);
}

/** The shared digester: the processor's, or a default-seeded one when no processor exists yet. */
export function getSharedDigester(): Promise<Digester> {
  shared ??= createDigester();
  return shared;
}
