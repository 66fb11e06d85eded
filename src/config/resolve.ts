import { boundedText } from '../util/bounded-text.js';
import { silentLogger, type EngineLogger } from '../util/logger.js';
import { DEFAULT_LOOP_DETECTION_CONFIG as D, ladderWarning, MIN_CYCLE_LAPS } from './defaults.js';
import type { ResolvedLoopDetectionConfig } from '../engine/config.js';
import { TOOL_THRESHOLD_KEYS, type LoopDetectionConfig } from './types.js';
import { describeValue } from '../util/describe-value.js';
import { isPositiveInteger } from '../util/is-positive-integer.js';
import { isRecord } from '../util/is-record.js';
import { snapshotConfig } from './snapshot.js';
import { mergeLoopDetectionConfig } from './merge.js';
import { LOOP_DETECTION_PROFILES, loopDetectionProfile } from './profiles.js';

/** Where a resolution is reported and how its keys are named in messages. */
export interface ResolveOptions {
  /** Receives one warning per invalid value or clamp. Default: silent. */
  logger?: EngineLogger;
  /** Prefix of key paths in warnings. Default `tools.loopDetection`. */
  keyPath?: string;
}

/**
 * Largest threshold kept as given: the clamps critical > warning and breaker > critical add
 * up to 2, and every result must stay an exact (safe) integer. Larger ones are clamped to it.
 */
export const MAX_THRESHOLD = Number.MAX_SAFE_INTEGER - 2;

/**
 * An absent block or section: without a prototype, like the snapshots it stands in for, so that
 * a key inherited through a polluted `Object.prototype` is never read as a setting.
 */
const NO_SETTINGS: Record<string, unknown> = Object.freeze(Object.create(null) as Record<string, unknown>);

/**
 * Resolves a (possibly merged) `tools.loopDetection` block at runtime, as OpenClaw does: invalid
 * numbers and booleans fall back to their defaults with a warning naming the key; then
 * `criticalThreshold` is clamped above `warningThreshold` and
 * `globalCircuitBreakerThreshold` above the clamped critical, each with a warning.
 * Reads own properties only (see `snapshotConfig`); never throws.
 */
export function resolveLoopDetectionConfig(
  config: LoopDetectionConfig | undefined,
  options: ResolveOptions = {},
): ResolvedLoopDetectionConfig {
  const logger = options.logger ?? silentLogger;
  const prefix = options.keyPath ?? 'tools.loopDetection';
  const snapshot = snapshotConfig(config, prefix);
  for (const issue of snapshot.issues) logger.warn(`${issue.path}: ${issue.message}`);
  const given: Record<string, unknown> = isRecord(snapshot.value) ? snapshot.value : NO_SETTINGS;
  if (config !== undefined && !isRecord(snapshot.value)) {
    logger.warn(`${prefix}: expected an object, got ${describeValue(config)}; using defaults`);
  }
  const source = withProfile(given, prefix, logger);
  const base = resolveBlock(source, prefix, logger);
  // `byTool` is the resolution's own property even when absent: never one inherited.
  return { ...base, byTool: resolveByTool(source, prefix, logger) };
}

/**
 * The `byTool` entries, each resolved as the block with the entry's thresholds over it (so the
 * clamps apply per tool); warnings name the entry's keys (the block's own were reported already).
 */
function resolveByTool(
  source: Record<string, unknown>,
  prefix: string,
  logger: EngineLogger,
): ReadonlyMap<string, ResolvedLoopDetectionConfig> | undefined {
  const given = source.byTool;
  if (given === undefined) return undefined;
  if (!isRecord(given)) {
    logger.warn(`${prefix}.byTool: expected an object of tool names, got ${describeValue(given)}; ignored`);
    return undefined;
  }
  const allowed = new Set<string>(TOOL_THRESHOLD_KEYS);
  const byTool = new Map<string, ResolvedLoopDetectionConfig>();
  for (const [tool, entry] of Object.entries(given)) {
    const path = `${prefix}.byTool[${JSON.stringify(tool)}]`;
    if (!isRecord(entry)) {
      logger.warn(`${path}: expected an object of thresholds, got ${describeValue(entry)}; ignored`);
      continue;
    }
    const thresholds = Object.create(null) as Record<string, unknown>;
    for (const [key, value] of Object.entries(entry)) {
      if (!allowed.has(key)) logger.warn(`${path}.${key}: not a per-tool threshold (ignored)`);
      else if (isPositiveInteger(value)) thresholds[key] = value;
      else
        logger.warn(
          `${path}.${key}: expected a positive integer, got ${describeValue(value)}; the block's value applies`,
        );
    }
    const keys = Object.keys(thresholds);
    const entryLogger: EngineLogger = {
      debug: (message) => logger.debug(message),
      info: (message) => logger.info(message),
      warn: (message) => {
        if (keys.some((key) => message.includes(key))) logger.warn(message);
      },
      error: (message) => logger.error(message),
    };
    // Without a prototype, as the block it overlays; keyed as tool names read from spans are.
    const block = Object.assign(Object.create(null) as Record<string, unknown>, source, thresholds);
    byTool.set(boundedText(tool), resolveBlock(block, path, entryLogger));
  }
  return byTool.size > 0 ? byTool : undefined;
}

