/**
 * A deliberately naive reference model of OpenClaw's loop detection (recording, derived
 * quantities, decision order) and of our warning suppression, for differential tests against
 * `src/engine`. It is written from OpenClaw's rules, not from `src/engine/history/`:
 *
 * - the history is one plain array, trimmed from the front after every append;
 * - every derived quantity is a fresh scan of the run-filtered array, newest to oldest,
 *   exactly as OpenClaw words it (no indexes, no incremental state);
 * - the decision order is OpenClaw's table, row by row.
 *
 * It never touches hashing: callers hand it `toolName`, `argsHash`, `resultHash` and
 * `unknownToolName` as opaque strings. Thresholds come from an already resolved config
 * (its resolution is tested elsewhere).
 */

/** The config fields the rows of the decision table read. */
export interface ReferenceConfig {
  readonly enabled: boolean;
  readonly historySize: number;
  readonly warningThreshold: number;
  readonly criticalThreshold: number;
  readonly globalCircuitBreakerThreshold: number;
  readonly unknownToolThreshold: number;
  readonly detectors: {
    readonly genericRepeat: boolean;
    readonly knownPollNoProgress: boolean;
    readonly pingPong: boolean;
  };
}

/** A history record (timestamps are irrelevant to detection and left out). */
export interface ReferenceRecord {
  toolName: string;
  argsHash: string;
  toolCallId?: string;
  runId?: string;
  resultHash?: string;
  unknownToolName?: string;
}

/** The call being checked. */
export interface ReferenceCall {
  readonly toolName: string;
  readonly argsHash: string;
  readonly knownPoll: boolean;
  readonly runId?: string;
}

/** A verdict, with the fields the spec defines for each row. */
export interface ReferenceVerdict {
  readonly level: 'warning' | 'critical';
  readonly detector:
    'generic_repeat' | 'known_poll_no_progress' | 'ping_pong' | 'unknown_tool_repeat' | 'global_circuit_breaker';
  readonly count: number;
  readonly message: string;
  readonly warningKey: string;
  readonly pairedToolName?: string;
}

/** Trim; an empty string counts as "no run id". */
export function refNormalizeRunId(runId: string | undefined): string | undefined {
  if (typeof runId !== 'string') return undefined;
  const trimmed = runId.trim();
  return trimmed.length === 0 ? undefined : trimmed;
}

function sameRun(a: string | undefined, b: string | undefined): boolean {
  return refNormalizeRunId(a) === refNormalizeRunId(b);
}

/** The shared history of one session. */
export class ReferenceHistory {
  readonly records: ReferenceRecord[] = [];

  /** Before a call: append the pre-call record, then drop the oldest until `historySize` long. */
  recordCall(
    call: { toolName: string; argsHash: string; toolCallId?: string; runId?: string },
    historySize: number,
  ): void {
    const record: ReferenceRecord = { toolName: call.toolName, argsHash: call.argsHash };
    if (call.toolCallId !== undefined) record.toolCallId = call.toolCallId;
    const runId = refNormalizeRunId(call.runId);
    if (runId !== undefined) record.runId = runId;
    this.records.push(record);
    this.trim(historySize);
  }

  /**
   * After a call: find the newest record with the same run, the same call id (if given),
   * the same tool and args and no result yet; attach; else append a complete record. Trim.
   */
  recordOutcome(
    outcome: {
      toolName: string;
      argsHash: string;
      toolCallId?: string;
      runId?: string;
      resultHash: string;
      unknownToolName?: string;
    },
    historySize: number,
  ): void {
    for (let i = this.records.length - 1; i >= 0; i -= 1) {
      const record = this.records[i];
      if (!sameRun(record.runId, outcome.runId)) continue;
      if (outcome.toolCallId !== undefined && record.toolCallId !== outcome.toolCallId) continue;
      if (record.toolName !== outcome.toolName || record.argsHash !== outcome.argsHash) continue;
      if (record.resultHash !== undefined) continue;
      record.resultHash = outcome.resultHash;
      if (outcome.unknownToolName !== undefined) record.unknownToolName = outcome.unknownToolName;
      else delete record.unknownToolName;
      this.trim(historySize);
      return;
    }
    const record: ReferenceRecord = {
      toolName: outcome.toolName,
      argsHash: outcome.argsHash,
      resultHash: outcome.resultHash,
    };
    if (outcome.toolCallId !== undefined) record.toolCallId = outcome.toolCallId;
    const runId = refNormalizeRunId(outcome.runId);
    if (runId !== undefined) record.runId = runId;
    if (outcome.unknownToolName !== undefined) record.unknownToolName = outcome.unknownToolName;
    this.records.push(record);
    this.trim(historySize);
  }

  /** Run scope: the records of one run (or the unscoped ones), oldest first. */
  scoped(runId: string | undefined): ReferenceRecord[] {
    return this.records.filter((record) => sameRun(record.runId, runId));
  }

