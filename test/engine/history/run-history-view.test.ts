/**
 * The detector queries of a run's history answer through its log's reads by position and
 * signature lookups, and the shortcuts they take (no allocation before a record qualifies, a
 * deferred result not hashed unless compared): whatever the history, each answer must be what a
 * plain scan of its records gives, over the packed log and the plain one alike. Few tools,
 * arguments and results, so that streaks, churn and repeats do form.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isNoProgressOutcome } from '../../../src/engine/history/no-progress-outcome.js';
import { RunHistoryView } from '../../../src/engine/history/run-history-view.js';
import type { OutcomeHash, ToolCallRecord } from '../../../src/engine/types.js';
import { appendCall, appendVeto, attachOutcome, recordsOf, RUN_LOGS } from '../../helpers/run-logs.js';

const TOOLS = ['write', 'read', 'exec'];
const DIGESTS = ['0000000000000001', '0000000000000002', '00000000000000f3', 'ffffffffffffffff'];
const TARGETS = ['000000000000000a', '000000000000000b'];

/** Mostly this package's `<tool>:<digest>` (the same digest under several tools), sometimes a shared pre-computed one. */
const argsOf = (tool: string, pick: number): string =>
  pick % 9 === 8 ? 'shared' : `${tool}:${DIGESTS[pick % DIGESTS.length]}`;

const resultHash = fc.constantFrom('0000000000000011', '0000000000000012', 'error:0000000000000013', 'r-text');

const outcome: fc.Arbitrary<OutcomeHash> = fc.oneof(
  { weight: 5, arbitrary: resultHash.map((hash) => ({ resultHash: hash })) },
  { weight: 2, arbitrary: resultHash.map((hash) => ({ resultHash: hash, noProgress: true as const })) },
  {
    weight: 3,
    arbitrary: fc.record({ hash: resultHash, target: fc.constantFrom(...TARGETS) }).map(({ hash, target }) => ({
      resultHash: hash,
      outcomeKind: 'write-mutation' as const,
      mutationTargetHash: target,
    })),
  },
  { weight: 1, arbitrary: fc.constant({ outcomeKind: 'tool-loop-veto' as const }) },
);

const step = fc.record({
  kind: fc.constantFrom('call', 'outcome', 'complete', 'complete', 'complete', 'veto'),
  /** A completed call made again with the same outcome: what streaks and churn are made of. */
  times: fc.integer({ min: 1, max: 4 }),
  tool: fc.constantFrom(...TOOLS),
  pick: fc.nat({ max: 35 }),
  outcome,
  ask: fc.record({ tool: fc.constantFrom(...TOOLS), pick: fc.nat({ max: 35 }), target: fc.constantFrom(...TARGETS) }),
});

const isVeto = (r: ToolCallRecord) => r.outcomeKind === 'tool-loop-veto';

/** OpenClaw's no-progress streak of one signature, newest first (vetoes count once anchored). */
function noProgressStreak(records: readonly ToolCallRecord[], tool: string, args: string) {
  let latestResultHash: string | undefined;
  let count = 0;
  let vetoes = 0;
  for (const r of [...records].reverse()) {
    if (r.toolName !== tool || r.argsHash !== args) continue;
    if (r.resultHash === undefined) {
      if (isVeto(r)) vetoes += 1;
      continue;
    }
    if (latestResultHash === undefined) latestResultHash = r.resultHash;
    else if (r.resultHash !== latestResultHash) break;
    count += vetoes + 1;
    vetoes = 0;
  }
  return latestResultHash === undefined ? { count: vetoes } : { count, latestResultHash };
}

/** OpenClaw's stable argument churn, written as a plain grouping of the newest records of the tool. */
function argumentChurn(records: readonly ToolCallRecord[], tool: string, args: string) {
  const groups = new Map<string, { resultHash: string; count: number }>();
  for (const r of [...records].reverse()) {
    if (r.toolName !== tool) break;
    if (r.resultHash === undefined) continue;
    if (!isNoProgressOutcome(r.resultHash, r.noProgress)) break;
    const group = groups.get(r.argsHash);
    if (group && group.resultHash !== r.resultHash) break;
    groups.set(r.argsHash, { resultHash: r.resultHash, count: (group?.count ?? 0) + 1 });
  }
  const all = [...groups.values()];
  const stable = all.filter((g) => g.count >= 3);
  const churns =
    stable.length > 1 &&
    stable.length === all.length &&
    new Set(stable.map((g) => g.resultHash)).size === 1 &&
    (groups.get(args)?.count ?? 0) >= 3;
  return churns
    ? { count: all.reduce((n, g) => n + g.count, 0), variantCount: stable.length }
    : { count: 0, variantCount: 0 };
}

/** OpenClaw's same-target write churn: distinct argument variants of the newest writes to the target. */
function writeTargetChurn(records: readonly ToolCallRecord[], args: string, target: string) {
  const variants: string[] = [];
  for (const r of [...records].reverse()) {
    if (r.toolName !== 'write' || r.outcomeKind !== 'write-mutation' || r.mutationTargetHash !== target) break;
    const at = variants.indexOf(r.argsHash);
    if (at >= 0) {
      variants.length = at + 1;
      break;
    }
    variants.push(r.argsHash);
  }
  return variants.includes(args)
    ? { count: 0, variantCount: 0 }
    : { count: variants.length, variantCount: variants.length };
}

describe.each(RUN_LOGS)('run history over the %s log', (_, newLog) => {
  it('answer as a plain scan of the records does, for signatures held and not', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.array(step, { maxLength: 200 }), (historySize, steps) => {
        const log = newLog();
        for (const s of steps) {
          const args = argsOf(s.tool, s.pick);
          const call = { toolName: s.tool, argsHash: args };
          if (s.kind === 'call') appendCall(log, call, historySize);
          else if (s.kind === 'veto') appendVeto(log, call, historySize);
          else {
            for (let n = s.kind === 'complete' ? s.times : 1; n > 0; n -= 1) {
              if (s.kind === 'complete') appendCall(log, call, historySize);
              attachOutcome(log, call, s.outcome, historySize);
            }
          }
          const records = recordsOf(log);
          const view = new RunHistoryView(log);
          const asked = argsOf(s.ask.tool, s.ask.pick);
          for (const [tool, hash] of [
            [s.tool, args],
            [s.ask.tool, asked],
          ]) {
            expect(view.noProgressStreak(hash, tool)).toEqual(noProgressStreak(records, tool, hash));
            expect(view.recentCount(hash, tool)).toBe(
              records.filter((r) => r.toolName === tool && r.argsHash === hash).length,
            );
            expect(view.argumentChurn(tool, hash)).toEqual(argumentChurn(records, tool, hash));
            expect(view.writeTargetChurn(hash, s.ask.target)).toEqual(writeTargetChurn(records, hash, s.ask.target));
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