/** Resolves a block whose profile was applied; see {@link resolveLoopDetectionConfig}. */
function resolveBlock(
  source: Record<string, unknown>,
  prefix: string,
  logger: EngineLogger,
): ResolvedLoopDetectionConfig {
  const integer = (
    key: string,
    fallback: number,
    from: Record<string, unknown> = source,
    path = `${prefix}.${key}`,
  ) => {
    const value = from[key];
    if (value === undefined) return fallback;
    if (isPositiveInteger(value)) return value;
    logger.warn(`${path}: expected a positive integer, got ${describeValue(value)}; using default ${fallback}`);
    return fallback;
  };
  const atLeast = (key: string, fallback: number, floor: number, why: string) => {
    const value = integer(key, fallback);
    if (value >= floor) return value;
    logger.warn(`${prefix}.${key}: ${value} is below ${floor} (${why}); clamped to ${floor}`);
    return floor;
  };
  const percent = (key: string, fallback: number) => {
    const value = integer(key, fallback);
    if (value <= 100) return value;
    logger.warn(`${prefix}.${key}: expected a percentage (1-100), got ${value}; using default ${fallback}`);
    return fallback;
  };
  const flag = (from: Record<string, unknown>, key: string, fallback: boolean, path: string) => {
    const value = from[key];
    if (value === undefined) return fallback;
    if (typeof value === 'boolean') return value;
    logger.warn(`${path}: expected a boolean, got ${describeValue(value)}; using default ${fallback}`);
    return fallback;
  };
  const section = (key: string): Record<string, unknown> => {
    const value = source[key];
    if (value === undefined) return NO_SETTINGS;
    if (isRecord(value)) return value;
    logger.warn(`${prefix}.${key}: expected an object, got ${describeValue(value)}; using defaults`);
    return NO_SETTINGS;
  };

  const enabledRaw = source.enabled;
  let enabled: boolean | undefined;
  if (enabledRaw === undefined || typeof enabledRaw === 'boolean') enabled = enabledRaw;
  else logger.warn(`${prefix}.enabled: expected a boolean, got ${describeValue(enabledRaw)}; treating it as unset`);

  const threshold = (key: string, fallback: number) => {
    const value = integer(key, fallback);
    if (value <= MAX_THRESHOLD) return value;
    logger.warn(`${prefix}.${key}: ${value} leaves no room for the thresholds above it; clamped to ${MAX_THRESHOLD}`);
    return MAX_THRESHOLD;
  };
  /** A threshold that must stay above `floorKey`'s value: clamped to it + 1, with a warning. */
  const above = (key: string, fallback: number, floorKey: string, floor: number) => {
    const value = threshold(key, fallback);
    if (value > floor) return value;
    logger.warn(`${prefix}.${key}: ${value} is not above ${floorKey} ${floor}; clamped to ${floor + 1}`);
    return floor + 1;
  };
  const warningThreshold = threshold('warningThreshold', D.warningThreshold);
  const criticalThreshold = above('criticalThreshold', D.criticalThreshold, 'warningThreshold', warningThreshold);
  const globalCircuitBreakerThreshold = above(
    'globalCircuitBreakerThreshold',
    D.globalCircuitBreakerThreshold,
    'criticalThreshold',
    criticalThreshold,
  );
  const typedErrorWarningThreshold = threshold('typedErrorWarningThreshold', D.typedErrorWarningThreshold);
  const typedErrorCriticalThreshold = above(
    'typedErrorCriticalThreshold',
    D.typedErrorCriticalThreshold,
    'typedErrorWarningThreshold',
    typedErrorWarningThreshold,
  );

  /**
   * A detector's warning step below its critical `critical`: when unset, half of it (see
   * `ladderWarning`); a value at or above the critical is clamped below it, with a warning.
   */
  const warningBelow = (key: string, critical: number, criticalKey: string, minimum = 1) => {
    if (source[key] === undefined) return ladderWarning(critical, minimum);
    const value = atLeast(key, ladderWarning(critical, minimum) || minimum, minimum, `the least that can warn`);
    if (value < critical) return value;
    const clamped = ladderWarning(critical, minimum) === 0 ? 0 : critical - 1;
    logger.warn(
      `${prefix}.${key}: ${value} is not below ${criticalKey} ${critical}; ${clamped === 0 ? 'no warning step is left' : `clamped to ${clamped}`}`,
    );
    return clamped;
  };
  const unknownToolThreshold = integer('unknownToolThreshold', D.unknownToolThreshold);
  const cycleCriticalLaps = atLeast(
    'cycleCriticalLaps',
    D.cycleCriticalLaps,
    MIN_CYCLE_LAPS,
    'one lap repeats nothing',
  );
  const identicalCallBudget = integer('identicalCallBudget', D.identicalCallBudget);
  const lowGainCallBudget = integer('lowGainCallBudget', D.lowGainCallBudget);
  const similarOutcomeThreshold = integer('similarOutcomeThreshold', D.similarOutcomeThreshold);
  const redundantCallBudget = integer('redundantCallBudget', D.redundantCallBudget);

  const detectors = section('detectors');
  const toggle = (key: keyof ResolvedLoopDetectionConfig['detectors']) =>
    flag(detectors, key, D.detectors[key], `${prefix}.detectors.${key}`);
  const guard = section('postCompactionGuard');
  return {
    enabled: enabled === true,
    trackHistory: enabled !== false,
    historySize: integer('historySize', D.historySize),
    warningThreshold,
    criticalThreshold,
    globalCircuitBreakerThreshold,
    unknownToolThreshold,
    // OpenClaw's unknown-tool rule has no warning step: none unless one is set.
    unknownToolWarningThreshold:
      source.unknownToolWarningThreshold === undefined
        ? 0
        : warningBelow('unknownToolWarningThreshold', unknownToolThreshold, 'unknownToolThreshold'),
    pingPongRequiresNoProgress: flag(
      source,
      'pingPongRequiresNoProgress',
      D.pingPongRequiresNoProgress,
      `${prefix}.pingPongRequiresNoProgress`,
    ),
    genericRepeatInARow: flag(source, 'genericRepeatInARow', D.genericRepeatInARow, `${prefix}.genericRepeatInARow`),
    waitCriticalThreshold: integer('waitCriticalThreshold', D.waitCriticalThreshold),
    typedErrorWarningThreshold,
    typedErrorCriticalThreshold,
    cycleCriticalLaps,
    cycleWarningLaps: warningBelow('cycleWarningLaps', cycleCriticalLaps, 'cycleCriticalLaps', MIN_CYCLE_LAPS),
    identicalCallBudget,
    identicalCallWarningThreshold: warningBelow(
      'identicalCallWarningThreshold',
      identicalCallBudget,
      'identicalCallBudget',
    ),
    lowGainCallBudget,
    lowGainCallWarningThreshold: warningBelow('lowGainCallWarningThreshold', lowGainCallBudget, 'lowGainCallBudget'),
    similarOutcomeThreshold,
    similarOutcomeWarningThreshold: warningBelow(
      'similarOutcomeWarningThreshold',
      similarOutcomeThreshold,
      'similarOutcomeThreshold',
    ),
    redundantCallBudget,
    redundantCallWarningThreshold: warningBelow(
      'redundantCallWarningThreshold',
      redundantCallBudget,
      'redundantCallBudget',
    ),
    similarityPercent: percent('similarityPercent', D.similarityPercent),
    detectors: {
      genericRepeat: toggle('genericRepeat'),
      knownPollNoProgress: toggle('knownPollNoProgress'),
      pingPong: toggle('pingPong'),
      vetoesExtendStreak: toggle('vetoesExtendStreak'),
      batchAdmission: toggle('batchAdmission'),
      execFailureIdentity: toggle('execFailureIdentity'),
      typedErrorRepeat: toggle('typedErrorRepeat'),
      argumentChurn: toggle('argumentChurn'),
      waitPoll: toggle('waitPoll'),
      resultCycle: toggle('resultCycle'),
      identicalCallBudget: toggle('identicalCallBudget'),
      similarOutcome: toggle('similarOutcome'),
      redundantCall: toggle('redundantCall'),
    },
    postCompactionGuard: {
      enabled: enabled !== false,
      windowSize: integer(
        'windowSize',
        D.postCompactionGuard.windowSize,
        guard,
        `${prefix}.postCompactionGuard.windowSize`,
      ),
    },
  };
}

/**
 * The block with its `profile` applied: the profile's settings under every key the block sets
 * (nested `detectors` and `postCompactionGuard` key by key, as the per-agent merge does). An
 * unknown or mistyped name is ignored with a warning naming the key.
 */
function withProfile(block: Record<string, unknown>, prefix: string, logger: EngineLogger): Record<string, unknown> {
  const name = block.profile;
  if (name === undefined) return block;
  const profile = loopDetectionProfile(name);
  if (!profile) {
    const known = Object.keys(LOOP_DETECTION_PROFILES).join(', ');
    logger.warn(`${prefix}.profile: unknown profile ${describeValue(name)} (known: ${known}); ignored`);
    return block;
  }
  const merged = mergeLoopDetectionConfig(profile, block);
  return isRecord(merged) ? merged : block;
}
