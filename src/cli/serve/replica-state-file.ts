import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { isRecord } from '../../util/is-record.js';

/** What a running replica holds in memory, as last recorded. */
export interface ReplicaState {
  readonly pid: number;
  readonly instanceId: string;
  /** Runs whose detection state was held. */
  readonly liveRuns: number;
  /** Spans received (acknowledged to the sender) and not judged yet. */
  readonly bufferedSpans: number;
  /** When this was recorded (ISO 8601). */
  readonly at: string;
}

/**
 * `--state-file`: a small file a running replica rewrites every second with what it holds in
 * memory, and removes once it stopped cleanly. A replica that finds the file at start was
 * preceded by one that did not stop (killed, crashed, out of memory): the record says what that
 * one lost. Written to a temporary file and renamed, so a kill mid-write leaves the last record.
 */
export class ReplicaStateFile {
  private readonly temporary: string;

  constructor(readonly path: string) {
    this.temporary = `${path}.tmp`;
  }

  /**
   * The record a replica that did not stop left, if any. A missing file is a clean stop (or a
   * first start); an unreadable one is reported through `problem` and counts as none.
   */
  previous(problem: (message: string) => void): ReplicaState | undefined {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
        problem(`cannot read ${this.path}: ${(error as Error).message}`);
      return undefined;
    }
    try {
      const state: unknown = JSON.parse(text);
      if (isReplicaState(state)) return state;
    } catch {
      // reported below, as any other content that is no record
    }
    problem(`${this.path} holds no replica state record; ignored`);
    return undefined;
  }

  /** Records `state` (throws what the file system throws). */
  write(state: ReplicaState): void {
    writeFileSync(this.temporary, `${JSON.stringify(state)}\n`);
    renameSync(this.temporary, this.path);
  }

  /** Removes the record: this replica stopped cleanly (throws what the file system throws). */
  clear(): void {
    rmSync(this.path, { force: true });
    rmSync(this.temporary, { force: true });
  }
}

function isReplicaState(value: unknown): value is ReplicaState {
  return (
    isRecord(value) &&
    Number.isSafeInteger(value.pid) &&
    typeof value.instanceId === 'string' &&
    Number.isSafeInteger(value.liveRuns) &&
    Number.isSafeInteger(value.bufferedSpans) &&
    typeof value.at === 'string'
  );
}
