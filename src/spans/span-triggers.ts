import { ATTR_COMPACTION_RETRY, ATTR_GEN_AI_CONVERSATION_COMPACTED } from '../semconv.js';
import type { ToolSpanAdapter } from './adapters/adapter.js';
import type { SpanView } from './span-view.js';

const isStringArray = (value: unknown): value is readonly string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** Whether an adapter declares well-formed triggers (a custom adapter may not). */
export function declaresTriggers(adapter: ToolSpanAdapter): boolean {
  const { triggers } = adapter;
  return (
    typeof triggers === 'object' &&
    triggers !== null &&
    isStringArray(triggers.attributes) &&
    (triggers.spanNames === undefined || isStringArray(triggers.spanNames))
  );
}

/**
 * Keys checked at their own load site each (see {@link TriggerSet.matches}); more go through a
 * loop. The default adapters' triggers and the two compaction markers are 13 keys.
 */
const SLOTS = 16;
/**
 * Fills unused slots: a key no span carries (only this module holds it), so an unused slot is
 * looked up and found absent like any other instead of being skipped by a count check. The
 * checks then run straight through without branching around a slot, which lets V8 check the
 * attributes' hidden class once for all of them instead of once a slot.
 */
const UNUSED: unique symbol = Symbol('unused trigger slot');
/** Span names compared at their own site each; more go through a set. The default adapters declare 4. */
const NAME_SLOTS = 4;

/** Attribute keys and span names, one of which a span must carry to be worth reading. */
class TriggerSet {
  private readonly k0: string | typeof UNUSED;
  private readonly k1: string | typeof UNUSED;
  private readonly k2: string | typeof UNUSED;
  private readonly k3: string | typeof UNUSED;
  private readonly k4: string | typeof UNUSED;
  private readonly k5: string | typeof UNUSED;
  private readonly k6: string | typeof UNUSED;
  private readonly k7: string | typeof UNUSED;
  private readonly k8: string | typeof UNUSED;
  private readonly k9: string | typeof UNUSED;
  private readonly k10: string | typeof UNUSED;
  private readonly k11: string | typeof UNUSED;
  private readonly k12: string | typeof UNUSED;
  private readonly k13: string | typeof UNUSED;
  private readonly k14: string | typeof UNUSED;
  private readonly k15: string | typeof UNUSED;
  /** The adapters that key `k<i>` concerns (0 for an unused slot and for the compaction markers). */
  private readonly m0: AdapterMask;
  private readonly m1: AdapterMask;
  private readonly m2: AdapterMask;
  private readonly m3: AdapterMask;
  private readonly m4: AdapterMask;
  private readonly m5: AdapterMask;
  private readonly m6: AdapterMask;
  private readonly m7: AdapterMask;
  private readonly m8: AdapterMask;
  private readonly m9: AdapterMask;
  private readonly m10: AdapterMask;
  private readonly m11: AdapterMask;
  private readonly m12: AdapterMask;
  private readonly m13: AdapterMask;
  private readonly m14: AdapterMask;
  private readonly m15: AdapterMask;
  private readonly overflow: readonly string[];
  /** `undefined` in an unused slot: no span name equals it. */
  private readonly n0: string | undefined;
  private readonly n1: string | undefined;
  private readonly n2: string | undefined;
  private readonly n3: string | undefined;
  /** The adapters that name `n<i>` concerns. */
  private readonly nm0: AdapterMask;
  private readonly nm1: AdapterMask;
  private readonly nm2: AdapterMask;
  private readonly nm3: AdapterMask;
  private readonly moreNames: ReadonlySet<string>;
  /**
   * Whether there are keys or names beyond the slots: one field to test on every span, where
   * the overflow's length and the set's size would be two objects to load and check.
   */
  private readonly more: boolean;

  private constructor(
    keys: readonly string[],
    names: readonly string[],
    /** Which adapters each key and name concerns, for the keys and names past the slots. */
    private readonly masks: AdapterMasks,
  ) {
    [
      this.k0,
      this.k1,
      this.k2,
      this.k3,
      this.k4,
      this.k5,
      this.k6,
      this.k7,
      this.k8,
      this.k9,
      this.k10,
      this.k11,
      this.k12,
      this.k13,
      this.k14,
      this.k15,
    ] = Array.from({ length: SLOTS }, (_, i) => keys[i] ?? UNUSED);
    [
      this.m0,
      this.m1,
      this.m2,
      this.m3,
      this.m4,
      this.m5,
      this.m6,
      this.m7,
      this.m8,
      this.m9,
      this.m10,
      this.m11,
      this.m12,
      this.m13,
      this.m14,
      this.m15,
    ] = Array.from({ length: SLOTS }, (_, i) => (i < keys.length ? masks.ofKey(keys[i]) : 0));
    this.overflow = keys.slice(SLOTS);
    [this.n0, this.n1, this.n2, this.n3] = Array.from({ length: NAME_SLOTS }, (_, i) => names[i]);
    [this.nm0, this.nm1, this.nm2, this.nm3] = Array.from({ length: NAME_SLOTS }, (_, i) =>
      i < names.length ? masks.ofName(names[i]) : 0,
    );
    this.moreNames = new Set(names.slice(NAME_SLOTS));
    this.more = this.overflow.length > 0 || this.moreNames.size > 0;
  }

