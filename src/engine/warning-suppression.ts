import type { LoopVerdict } from './types.js';
import { setBounded } from '../util/bounded-map.js';

/** Most warning keys remembered per session; the oldest is forgotten first (as OpenClaw's 256). */
export const MAX_WARNING_KEYS = 256;

/**
 * Per-run warning de-duplication: for each run and warning key, a warning
 * is emitted when `floor(count / warningThreshold)` exceeds the last emitted bucket, so a
 * steady loop warns at W, 2W, 3W… Criticals are never suppressed.
 */
export class WarningSuppression {
  private readonly buckets = new Map<string, number>();

  constructor(private readonly maxKeys: number = MAX_WARNING_KEYS) {}

  /** Whether the verdict should be emitted; remembers the bucket when it is. */
  shouldEmit(verdict: LoopVerdict, warningThreshold: number, runId?: string): boolean {
    if (verdict.level === 'critical') return true;
    const key = runId ? `${runId}:${verdict.warningKey}` : verdict.warningKey;
    const bucket = Math.floor(verdict.count / warningThreshold);
    const last = this.buckets.get(key) ?? 0;
    if (bucket <= last) return false;
    // Re-inserted, so that the cap drops the least recently emitted key.
    this.buckets.delete(key);
    setBounded(this.buckets, key, bucket, this.maxKeys);
    return true;
  }
}