  private trim(historySize: number): void {
    while (this.records.length > historySize) this.records.shift();
  }
}

// ── Derived quantities: each a full scan of the scoped records ───────────

export function refNoProgressStreak(
  scoped: readonly ReferenceRecord[],
  toolName: string,
  argsHash: string,
): { count: number; latest?: string } {
  let latest: string | undefined;
  let count = 0;
  for (let i = scoped.length - 1; i >= 0; i -= 1) {
    const record = scoped[i];
    if (record.toolName !== toolName || record.argsHash !== argsHash) continue;
    if (record.resultHash === undefined) continue;
    if (latest === undefined) {
      latest = record.resultHash;
      count = 1;
    } else if (record.resultHash === latest) {
      count += 1;
    } else {
      break;
    }
  }
  return { count, latest };
}

export function refRecentCount(scoped: readonly ReferenceRecord[], toolName: string, argsHash: string): number {
  return scoped.filter((record) => record.toolName === toolName && record.argsHash === argsHash).length;
}

export function refUnknownToolStreak(
  scoped: readonly ReferenceRecord[],
  toolName: string,
): { count: number; name?: string } {
  let name: string | undefined;
  let count = 0;
  for (let i = scoped.length - 1; i >= 0; i -= 1) {
    const record = scoped[i];
    if (record.toolName !== toolName || record.unknownToolName === undefined) break;
    if (name === undefined) name = record.unknownToolName;
    else if (record.unknownToolName !== name) break;
    count += 1;
  }
  return { count, name };
}

export function refPingPong(
  scoped: readonly ReferenceRecord[],
  currentArgsHash: string,
): { count: number; evidence: boolean; pairedToolName?: string; pairedSignature?: string } {
  const none = { count: 0, evidence: false };
  // Step 1.
  if (scoped.length === 0) return none;
  const last = scoped[scoped.length - 1];
  // Step 2: the newest earlier record whose argsHash differs from last's.
  let other: string | undefined;
  for (let i = scoped.length - 2; i >= 0; i -= 1) {
    if (scoped[i].argsHash !== last.argsHash) {
      other = scoped[i].argsHash;
      break;
    }
  }
  if (other === undefined) return none;
  // Step 3: walk back expecting last, other, last, other, …
  let tail = 0;
  for (let i = scoped.length - 1; i >= 0; i -= 1) {
    const expected = tail % 2 === 0 ? last.argsHash : other;
    if (scoped[i].argsHash !== expected) break;
    tail += 1;
  }
  // Step 4.
  if (tail < 2 || currentArgsHash !== other) return none;
  // Step 5: no-progress evidence over the tail.
  const tailRecords = scoped.slice(scoped.length - tail);
  const everyHashed = tailRecords.every((record) => record.resultHash !== undefined);
  const lastSide = new Set(
    tailRecords.filter((record) => record.argsHash === last.argsHash).map((record) => record.resultHash),
  );
  const otherSide = new Set(
    tailRecords.filter((record) => record.argsHash === other).map((record) => record.resultHash),
  );
  const evidence = everyHashed && lastSide.size === 1 && otherSide.size === 1;
  // Step 6.
  return { count: tail + 1, evidence, pairedToolName: last.toolName, pairedSignature: last.argsHash };
}

// ── Decision order ───────────────────────────────────────────────────────

