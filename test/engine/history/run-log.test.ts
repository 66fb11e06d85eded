/**
 * A run's log, packed (hashes as numbers, timestamps as offsets, every other form kept as it
 * came) or plain: whatever it is given, its records and the per-signature answers must be what a
 * plain list of records gives. The same properties run against both.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RunHistoryView } from '../../../src/engine/history/run-history-view.js';
import { signatureKey } from '../../../src/engine/history/signature-key.js';
import type { OutcomeHash, ToolCallRecord } from '../../../src/engine/types.js';
import { appendCall, appendVeto, attachOutcome, lengthOf, recordsOf, RUN_LOGS } from '../../helpers/run-logs.js';

const hex16 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((n) => n.toString(16).padStart(16, '0'));
const tools = ['read', 'exec', 'write', 'a:b', 'ünï', ''];

/** Args hashes of every form: this package's `<tool>:<digest>`, and pre-computed ones that are not. */
function argsHashOf(tool: string): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 6,
      arbitrary: fc.constantFrom('0000000000000000', 'ffffffffffffffff', '8000000000000001').map((d) => `${tool}:${d}`),
    },
    { weight: 6, arbitrary: hex16.map((d) => `${tool}:${d}`) },
    { weight: 1, arbitrary: hex16.map((d) => `${tool}:${d.toUpperCase()}`) },
    { weight: 1, arbitrary: hex16.map((d) => `${tool}:${d.slice(1)}`) },
    {
      weight: 1,
      arbitrary: fc
        .record({ d: hex16, at: fc.nat({ max: 15 }), c: fc.constantFrom('g', 'G', '/', ':', '`', '\u0660', '\u0130') })
        .map(({ d, at, c }) => `${tool}:${d.slice(0, at)}${c}${d.slice(at + 1)}`),
    },
    { weight: 1, arbitrary: fc.constantFrom('shared', `${tool}:x`, `${tool}:${'0'.repeat(16)}:1`, '') },
  );
}

const callId = fc.oneof(
  { weight: 3, arbitrary: fc.constant(undefined) },
  { weight: 6, arbitrary: fc.string({ maxLength: 40 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom('', 'call_a', 'toolu_01ABCDEFGHIJKLMNOPQRSTUV', 'çàll-ÿ', '呼び出し', 'a\u0000b'),
  },
  { weight: 1, arbitrary: fc.constant('x'.repeat(40_000)) },
);

const resultHash = fc.oneof(
  hex16,
  hex16.map((d) => `error:${d}`),
  fc.constantFrom(
    'r1',
    'error:x',
    'ERROR:0000000000000000',
    'FFFFFFFFFFFFFFFF',
    '00000000FFFFFFFF',
    'error:00000000000000000',
    '',
  ),
);

const outcome: fc.Arbitrary<OutcomeHash> = fc.oneof(
  { weight: 6, arbitrary: resultHash.map((hash) => ({ resultHash: hash })) },
  {
    weight: 2,
    arbitrary: fc.record({ resultHash, target: hex16 }).map(({ resultHash: hash, target }) => ({
      resultHash: hash,
      outcomeKind: 'write-mutation' as const,
      mutationTargetHash: target,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ resultHash, target: hex16 }).map(({ resultHash: hash, target }) => ({
      resultHash: hash,
      outcomeKind: 'write-mutation' as const,
      mutationTargetHash: target,
      typedError: 'write:EACCES',
    })),
  },
  {
    weight: 1,
    arbitrary: fc.record({ resultHash, identity: hex16 }).map(({ resultHash: hash, identity }) => ({
      resultHash: hash,
      outcomeKind: 'terminal-exec-failure' as const,
      failureIdentityHash: identity,
    })),
  },
  { weight: 1, arbitrary: resultHash.map((hash) => ({ resultHash: hash, typedError: 'write:EACCES' })) },
  { weight: 1, arbitrary: resultHash.map((hash) => ({ resultHash: hash, noProgress: true as const })) },
  { weight: 1, arbitrary: fc.constant({ outcomeKind: 'tool-loop-veto' as const }) },
);

interface StepBase {
  tool: string;
  args: string;
  id: string | undefined;
  dt: number;
  pick: number;
}
type Step =
  | (StepBase & { kind: 'call' })
  | (StepBase & { kind: 'outcome'; outcome: OutcomeHash })
  | (StepBase & { kind: 'veto' });

/** A clock step: mostly small, sometimes fractional or far (the offsets stop being exact). */
const dt = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: 0, max: 5000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0.25, 2 ** 31, 2 ** 40) },
);

