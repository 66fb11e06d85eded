import { mayBeKnownPoll } from '../hashing/known-poll.js';
import { isNoProgressOutcome } from './no-progress-outcome.js';
import type { InFlightCall } from './in-flight-call.js';
import { isVeto, type RunLog } from './run-log.js';
import { signatureKey } from './signature-key.js';

/** The calls of a run that asked again for an answer the run already had. */
export interface RedundantCalls {
  /**
   * Records (and calls in flight) since the run's last progress that repeated an earlier call
   * whose answer was known.
   */
  readonly count: number;
  /** Their distinct args hashes, oldest first. */
  readonly signatures: readonly string[];
  /**
   * The asking signature has an answer in the log and no call since then made progress (a
   * result that was new for its call and not an error): asking again cannot learn anything.
   */
  readonly answerIsCurrent: boolean;
}

const NONE: RedundantCalls = Object.freeze({ count: 0, signatures: [], answerIsCurrent: false });

/**
 * Counts the run's redundant calls since its last progress, oldest first: a record is redundant
 * when an older record of the log had the same signature and the same result hash (the call
 * returned an answer the run already had), and a loop veto is when its signature had any answer
 * before it (the blocked call asked again). Progress (a result new for its call that is not an
 * error) starts the count afresh: a run that left its repeats behind is not looping any more. Calls still in flight count when their signature's answer is current (see
 * below): a batch re-asking known questions is as redundant as the same calls made one by one.
 * Calls of the tools that can be known polls are never counted: asking again is what a poll is
 * for (the history keeps no params, so `process` is left out whatever its action).
 *
 * `key` is the signature about to be called. Its answer stays current until another call makes
 * progress, because progress (an edit that went through, a command that did something new) may
 * have changed what the same call would return now.
 */
export function redundantCallsOf(
  log: RunLog | undefined,
  key: string,
  inFlight: readonly InFlightCall[],
): RedundantCalls {
  if (!log || log.end === log.first) return NONE;
  // Signature key → the distinct result hashes it returned so far in the log, and where the newest was.
  const answers = new Map<string, { hashes: string[]; at: number }>();
  const members: string[] = [];
  let count = 0;
  let answeredAt = -1;
  let progressAt = -1;
  for (let s = log.first; s < log.end; s += 1) {
    const recordKey = log.keyOf(s);
    const known = answers.get(recordKey);
    const resultHash = log.resultHash(s);
    const countable = !mayBeKnownPoll(log.toolName(s));
    if (resultHash === undefined) {
      if (countable && known !== undefined && isVeto(log, s)) {
        count += 1;
        members.push(log.argsHash(s));
      }
      continue;
    }
    if (recordKey === key) answeredAt = s;
    if (known !== undefined) known.at = s;
    if (known?.hashes.includes(resultHash)) {
      if (countable) {
        count += 1;
        members.push(log.argsHash(s));
      }
      continue;
    }
    if (known === undefined) answers.set(recordKey, { hashes: [resultHash], at: s });
    else known.hashes.push(resultHash);
    if (!isNoProgressOutcome(resultHash, log.facts(s)?.noProgress)) {
      progressAt = s;
      count = 0;
      members.length = 0;
    }
  }
  for (const sibling of inFlight) {
    const known = answers.get(signatureKey(sibling.toolName, sibling.argsHash));
    if (known === undefined || known.at < progressAt || mayBeKnownPoll(sibling.toolName)) continue;
    count += 1;
    members.push(sibling.argsHash);
  }
  const answerIsCurrent = answeredAt >= 0 && progressAt <= answeredAt;
  if (count === 0 && !answerIsCurrent) return NONE;
  return { count, signatures: [...new Set(members)], answerIsCurrent };
}
