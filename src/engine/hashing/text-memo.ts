/** One remembered text: what it was hashed under and what it hashed to. */
interface MemoEntry<V> {
  readonly namespace: string;
  readonly text: string;
  readonly context: string | undefined;
  readonly value: V;
  /** Its text's {@link keyOf}. */
  readonly key: number;
  /** Its slot in the memo's ring of entries by age. */
  readonly slot: number;
  /** The next older and the next newer entry of the same bucket. */
  older: MemoEntry<V> | undefined;
  newer: MemoEntry<V> | undefined;
}

/** How large a {@link TextMemo} may grow. */
export interface TextMemoLimits {
  /** Entries kept; the oldest is forgotten first. */
  readonly entries: number;
  /** Characters the kept texts and contexts hold together; a longer text is not kept. */
  readonly chars: number;
  /**
   * Texts shorter than this are neither kept nor looked up: parsing and hashing them costs
   * little more than a lookup, which every call not made before pays for nothing.
   */
  readonly fromChars: number;
}

/**
 * Texts of one key compared before a lookup gives up: texts of one length that agree at every
 * sampled position are few, unless they are many near-copies, and then the newest are the ones
 * a loop repeats.
 */
const COMPARED_PER_BUCKET = 4;
/** Characters sampled for a text's bucket, besides its length and its last character. */
const SAMPLES = 8;

/**
 * What recently hashed texts hashed to, found again by exact equality: a call made again with
 * the same raw arguments, or the same result, is not parsed and hashed again. A loop is exactly
 * that, made over and over.
 *
 * Texts are not hashed to find them: V8's string hash reads every character of a fresh string,
 * more slowly than `JSON.parse` does. A text's key is its length and a few characters
 * sampled across it; the newest entries of that key are then compared, and comparing strings
 * stops at their first difference (or runs as a block comparison when they are equal). An entry
 * matches only when its namespace (for the span reader, a tool name), text and context (the raw
 * arguments a result came with) are all equal, so a value found is the value hashing would
 * compute again.
 */
export class TextMemo<V> {
  /** The newest entry of each bucket, by the bucket's low bits (an array: cheaper than a `Map` here). */
  private readonly buckets: (MemoEntry<V> | undefined)[];
  private readonly mask: number;
  /** Entries by age, as a ring: `next` is the slot the next entry takes. */
  private readonly ring: (MemoEntry<V> | undefined)[];
  private next = 0;
  private chars = 0;

  constructor(private readonly limits: TextMemoLimits) {
    const entries = Math.max(1, limits.entries);
    this.ring = new Array<MemoEntry<V> | undefined>(entries).fill(undefined);
    // Four buckets an entry: few entries share one.
    const buckets = 2 ** Math.ceil(Math.log2(entries * 4));
    this.buckets = new Array<MemoEntry<V> | undefined>(buckets).fill(undefined);
    this.mask = buckets - 1;
  }

  /** Whether texts of this length are remembered at all (see {@link TextMemoLimits}). */
  admits(text: string): boolean {
    return text.length >= this.limits.fromChars && text.length <= this.limits.chars;
  }

  /** The value remembered for `text` under `namespace` and `context`, if it is still kept. */
  get(namespace: string, text: string, context?: string): V | undefined {
    if (text.length < this.limits.fromChars) return undefined;
    const key = keyOf(text);
    let compared = 0;
    for (let entry = this.buckets[key & this.mask]; entry !== undefined; entry = entry.older) {
      if (entry.key !== key || entry.namespace !== namespace || entry.context !== context) continue;
      if (entry.text === text) return entry.value;
      compared += 1;
      if (compared === COMPARED_PER_BUCKET) break;
    }
    return undefined;
  }

  /** Remembers `value` for `text` under `namespace` and `context`, forgetting the oldest entries beyond the limits. */
  set(namespace: string, text: string, context: string | undefined, value: V): void {
    const chars = charsOf(text, context);
    if (chars > this.limits.chars || text.length < this.limits.fromChars) return;
    const slot = this.next;
    this.forget(slot);
    // Terminates: once every entry is forgotten no characters are counted, and `chars` fits.
    for (let older = slot + 1; this.chars + chars > this.limits.chars; older += 1)
      this.forget(older % this.ring.length);
    const key = keyOf(text);
    const bucket = key & this.mask;
    const newest = this.buckets[bucket];
    const entry: MemoEntry<V> = { namespace, text, context, value, key, slot, older: newest, newer: undefined };
    if (newest !== undefined) newest.newer = entry;
    this.buckets[bucket] = entry;
    this.ring[slot] = entry;
    this.next = (slot + 1) % this.ring.length;
    this.chars += chars;
  }

  private forget(slot: number): void {
    const entry = this.ring[slot];
    if (entry === undefined) return;
    this.ring[slot] = undefined;
    this.chars -= charsOf(entry.text, entry.context);
    const { older, newer } = entry;
    if (older !== undefined) older.newer = newer;
    if (newer !== undefined) newer.older = older;
    else this.buckets[entry.key & this.mask] = older;
  }
}

function charsOf(text: string, context: string | undefined): number {
  return text.length + (context === undefined ? 0 : context.length);
}

/** The text's length mixed with {@link SAMPLES} characters spread over it and its last, as a small integer. */
function keyOf(text: string): number {
  const length = text.length;
  let bucket = length;
  if (length === 0) return bucket;
  for (let k = 0; k < SAMPLES; k += 1)
    bucket = (Math.imul(bucket, 31) + text.charCodeAt(Math.floor((length * k) / SAMPLES))) | 0;
  return (Math.imul(bucket, 31) + text.charCodeAt(length - 1)) & 0x3fffffff;
}