const step: fc.Arbitrary<Step> = fc
  .record({
    kind: fc.constantFrom('call', 'call', 'outcome', 'outcome', 'veto'),
    tool: fc.constantFrom(...tools),
    id: callId,
    outcome,
    dt,
    pick: fc.nat(),
  })
  .chain((s) => argsHashOf(s.tool).map((args) => ({ ...s, args })));

/** What the history should hold: a plain list, with OpenClaw's attach-or-append rule for outcomes. */
class ModelHistory {
  readonly records: ToolCallRecord[] = [];
  /** Length of the alternation of two args hashes that ends at the newest record appended. */
  private alternation = 0;
  constructor(readonly historySize: number) {}

  append(record: ToolCallRecord): void {
    const n = this.records.length;
    const args = (back: number) => this.records[n - back]?.argsHash;
    if (n === 0 || record.argsHash === args(1)) this.alternation = 1;
    else this.alternation = n >= 2 && record.argsHash === args(2) ? this.alternation + 1 : 2;
    this.records.push(record);
    while (this.records.length > this.historySize) this.records.shift();
  }

  /** OpenClaw's ping-pong candidate for a call with `argsHash`: it repeats the hash two records back. */
  pingPong(argsHash: string): { count: number; pairedToolName?: string; pairedSignature?: string } {
    const tail = Math.min(this.alternation, this.records.length);
    const n = this.records.length;
    if (tail < 2 || this.records[n - 2].argsHash !== argsHash) return { count: 0 };
    const last = this.records[n - 1];
    return { count: tail + 1, pairedToolName: last.toolName, pairedSignature: last.argsHash };
  }

  attach(tool: string, args: string, id: string | undefined, outcome: OutcomeHash, timestamp: number): void {
    for (let i = this.records.length - 1; i >= 0; i -= 1) {
      const r = this.records[i];
      const pending = r.resultHash === undefined && r.outcomeKind === undefined;
      if (pending && r.toolName === tool && r.argsHash === args && (id === undefined || r.toolCallId === id)) {
        this.records[i] = { ...r, ...withoutUndefined(outcome) };
        return;
      }
    }
    this.append({ ...recordOf(tool, args, id, timestamp), ...withoutUndefined(outcome) });
  }
}

function recordOf(tool: string, args: string, id: string | undefined, timestamp: number): ToolCallRecord {
  return id === undefined
    ? { toolName: tool, argsHash: args, timestamp }
    : { toolName: tool, argsHash: args, toolCallId: id, timestamp };
}

function withoutUndefined(outcome: OutcomeHash): Partial<ToolCallRecord> {
  return Object.fromEntries(Object.entries(outcome).filter(([, v]) => v !== undefined));
}