  static of(adapters: readonly ToolSpanAdapter[], extraAttributes: readonly string[], masks: AdapterMasks): TriggerSet {
    const attributes = new Set(extraAttributes);
    const names = new Set<string>();
    for (const adapter of adapters) {
      for (const key of adapter.triggers!.attributes) attributes.add(key);
      for (const name of adapter.triggers!.spanNames ?? []) names.add(name);
    }
    return new TriggerSet([...attributes], [...names], masks);
  }

  /**
   * Runs for every span the application creates, so it is written for V8: each slot's lookup is
   * its own load site that only ever sees one key, which V8 handles like a property of a known
   * name; a loop over the keys would be one site seeing many keys, a slower generic lookup. The
   * span name is compared with each declared name (a set lookup hashes it).
   */
  matches(span: SpanView): boolean {
    const a = span.attributes as Readonly<Record<string | symbol, unknown>>;
    if (
      a[this.k0] !== undefined ||
      a[this.k1] !== undefined ||
      a[this.k2] !== undefined ||
      a[this.k3] !== undefined ||
      a[this.k4] !== undefined ||
      a[this.k5] !== undefined ||
      a[this.k6] !== undefined ||
      a[this.k7] !== undefined ||
      a[this.k8] !== undefined ||
      a[this.k9] !== undefined ||
      a[this.k10] !== undefined ||
      a[this.k11] !== undefined ||
      a[this.k12] !== undefined ||
      a[this.k13] !== undefined ||
      a[this.k14] !== undefined ||
      a[this.k15] !== undefined
    ) {
      return true;
    }
    const { name } = span;
    return (
      name === this.n0 ||
      name === this.n1 ||
      name === this.n2 ||
      name === this.n3 ||
      (this.more && this.matchesMore(a, name))
    );
  }

  /** The keys and names beyond the slots (none with the default adapters). */
  private matchesMore(a: Readonly<Record<string, unknown>>, name: string): boolean {
    const { overflow } = this;
    for (let i = 0; i < overflow.length; i += 1) if (a[overflow[i]] !== undefined) return true;
    return this.moreNames.has(name);
  }

  /**
   * The adapters a span may concern (see {@link SpanTriggers.adaptersFor}), from the same slots
   * as {@link matches}: a key present on the span, whatever its value, or the span's name sets
   * the adapters that declare it. Each key is tested at a site of its own; a pass over the
   * span's keys looked each one up in a map, about 130 ns of a 100 B tool span's start.
   */
  adaptersOf(span: SpanView): AdapterMask {
    const a = span.attributes as Readonly<Record<string | symbol, unknown>>;
    const { name } = span;
    const mask =
      (this.k0 in a ? this.m0 : 0) |
      (this.k1 in a ? this.m1 : 0) |
      (this.k2 in a ? this.m2 : 0) |
      (this.k3 in a ? this.m3 : 0) |
      (this.k4 in a ? this.m4 : 0) |
      (this.k5 in a ? this.m5 : 0) |
      (this.k6 in a ? this.m6 : 0) |
      (this.k7 in a ? this.m7 : 0) |
      (this.k8 in a ? this.m8 : 0) |
      (this.k9 in a ? this.m9 : 0) |
      (this.k10 in a ? this.m10 : 0) |
      (this.k11 in a ? this.m11 : 0) |
      (this.k12 in a ? this.m12 : 0) |
      (this.k13 in a ? this.m13 : 0) |
      (this.k14 in a ? this.m14 : 0) |
      (this.k15 in a ? this.m15 : 0) |
      (name === this.n0 ? this.nm0 : 0) |
      (name === this.n1 ? this.nm1 : 0) |
      (name === this.n2 ? this.nm2 : 0) |
      (name === this.n3 ? this.nm3 : 0);
    return this.more ? mask | this.adaptersOfMore(a, name) : mask;
  }

