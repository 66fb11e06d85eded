import { setBounded } from '../util/bounded-map.js';

/**
 * A set of ids (trace ids, run ids) that keeps the `max` most recently used: adding or touching an
 * id makes it the most recent, and past `max` the least recent is forgotten. An entry is an id
 * and a map slot, about 100 bytes.
 */
export class SamplerRecentIds {
  private readonly ids = new Map<string, true>();

  constructor(private readonly max: number) {}

  get size(): number {
    return this.ids.size;
  }

  /** Adds `id`, or makes it the most recent. */
  add(id: string): void {
    this.ids.delete(id);
    setBounded(this.ids, id, true, this.max);
  }

  /** Whether `id` is held, without changing its place. */
  has(id: string): boolean {
    return this.ids.has(id);
  }

  /** Whether `id` is held; if so it becomes the most recent. */
  touch(id: string): boolean {
    if (!this.ids.has(id)) return false;
    this.add(id);
    return true;
  }
}
