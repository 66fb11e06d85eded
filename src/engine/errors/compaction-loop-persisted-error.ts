/** The code and detector name of a post-compaction abort. */
export const COMPACTION_LOOP_PERSISTED_CODE = 'compaction_loop_persisted';

/** What a post-compaction abort carries (see {@link CompactionLoopPersistedError.fromVerdict}). */
export interface CompactionLoopPersistedDetails {
  readonly detector: string;
  readonly count: number;
  readonly toolName: string;
}

/**
 * The run was aborted because the same (tool, args, result) triple filled the whole
 * post-compaction window. Our name for OpenClaw's `PostCompactionLoopPersistedError`;
 * `code` is always `compaction_loop_persisted`.
 */
export class CompactionLoopPersistedError extends Error {
  override readonly name = 'CompactionLoopPersistedError';
  readonly code = COMPACTION_LOOP_PERSISTED_CODE;
  readonly detector: string;
  readonly count: number;
  readonly toolName: string;

  constructor(message: string, details: CompactionLoopPersistedDetails) {
    super(message);
    this.detector = details.detector;
    this.count = details.count;
    this.toolName = details.toolName;
  }

  /** Builds the error from a guard abort verdict: its message, detector, count and tool. */
  static fromVerdict(verdict: { message: string } & CompactionLoopPersistedDetails): CompactionLoopPersistedError {
    return new CompactionLoopPersistedError(verdict.message, verdict);
  }
}
