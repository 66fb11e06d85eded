/**
 * A FIFO queue with O(1) push and shift. Backed by an array
 * with a moving head that is compacted when it passes half of the storage, so a rolling
 * window does not pay `Array#shift`'s linear cost.
 */
export class RingQueue<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined as T;
    this.head += 1;
    if (this.head >= 32 && this.head * 2 >= this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Items from oldest to newest (a copy). */
  toArray(): T[] {
    return this.items.slice(this.head);
  }
}
