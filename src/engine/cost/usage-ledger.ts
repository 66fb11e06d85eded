import { PackedRing } from '../evidence/packed-ring.js';

/** Slots of one usage report: when it arrived (the run's clock) and the run's total after it. */
const TIME = 0;
const TOTAL = 1;

/**
 * The tokens a run's model calls reported, as a running total with the newest reports' times:
 * what the run spent after a given moment (inside a loop that began then). Created with a run's
 * first report, so runs without model spans pay nothing.
 */
export class UsageLedger {
  private total = 0;
  /** The total as of the newest report no longer held (0 while none was dropped). */
  private dropped = 0;
  private readonly ring: PackedRing<Float64Array>;

  /** @param maxReports Reports held; older ones only count in the total. */
  constructor(maxReports: number) {
    this.ring = new PackedRing(Float64Array, 2, maxReports);
  }

  /** Every token reported so far. */
  get spent(): number {
    return this.total;
  }

  /** A model call reported `tokens` at `time`. */
  add(tokens: number, time: number): void {
    const { ring } = this;
    if (ring.full) this.dropped = ring.slots[ring.offset(ring.oldest) + TOTAL];
    this.total += tokens;
    const at = ring.append();
    ring.slots[at + TIME] = time;
    ring.slots[at + TOTAL] = this.total;
  }

  /**
   * Tokens reported after `time` (a report at the same millisecond counts as before it: a model
   * call ends before the tool call it asked for starts). When every held report is newer, the
   * dropped ones count as before.
   */
  spentAfter(time: number): number {
    const { ring } = this;
    const slots = ring.slots;
    for (let seq = ring.count - 1; seq >= ring.oldest; seq -= 1) {
      const at = ring.offset(seq);
      if (slots[at + TIME] <= time) return this.total - slots[at + TOTAL];
    }
    return this.total - this.dropped;
  }
}