  /** {@link adaptersOf} for the keys and names beyond the slots. */
  private adaptersOfMore(a: Readonly<Record<string, unknown>>, name: string): AdapterMask {
    let mask = this.moreNames.has(name) ? this.masks.ofName(name) : 0;
    for (const key of this.overflow) if (key in a) mask |= this.masks.ofKey(key);
    return mask;
  }
}

/**
 * Whether a span can concern any of the adapters, from the triggers they declare
 * (`ToolSpanAdapter.triggers`): the processor's shortcut for the spans of an application that
 * are not tool calls and carry no run hints, which then cost a few attribute lookups.
 * When an adapter declares no triggers, every span may concern it.
 */
export class SpanTriggers {
  private constructor(
    /**
     * One set for both phases. The end's own keys (those of the adapters with `matchEnd`) are a
     * subset, so checking all of them at the end only lets a few more spans through to the
     * adapters, which read them as they would anyway. Two sets through one `matches` would make
     * every lookup site see two keys: V8's generic lookup then, ~2.9 k more instructions per
     * plain span (callgrind, the bench's plain span).
     */
    private readonly keys: TriggerSet | undefined,
    private readonly concerned: AdapterMasks,
  ) {}

  static of(adapters: readonly ToolSpanAdapter[]): SpanTriggers {
    const masks = AdapterMasks.of(adapters);
    if (!adapters.every(declaresTriggers)) return new SpanTriggers(undefined, masks);
    // The compaction markers are read on every span, whichever adapter matches it.
    return new SpanTriggers(
      TriggerSet.of(adapters, [ATTR_COMPACTION_RETRY, ATTR_GEN_AI_CONVERSATION_COMPACTED], masks),
      masks,
    );
  }

  /**
   * The adapters a span may concern, as an {@link AdapterMask} over the adapters' order: from
   * the trigger slots when every adapter declares its triggers, else one pass over the span's
   * attribute keys. An adapter left out of it would get nothing from the span (its triggers say
   * so), so asking only the others gives the same reading.
   */
  adaptersFor(span: SpanView): AdapterMask {
    return this.keys !== undefined ? this.keys.adaptersOf(span) : this.concerned.of(span);
  }

  /**
   * False when no adapter can match, reject or hint at the span, and it is no compaction retry:
   * at its start, and at its end for the adapters' `matchEnd` (attributes set after the start).
   */
  mayConcern(span: SpanView): boolean {
    return this.keys === undefined || this.keys.matches(span);
  }
}

/**
 * Bit `i` set: the adapter at index `i` may concern the span. Adapters past the 31st, and
 * adapters that declare no triggers, are always set.
 */
export type AdapterMask = number;

/** Every adapter. */
export const ALL_ADAPTERS: AdapterMask = 0x7fffffff;

/** Whether the adapter at `index` is in `mask`. */
export function inMask(mask: AdapterMask, index: number): boolean {
  return index >= 31 || (mask & (1 << index)) !== 0;
}

/** Which adapters each trigger key and span name concerns. */
class AdapterMasks {
  private constructor(
    private readonly byKey: ReadonlyMap<string, AdapterMask>,
    private readonly byName: ReadonlyMap<string, AdapterMask>,
    /** The adapters without declared triggers. */
    private readonly always: AdapterMask,
  ) {}

  static of(adapters: readonly ToolSpanAdapter[]): AdapterMasks {
    const byKey = new Map<string, AdapterMask>();
    const byName = new Map<string, AdapterMask>();
    let always = 0;
    adapters.forEach((adapter, index) => {
      if (index >= 31) return;
      const bit = 1 << index;
      if (!declaresTriggers(adapter)) {
        always |= bit;
        return;
      }
      for (const key of adapter.triggers!.attributes) byKey.set(key, (byKey.get(key) ?? 0) | bit);
      for (const name of adapter.triggers!.spanNames ?? []) byName.set(name, (byName.get(name) ?? 0) | bit);
    });
    return new AdapterMasks(byKey, byName, always);
  }

  /** The adapters that declare `key` among their trigger attributes. */
  ofKey(key: string): AdapterMask {
    return this.byKey.get(key) ?? 0;
  }

  /** The adapters that declare `name` among their trigger span names. */
  ofName(name: string): AdapterMask {
    return this.byName.get(name) ?? 0;
  }

  of(span: SpanView): AdapterMask {
    let mask = this.always | (this.byName.get(span.name) ?? 0);
    // A key present with an undefined value sets its adapters too: asking one more adapter
    // never changes a reading.
    for (const key in span.attributes) mask |= this.byKey.get(key) ?? 0;
    return mask;
  }
}