/** The verdict for `call` over `history`, before the call is recorded; `undefined` = not stuck. */
export function referenceDetect(
  history: ReferenceHistory,
  call: ReferenceCall,
  config: ReferenceConfig,
): ReferenceVerdict | undefined {
  // Row 0.
  if (config.enabled !== true) return undefined;
  const scoped = history.scoped(call.runId);
  const tool = call.toolName;
  const W = config.warningThreshold;
  const C = config.criticalThreshold;
  const B = config.globalCircuitBreakerThreshold;
  const U = config.unknownToolThreshold;

  // Row 1.
  const unknown = refUnknownToolStreak(scoped, tool);
  if (unknown.count >= U) {
    return {
      level: 'critical',
      detector: 'unknown_tool_repeat',
      count: unknown.count,
      message: `CRITICAL: attempted unavailable tool ${unknown.name ?? tool} ${unknown.count} times. Stop retrying that missing tool and answer without it.`,
      warningKey: `unknown-tool:${tool}:${unknown.name ?? 'unknown'}`,
    };
  }
  const streak = refNoProgressStreak(scoped, tool, call.argsHash);
  const latest = streak.latest ?? 'none';
  // Row 2.
  if (streak.count >= B) {
    return {
      level: 'critical',
      detector: 'global_circuit_breaker',
      count: streak.count,
      message: `CRITICAL: ${tool} has repeated identical no-progress outcomes ${streak.count} times. Session execution blocked by global circuit breaker to prevent runaway loops.`,
      warningKey: `global:${tool}:${call.argsHash}:${latest}`,
    };
  }
  // Rows 3–4.
  if (call.knownPoll && config.detectors.knownPollNoProgress && streak.count >= C) {
    return {
      level: 'critical',
      detector: 'known_poll_no_progress',
      count: streak.count,
      message: `CRITICAL: Called ${tool} with identical arguments and no progress ${streak.count} times. This appears to be a stuck polling loop. Session execution blocked to prevent resource waste.`,
      warningKey: `poll:${tool}:${call.argsHash}:${latest}`,
    };
  }
  if (call.knownPoll && config.detectors.knownPollNoProgress && streak.count >= W) {
    return {
      level: 'warning',
      detector: 'known_poll_no_progress',
      count: streak.count,
      message: `WARNING: You have called ${tool} ${streak.count} times with identical arguments and no progress. Stop polling and either (1) increase wait time between checks, or (2) report the task as failed if the process is stuck.`,
      warningKey: `poll:${tool}:${call.argsHash}:${latest}`,
    };
  }
  // Rows 5–6.
  if (config.detectors.pingPong) {
    const pp = refPingPong(scoped, call.argsHash);
    const key = `pingpong:${[call.argsHash, pp.pairedSignature ?? ''].sort().join('|')}`;
    if (pp.count > 0 && pp.count >= C && pp.evidence) {
      return {
        level: 'critical',
        detector: 'ping_pong',
        count: pp.count,
        message: `CRITICAL: You are alternating between repeated tool-call patterns (${pp.count} consecutive calls) with no progress. This appears to be a stuck ping-pong loop. Session execution blocked to prevent resource waste.`,
        warningKey: key,
        pairedToolName: pp.pairedToolName,
      };
    }
    if (pp.count > 0 && pp.count >= W) {
      return {
        level: 'warning',
        detector: 'ping_pong',
        count: pp.count,
        message: `WARNING: You are alternating between repeated tool-call patterns (${pp.count} consecutive calls). This looks like a ping-pong loop; stop retrying and report the task as failed.`,
        warningKey: key,
        pairedToolName: pp.pairedToolName,
      };
    }
  }
  // Rows 7–8.
  if (!call.knownPoll && config.detectors.genericRepeat) {
    if (streak.count >= C) {
      return {
        level: 'critical',
        detector: 'generic_repeat',
        count: streak.count,
        message: `CRITICAL: Called ${tool} with identical arguments and identical outcomes ${streak.count} times. Session execution blocked to prevent runaway loops.`,
        warningKey: `generic:${tool}:${call.argsHash}:${latest}`,
      };
    }
    const recent = refRecentCount(scoped, tool, call.argsHash);
    if (recent >= W) {
      return {
        level: 'warning',
        detector: 'generic_repeat',
        count: recent,
        message: `WARNING: You have called ${tool} ${recent} times with identical arguments. If this is not making progress, stop retrying and report the task as failed.`,
        warningKey: `generic:${tool}:${call.argsHash}`,
      };
    }
  }
  // Row 9.
  return undefined;
}

/**
 * Warning suppression: per run and warningKey, emit when
 * `floor(count / W)` exceeds the last emitted bucket (initially 0); criticals always emit.
 * The map keeps at most `maxKeys` keys, forgetting the least recently emitted one.
 */
export class ReferenceSuppression {
  private readonly order: string[] = [];
  private readonly buckets = new Map<string, number>();

  constructor(private readonly maxKeys = 256) {}

  shouldEmit(verdict: ReferenceVerdict, warningThreshold: number, runId: string | undefined): boolean {
    if (verdict.level === 'critical') return true;
    const run = refNormalizeRunId(runId);
    const key = run !== undefined ? `${run}:${verdict.warningKey}` : verdict.warningKey;
    const bucket = Math.floor(verdict.count / warningThreshold);
    if (bucket <= (this.buckets.get(key) ?? 0)) return false;
    const at = this.order.indexOf(key);
    if (at >= 0) this.order.splice(at, 1);
    this.order.push(key);
    this.buckets.set(key, bucket);
    while (this.order.length > this.maxKeys) this.buckets.delete(this.order.shift()!);
    return true;
  }
}

/**
 * One session of the before-tool-call flow: check; a critical blocks and is not
 * recorded; otherwise record the call. Mirrors `LoopSession` at the model level.
 */
export class ReferenceSession {
  readonly history = new ReferenceHistory();
  readonly suppression = new ReferenceSuppression();

  check(call: ReferenceCall, config: ReferenceConfig): { verdict?: ReferenceVerdict; emit: boolean; blocked: boolean } {
    const verdict = referenceDetect(this.history, call, config);
    if (!verdict) return { emit: false, blocked: false };
    if (verdict.level === 'critical') return { verdict, emit: true, blocked: true };
    return { verdict, emit: this.suppression.shouldEmit(verdict, config.warningThreshold, call.runId), blocked: false };
  }
}
