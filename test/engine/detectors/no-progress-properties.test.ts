/**
 * Properties of the opt-in detectors (fast-check), with every detector on at low thresholds:
 * - progress is never blocked: when every result brings new content (new words, new field
 *   values), no no-progress detector — `result_cycle`, `similar_outcome`, the low-gain part of
 *   `identical_call_budget`, OpenClaw's — blocks a call, whatever the order of tools and arguments;
 * - loops are always caught: a cycle of 2–5 calls repeating its results is blocked once it has
 *   repeated its laps, and the same result to ever-changing arguments once it has repeated.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LoopDetectionConfig } from '../../../src/config/index.js';
import { EngineHarness } from '../../helpers/engine-harness.js';
import { fcParams } from '../../robustness/fuzz-runs.js';

/** Every detector on, low thresholds, the plain identical-call cap out of the way: it is a budget, not a no-progress rule. */
const NO_PLAIN_CAP: LoopDetectionConfig = {
  enabled: true,
  warningThreshold: 3,
  criticalThreshold: 5,
  cycleCriticalLaps: 2,
  identicalCallBudget: 1_000_000,
  lowGainCallBudget: 4,
  similarOutcomeThreshold: 4,
  redundantCallBudget: 4,
  similarityPercent: 100,
  detectors: { resultCycle: true, identicalCallBudget: true, similarOutcome: true, redundantCall: true },
};
const ALL_OPT_IN = NO_PLAIN_CAP.detectors;
const TOOLS = ['read', 'search'] as const;
const ARGS = [{ q: 'a' }, { q: 'b' }, { q: 'c' }] as const;

/** A letters-only word unique to `n` (digits would be masked as one token). */
function word(n: number): string {
  let text = '';
  let x = n + 1;
  while (x > 0) {
    text += String.fromCharCode(97 + (x % 26));
    x = Math.floor(x / 26);
  }
  return `w${text}`;
}

/** The `i`-th result of a run: twelve words no other result has, as text or as fields. */
function freshResult(i: number, structured: boolean): unknown {
  const words = Array.from({ length: 12 }, (_, k) => word(i * 12 + k));
  return structured ? { title: words.slice(0, 6).join(' '), body: words.slice(6).join(' ') } : words.join(' ');
}

describe('opt-in detectors: properties', () => {
  it('a run whose results always bring new content is never blocked', async () => {
    // Few tools and arguments, so that repeats (the detectors' input) are common.
    // Few tools and arguments, and calls that often repeat the one before: repeats are the detectors' input.
    const call = fc.record({
      repeat: fc.boolean(),
      tool: fc.integer({ min: 0, max: TOOLS.length - 1 }),
      args: fc.integer({ min: 0, max: ARGS.length - 1 }),
      failed: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 5, maxLength: 60 }), fc.boolean(), async (calls, structured) => {
        const h = await EngineHarness.create(NO_PLAIN_CAP);
        let previous = calls[0];
        calls.forEach((c, i) => {
          const { tool, args } = c.repeat ? previous : c;
          previous = { ...c, tool, args };
          const result = freshResult(i, structured && !c.failed);
          const outcome = c.failed ? { error: String(freshResult(i, false)) } : { result };
          const checked = h.run(TOOLS[tool], ARGS[args], outcome);
          expect(checked.blocked, `call ${i} blocked by ${checked.verdict?.detector}`).toBe(false);
        });
      }),
      fcParams(60),
    );
  });

  it('a result-repeating cycle is blocked once it has repeated cycleCriticalLaps laps', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 2, max: 4 }), async (period, laps) => {
        // OpenClaw's ping_pong and generic_repeat (critical 4) would block short cycles first.
        const h = await EngineHarness.create({
          ...NO_PLAIN_CAP,
          cycleCriticalLaps: laps,
          warningThreshold: 49,
          criticalThreshold: 50,
          detectors: { ...ALL_OPT_IN, similarOutcome: false, redundantCall: false, pingPong: false },
        });
        const at = (i: number) => ({
          tool: `t${i % period}`,
          params: { n: i % period },
          result: freshResult(i % period, false),
        });
        for (let i = 0; i < laps * period; i += 1) {
          const c = at(i);
          const checked = h.run(c.tool, c.params, { result: c.result });
          expect(checked.blocked, `call ${i}: ${checked.verdict?.message}`).toBe(false);
        }
        const next = at(laps * period);
        expect(h.check(next.tool, next.params).verdict).toMatchObject({ detector: 'result_cycle', period });
      }),
      fcParams(30),
    );
  });

  it('the same explained failure to changing arguments is blocked once it repeated similarOutcomeThreshold times', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 8 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        async (threshold, text) => {
          const h = await EngineHarness.create({
            ...NO_PLAIN_CAP,
            similarOutcomeThreshold: threshold,
            warningThreshold: 49,
            criticalThreshold: 50,
          });
          for (let i = 0; i < threshold; i += 1)
            expect(
              h.run('search', { q: `q${i}` }, { error: `The search failed and explains why: ${text}!` }).blocked,
            ).toBe(false);
          expect(h.check('search', { q: 'next' }).verdict?.detector).toBe('similar_outcome');
        },
      ),
      fcParams(30),
    );
  });
});
