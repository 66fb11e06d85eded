import { boundedToolName } from '../hashing/unknown-tool.js';
import type { OutcomeFacts, OutcomeHash } from '../types.js';

type Writable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * The facts of an outcome, or `undefined` when it has none. Reads no hash: a deferred outcome's
 * is computed only when a detector reads it. `options.similarity`: keep the result's sketch and shape
 * (only the near-duplicate detectors read them, and computing them is a pass over the result).
 */
export function outcomeFactsOf(
  outcome: OutcomeHash,
  options: { readonly similarity?: boolean } = {},
): OutcomeFacts | undefined {
  const evidence = options.similarity === true ? outcome.similarity?.() : undefined;
  const facts: Writable<OutcomeFacts> = {};
  const unknownToolName = boundedToolName(outcome.unknownToolName);
  if (unknownToolName !== undefined) facts.unknownToolName = unknownToolName;
  if (outcome.outcomeKind !== undefined) facts.outcomeKind = outcome.outcomeKind;
  if (outcome.failureIdentityHash !== undefined) facts.failureIdentityHash = outcome.failureIdentityHash;
  if (outcome.noProgress !== undefined) facts.noProgress = outcome.noProgress;
  if (outcome.mutationTargetHash !== undefined) facts.mutationTargetHash = outcome.mutationTargetHash;
  if (outcome.typedError !== undefined) facts.typedError = outcome.typedError;
  if (outcome.explainedFailure !== undefined) facts.explainedFailure = outcome.explainedFailure;
  if (evidence?.resultSketch !== undefined) facts.resultSketch = evidence.resultSketch;
  if (evidence?.resultShape !== undefined) facts.resultShape = evidence.resultShape;
  for (const _ in facts) return facts;
  return undefined;
}

/**
 * A `write`'s target hash, when its kind and target are all the facts there are (a record may
 * then keep the target alone, and rebuild the facts when they are read).
 */
export function mutationTargetOnly(facts: OutcomeFacts | undefined): string | undefined {
  if (facts?.outcomeKind !== 'write-mutation') return undefined;
  for (const key in facts) if (key !== 'outcomeKind' && key !== 'mutationTargetHash') return undefined;
  return facts.mutationTargetHash;
}
