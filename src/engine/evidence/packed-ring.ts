/**
 * The newest `maxRecords` records of fixed `stride`, packed in one typed array used as a ring:
 * no object per record. Capacity doubles up to `maxRecords`, so a short run pays for what it
 * holds. Records are numbered in append order; record `seq` starts at `(seq % capacity) * stride`.
 */
export class PackedRing<A extends Uint32Array | Float64Array> {
  /** Records appended so far (the next record's number). */
  count = 0;
  private array: A;
  private capacity: number;

  /** @param Kind The typed array class (a shared constructor, not a closure per ring: rings are per run). */
  constructor(
    private readonly Kind: new (length: number) => A,
    readonly stride: number,
    protected readonly maxRecords: number,
  ) {
    this.capacity = Math.min(4, maxRecords);
    this.array = new Kind(this.capacity * stride);
  }

  /** The number of the oldest record still held. */
  get oldest(): number {
    return this.count > this.capacity ? this.count - this.capacity : 0;
  }

  /** Whether the next append overwrites the oldest record. */
  get full(): boolean {
    return this.count >= this.maxRecords;
  }

  /** The packed slots (read them at {@link offset}). */
  get slots(): A {
    return this.array;
  }

  /** Where record `seq` (held) starts in {@link slots}. */
  offset(seq: number): number {
    return (seq % this.capacity) * this.stride;
  }

  /** Makes room for one more record and returns where it starts; its slots hold the overwritten record's values. */
  append(): number {
    if (this.count === this.capacity && this.capacity < this.maxRecords) {
      // Not wrapped yet: every record sits at its own number, and does so in the larger array too.
      const grown = new this.Kind(Math.min(this.capacity * 2, this.maxRecords) * this.stride);
      grown.set(this.array);
      this.array = grown;
      this.capacity = grown.length / this.stride;
    }
    const at = this.offset(this.count);
    this.count += 1;
    return at;
  }
}