describe.each(RUN_LOGS)('%s run log', (_, newLog) => {
  it('reads back every record as stored, whatever the forms of its hashes, call id and timestamp', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 60 })),
        fc.array(step, { maxLength: 300 }),
        (historySize, steps) => {
          let now = 1_700_000_000_000;
          const log = newLog();
          const model = new ModelHistory(historySize);
          for (const s of steps) {
            now += s.dt;
            const call = { toolName: s.tool, argsHash: s.args, toolCallId: s.id };
            if (s.kind === 'call') {
              appendCall(log, call, historySize, now);
              model.append(recordOf(s.tool, s.args, s.id, now));
            } else if (s.kind === 'veto') {
              appendVeto(log, call, historySize, now);
              model.append({ ...recordOf(s.tool, s.args, s.id, now), outcomeKind: 'tool-loop-veto' });
            } else {
              attachOutcome(log, call, s.outcome, historySize, now);
              model.attach(s.tool, s.args, s.id, s.outcome, now);
            }
            const view = new RunHistoryView(log);
            // With the call's records found first (as the detectors do), ping-pong compares no strings.
            if (s.pick % 2 === 0) view.recentCount(s.args, s.tool);
            expect(view.pingPong(s.args)).toEqual(model.pingPong(s.args));
            const twoBack = model.records.at(-2)?.argsHash;
            if (twoBack !== undefined) expect(view.pingPong(twoBack)).toEqual(model.pingPong(twoBack));
            if (s.pick % 4 === 0) {
              const newest = (n: number) => [...new Set(model.records.slice(-n).map((r) => r.argsHash))];
              expect(view.newestArgsHashes(historySize)).toEqual(newest(historySize));
              expect(recordsOf(log)).toEqual(model.records);
              expect(view.newestArgsHashes(3)).toEqual(newest(3));
            }
          }
          expect(lengthOf(log)).toBe(model.records.length);
          expect(recordsOf(log)).toEqual(model.records);
          for (let a = log.first; a < log.end; a += 1)
            for (let b = a; b < Math.min(log.end, a + 4); b += 1)
              expect(log.sameArgs(a, b)).toBe(log.argsHash(a) === log.argsHash(b));
          const view = new RunHistoryView(log);
          for (const r of model.records) {
            const same = model.records.filter((m) => m.toolName === r.toolName && m.argsHash === r.argsHash).length;
            expect(view.recentCount(r.argsHash, r.toolName)).toBe(same);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a write outcome reads back with its kind and target, and answers for write churn', () => {
    const log = newLog();
    const argsHash = 'write:00000000000000ff';
    const call = { toolName: 'write', argsHash, toolCallId: 'call_1' };
    appendCall(log, call, 30, 5);
    attachOutcome(
      log,
      call,
      { resultHash: 'error:0123456789abcdef', outcomeKind: 'write-mutation', mutationTargetHash: 'fedcba9876543210' },
      30,
    );
    expect(recordsOf(log)).toEqual([
      {
        toolName: 'write',
        argsHash,
        toolCallId: 'call_1',
        timestamp: 5,
        resultHash: 'error:0123456789abcdef',
        outcomeKind: 'write-mutation',
        mutationTargetHash: 'fedcba9876543210',
      },
    ]);
    expect(new RunHistoryView(log).writeTargetChurn('write:0000000000000001', 'fedcba9876543210')).toEqual({
      count: 1,
      variantCount: 1,
    });
  });

  it('finds each signature among records of every form, from any record back', () => {
    const log = newLog();
    const calls = [
      { toolName: 'read', argsHash: 'read:0000000000000001' },
      { toolName: 'read', argsHash: 'read:0000000000000081' },
      { toolName: 'read', argsHash: 'shared' },
      { toolName: 'exec', argsHash: 'shared' },
      { toolName: 'exec', argsHash: 'read:0000000000000001' },
    ];
    for (let i = 0; i < 40; i += 1) appendCall(log, calls[(i * 7) % 5], 32);
    const absent = [
      { toolName: 'read', argsHash: 'read:0000000000000002' },
      { toolName: 'exec', argsHash: 'exec:0000000000000001' },
      { toolName: 'grep', argsHash: 'shared' },
    ];
    for (const call of [...calls, ...absent]) {
      const key = signatureKey(call.toolName, call.argsHash);
      const expected: number[] = [];
      for (let s = log.end - 1; s >= log.first; s -= 1) if (log.keyOf(s) === key) expected.push(s);
      const found: number[] = [];
      for (let s = log.newestOf(call, log.end); s >= 0; s = log.newestOf(call, s)) found.push(s);
      expect(found, JSON.stringify(call)).toEqual(expected);
    }
  });
});
