/**
 * The record ring stores hashes as numbers, call ids as packed characters and timestamps as
 * offsets, and keeps every other form as it came: whatever a history is given, `records()` and
 * the per-signature answers must be what a plain list of records gives.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ScopeLog } from '../../../src/engine/history/record-ring.js';
import { ToolCallHistory } from '../../../src/engine/history/tool-call-history.js';
import type { OutcomeHash, ToolCallRecord } from '../../../src/engine/types.js';

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

describe('record ring', () => {
  it('reads back every record as stored, whatever the forms of its hashes, call id and timestamp', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 60 })),
        fc.array(step, { maxLength: 300 }),
        (historySize, steps) => {
          let now = 1_700_000_000_000;
          const history = new ToolCallHistory({ now: () => now });
          const model = new ModelHistory(historySize);
          for (const s of steps) {
            now += s.dt;
            if (s.kind === 'call') {
              history.appendCall(s.tool, s.args, s.id, undefined, historySize);
              model.append(recordOf(s.tool, s.args, s.id, now));
            } else if (s.kind === 'veto') {
              const veto = { outcomeKind: 'tool-loop-veto' as const };
              history.appendOutcome(s.tool, s.args, s.id, undefined, veto, historySize);
              model.append({ ...recordOf(s.tool, s.args, s.id, now), ...veto });
            } else {
              history.attachOutcome(s.tool, s.args, s.id, undefined, s.outcome, historySize);
              model.attach(s.tool, s.args, s.id, s.outcome, now);
            }
            const view = history.view();
            expect(view.pingPong(s.args)).toEqual(model.pingPong(s.args));
            const twoBack = model.records.at(-2)?.argsHash;
            if (twoBack !== undefined) expect(view.pingPong(twoBack)).toEqual(model.pingPong(twoBack));
            if (s.pick % 4 === 0) {
              // Many strings read between changes: the rebuilt ones are kept until the next change.
              const newest = (n: number) => [...new Set(model.records.slice(-n).map((r) => r.argsHash))];
              expect(history.view().newestArgsHashes(historySize)).toEqual(newest(historySize));
              expect(history.records()).toEqual(model.records);
              expect(history.view().newestArgsHashes(3)).toEqual(newest(3));
            }
          }
          expect(history.records()).toEqual(model.records);
          const view = history.view();
          for (const r of model.records) {
            const same = model.records.filter((m) => m.toolName === r.toolName && m.argsHash === r.argsHash).length;
            expect(view.recentCount(r.argsHash, r.toolName)).toBe(same);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a write outcome keeps its target without a detailed record, and reads back as one', () => {
    const history = new ToolCallHistory({ now: () => 5 });
    const argsHash = 'write:00000000000000ff';
    history.appendCall('write', argsHash, 'call_1', undefined, 30);
    history.attachOutcome(
      'write',
      argsHash,
      'call_1',
      undefined,
      { resultHash: 'error:0123456789abcdef', outcomeKind: 'write-mutation', mutationTargetHash: 'fedcba9876543210' },
      30,
    );
    const expected = {
      toolName: 'write',
      argsHash,
      toolCallId: 'call_1',
      timestamp: 5,
      resultHash: 'error:0123456789abcdef',
      outcomeKind: 'write-mutation',
      mutationTargetHash: 'fedcba9876543210',
    };
    expect(history.records()).toEqual([expected]);
    // A detector of writes asks for the details: the answer is the same, and so is the record.
    expect(history.view().writeTargetChurn('write:0000000000000001', 'fedcba9876543210')).toEqual({
      count: 1,
      variantCount: 1,
    });
    expect(history.records()).toEqual([expected]);
  });
});

describe('signature filter of a small scope', () => {
  /** `read:<digest>`; digests 128 apart share a filter bucket. */
  const key = (digest: number) => `read:${digest.toString(16).padStart(16, '0')}`;

  it('stays in step with appends and evictions, saturated buckets included', () => {
    const historySize = 40;
    const scope = new ScopeLog(undefined);
    const model: string[] = [];
    const append = (k: string) => {
      scope.push('read', k, undefined, 0, historySize);
      model.push(k);
      if (model.length > historySize) {
        scope.shift();
        model.shift();
      }
    };
    const expectCounts = (keys: readonly string[]) => {
      for (const k of keys) expect(scope.countOf(k)).toBe(model.filter((m) => m === k).length);
    };
    for (let i = 0; i < 20; i += 1) append(key(1));
    for (let i = 0; i < 3; i += 1) append(key(129));
    append(key(5));
    append(key(5));
    expectCounts([key(1), key(129), key(257), key(5), key(2)]);
    // Bucket 1 holds 23 records, more than 4 bits count: it stays saturated and spills into no other.
    expect(scope.mayHold(key(257))).toBe(true);
    expect(scope.mayHold(key(2))).toBe(false);
    expect(scope.mayHold(key(133))).toBe(true);
    const others: string[] = [];
    for (let i = 0; i < 60; i += 1) {
      const other = key(0x1000 + 128 * i + 8 + (i % 100));
      others.push(other);
      append(other);
      expectCounts([key(1), key(129), key(257), key(5), other, ...others.slice(-45, -40)]);
      for (const gone of [key(1), key(129), key(257), key(5), ...others.slice(0, -40)])
        if (!model.includes(gone) && model.every((m) => !sameBucket(m, gone))) expect(scope.mayHold(gone)).toBe(false);
    }
    // Every record of buckets 1 and 5 has left: the saturated bucket was recounted down to empty.
    expect(scope.mayHold(key(1))).toBe(false);
    expect(scope.mayHold(key(257))).toBe(false);
    expect(scope.mayHold(key(5))).toBe(false);
  });

  /** Whether two `read:` keys share a filter bucket (the low 7 bits of the digest, tool index 0). */
  function sameBucket(a: string, b: string): boolean {
    return ((parseInt(a.slice(-2), 16) ^ parseInt(b.slice(-2), 16)) & 127) === 0;
  }
});
