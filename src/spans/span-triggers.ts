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
 * Keys checked at their own load site each (see {@link TriggerSet.matches}), with room for the
 * default adapters' triggers and the two compaction markers; more go through a loop.
 */
const SLOTS = 16;
/**
 * Fills unused slots: a key no span carries (only this module holds it), so an unused slot is
 * looked up and found absent like any other instead of being skipped by a count check. The
 * checks then run straight through without branching around a slot, which lets V8 check the
 * attributes' hidden class once for all of them instead of once a slot.
 */
const UNUSED: unique symbol = Symbol('unused trigger slot');
/** Span names compared at their own site each (the default adapters declare four); more go through a set. */
const NAME_SLOTS = 4;

/**
 * Attribute keys and span names, one of which a span must carry to be worth reading. Every span
 * the application creates is checked, so the check is unrolled, one field and one lookup per
 * key: a loop over the keys would fail the plain-span bound (docs/performance.md).
 */
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
  private readonly overflow: readonly string[];
  /** `undefined` in an unused slot: no span name equals it. */
  private readonly n0: string | undefined;
  private readonly n1: string | undefined;
  private readonly n2: string | undefined;
  private readonly n3: string | undefined;
  private readonly moreNames: ReadonlySet<string>;
  /**
   * Whether there are keys or names beyond the slots: one field to test on every span, where
   * the overflow's length and the set's size would be two objects to load and check.
   */
  private readonly more: boolean;

  private constructor(keys: readonly string[], names: readonly string[]) {
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
    this.overflow = keys.slice(SLOTS);
    [this.n0, this.n1, this.n2, this.n3] = Array.from({ length: NAME_SLOTS }, (_, i) => names[i]);
    this.moreNames = new Set(names.slice(NAME_SLOTS));
    this.more = this.overflow.length > 0 || this.moreNames.size > 0;
  }

  static of(adapters: readonly ToolSpanAdapter[], extraAttributes: readonly string[]): TriggerSet {
    const attributes = new Set(extraAttributes);
    const names = new Set<string>();
    for (const adapter of adapters) {
      for (const key of adapter.triggers!.attributes) attributes.add(key);
      for (const name of adapter.triggers!.spanNames ?? []) names.add(name);
    }
    return new TriggerSet([...attributes], [...names]);
  }

  /**
   * Each slot's lookup is a load site that only ever sees one key, which V8 handles like a
   * property of a known name; one site seeing many keys would fall back to a generic lookup.
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
     * adapters, which read them as they would anyway; two sets through one `matches` would make
     * every lookup site see two keys.
     */
    private readonly keys: TriggerSet | undefined,
    private readonly concerned: AdapterMasks,
  ) {}

  static of(adapters: readonly ToolSpanAdapter[]): SpanTriggers {
    const masks = AdapterMasks.of(adapters);
    if (!adapters.every(declaresTriggers)) return new SpanTriggers(undefined, masks);
    // The compaction markers are read on every span, whichever adapter matches it.
    return new SpanTriggers(
      TriggerSet.of(adapters, [ATTR_COMPACTION_RETRY, ATTR_GEN_AI_CONVERSATION_COMPACTED]),
      masks,
    );
  }

  /**
   * The adapters a span may concern, as an {@link AdapterMask} over the adapters' order, from
   * one pass over the span's attribute keys. An adapter left out of it would get nothing from the
   * span (its triggers say so), so asking only the others gives the same reading.
   */
  adaptersFor(span: SpanView): AdapterMask {
    return this.concerned.of(span);
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

  of(span: SpanView): AdapterMask {
    let mask = this.always | (this.byName.get(span.name) ?? 0);
    // A key present with an undefined value sets its adapters too: asking one more adapter
    // never changes a reading.
    for (const key in span.attributes) mask |= this.byKey.get(key) ?? 0;
    return mask;
  }
}
