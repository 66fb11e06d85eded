import { isPositiveInteger } from '../util/is-positive-integer.js';
import { isRecord } from '../util/is-record.js';
import type { ConfigIssue } from './config-issue.js';
import { snapshotConfig } from './snapshot.js';
import { LOOP_DETECTION_PROFILES, loopDetectionProfile } from './profiles.js';
import { TOOL_THRESHOLD_KEYS } from './types.js';

type Shape = {
  readonly [key: string]: 'boolean' | 'positiveInteger' | 'percent' | 'profile' | 'byTool' | Shape;
};

const LOOP_DETECTION_SHAPE: Shape = {
  profile: 'profile',
  enabled: 'boolean',
  historySize: 'positiveInteger',
  warningThreshold: 'positiveInteger',
  criticalThreshold: 'positiveInteger',
  globalCircuitBreakerThreshold: 'positiveInteger',
  unknownToolThreshold: 'positiveInteger',
  unknownToolWarningThreshold: 'positiveInteger',
  pingPongRequiresNoProgress: 'boolean',
  genericRepeatInARow: 'boolean',
  waitCriticalThreshold: 'positiveInteger',
  typedErrorWarningThreshold: 'positiveInteger',
  typedErrorCriticalThreshold: 'positiveInteger',
  cycleCriticalLaps: 'positiveInteger',
  cycleWarningLaps: 'positiveInteger',
  identicalCallBudget: 'positiveInteger',
  identicalCallWarningThreshold: 'positiveInteger',
  lowGainCallBudget: 'positiveInteger',
  lowGainCallWarningThreshold: 'positiveInteger',
  similarOutcomeThreshold: 'positiveInteger',
  similarOutcomeWarningThreshold: 'positiveInteger',
  redundantCallBudget: 'positiveInteger',
  redundantCallWarningThreshold: 'positiveInteger',
  similarityPercent: 'percent',
  byTool: 'byTool',
  detectors: {
    genericRepeat: 'boolean',
    knownPollNoProgress: 'boolean',
    pingPong: 'boolean',
    vetoesExtendStreak: 'boolean',
    batchAdmission: 'boolean',
    execFailureIdentity: 'boolean',
    typedErrorRepeat: 'boolean',
    argumentChurn: 'boolean',
    waitPoll: 'boolean',
    resultCycle: 'boolean',
    identicalCallBudget: 'boolean',
    similarOutcome: 'boolean',
    redundantCall: 'boolean',
  },
  postCompactionGuard: { windowSize: 'positiveInteger' },
};

/**
 * Checks a configuration object against OpenClaw's `tools.loopDetection` schema: types, unknown keys,
 * and the pairwise rules `warningThreshold < criticalThreshold` and
 * `criticalThreshold < globalCircuitBreakerThreshold` when both of a pair are present.
 * Keys this package does not know are reported as warnings (OpenClaw rejects them; we keep
 * going so a newer config does not break an older processor). Own properties only; a value that
 * cannot be read (a throwing getter or Proxy trap) is a warning. Never throws.
 */
export function validateToolLoopGuardConfig(given: unknown, rootPath = ''): ConfigIssue[] {
  const snapshot = snapshotConfig(given, rootPath || '(root)');
  const config = snapshot.value;
  const issues: ConfigIssue[] = [...snapshot.issues];
  const at = (key: string) => (rootPath ? `${rootPath}.${key}` : key);
  if (!isRecord(config)) {
    issues.push({
      path: rootPath || '(root)',
      message: `expected an object, got ${typeName(config)}`,
      severity: 'error',
    });
    return issues;
  }
  for (const key of Object.keys(config)) {
    if (key !== 'tools' && key !== 'agents') issues.push(unknownKey(at(key)));
  }
  if (config.tools !== undefined) {
    if (!isRecord(config.tools)) issues.push(wrongType(at('tools'), 'an object', config.tools));
    else {
      for (const key of Object.keys(config.tools)) {
        if (key !== 'loopDetection') issues.push(unknownKey(at(`tools.${key}`)));
      }
      if (config.tools.loopDetection !== undefined) {
        issues.push(...validateLoopDetectionConfig(config.tools.loopDetection, at('tools.loopDetection')));
      }
    }
  }
  if (config.agents !== undefined) {
    if (!isRecord(config.agents)) issues.push(wrongType(at('agents'), 'an object', config.agents));
    else {
      for (const key of Object.keys(config.agents)) {
        if (key !== 'list') issues.push(unknownKey(at(`agents.${key}`)));
      }
      const list = config.agents.list;
      if (list !== undefined && !Array.isArray(list)) issues.push(wrongType(at('agents.list'), 'an array', list));
      else if (list)
        list.forEach((entry, index) => issues.push(...validateAgentEntry(entry, at(`agents.list[${index}]`))));
    }
  }
  return issues;
}

function validateAgentEntry(entry: unknown, path: string): ConfigIssue[] {
  if (!isRecord(entry)) return [wrongType(path, 'an object', entry)];
  const issues: ConfigIssue[] = [];
  if (typeof entry.id !== 'string' || entry.id.trim() === '')
    issues.push(wrongType(`${path}.id`, 'a non-empty string', entry.id));
  for (const key of Object.keys(entry)) if (key !== 'id' && key !== 'tools') issues.push(unknownKey(`${path}.${key}`));
  if (entry.tools !== undefined) {
    if (!isRecord(entry.tools)) issues.push(wrongType(`${path}.tools`, 'an object', entry.tools));
    else {
      for (const key of Object.keys(entry.tools))
        if (key !== 'loopDetection') issues.push(unknownKey(`${path}.tools.${key}`));
      if (entry.tools.loopDetection !== undefined) {
        issues.push(...validateLoopDetectionConfig(entry.tools.loopDetection, `${path}.tools.loopDetection`));
      }
    }
  }
  return issues;
}

/** Validates one `loopDetection` block; see {@link validateToolLoopGuardConfig}. */
export function validateLoopDetectionConfig(given: unknown, path = 'tools.loopDetection'): ConfigIssue[] {
  const snapshot = snapshotConfig(given, path);
  const block = snapshot.value;
  const issues = [...snapshot.issues, ...checkShape(block, LOOP_DETECTION_SHAPE, path)];
  if (!isRecord(block)) return issues;
  const { warningThreshold: w, criticalThreshold: c, globalCircuitBreakerThreshold: b } = block;
  if (typeof w === 'number' && typeof c === 'number' && w >= c) {
    issues.push({
      path: `${path}.criticalThreshold`,
      message: 'tools.loopDetection.warningThreshold must be lower than criticalThreshold.',
      severity: 'warning',
    });
  }
  if (typeof c === 'number' && typeof b === 'number' && c >= b) {
    issues.push({
      path: `${path}.globalCircuitBreakerThreshold`,
      message: 'tools.loopDetection.criticalThreshold must be lower than globalCircuitBreakerThreshold.',
      severity: 'warning',
    });
  }
  return issues;
}

function checkShape(value: unknown, shape: Shape, path: string): ConfigIssue[] {
  if (!isRecord(value)) return [wrongType(path, 'an object', value)];
  const issues: ConfigIssue[] = [];
  for (const [key, child] of Object.entries(value)) {
    const expected = Object.hasOwn(shape, key) ? shape[key] : undefined;
    const childPath = `${path}.${key}`;
    if (expected === undefined) issues.push(unknownKey(childPath));
    else if (child === undefined) continue;
    else if (typeof expected === 'object') issues.push(...checkShape(child, expected, childPath));
    else if (expected === 'byTool') issues.push(...checkByTool(child, childPath));
    else if (expected === 'boolean' && typeof child !== 'boolean')
      issues.push(wrongType(childPath, 'a boolean', child));
    else if (expected === 'positiveInteger' && !isPositiveInteger(child)) {
      issues.push(wrongType(childPath, 'a positive integer', child));
    } else if (expected === 'percent' && !(isPositiveInteger(child) && child <= 100)) {
      issues.push(wrongType(childPath, 'a percentage (an integer from 1 to 100)', child));
    } else if (expected === 'profile') {
      if (typeof child !== 'string') issues.push(wrongType(childPath, 'a profile name', child));
      else if (!loopDetectionProfile(child))
        issues.push({
          path: childPath,
          message: `unknown profile ${JSON.stringify(child)} (known: ${Object.keys(LOOP_DETECTION_PROFILES).join(', ')}); ignored`,
          severity: 'warning',
        });
    }
  }
  return issues;
}

/** `byTool`: tool names to objects of threshold keys (see `TOOL_THRESHOLD_KEYS`). */
function checkByTool(value: unknown, path: string): ConfigIssue[] {
  if (!isRecord(value)) return [wrongType(path, 'an object of tool names', value)];
  const thresholds = Object.create(null) as Record<string, 'positiveInteger'>;
  for (const key of TOOL_THRESHOLD_KEYS) thresholds[key] = 'positiveInteger';
  return Object.entries(value).flatMap(([tool, entry]) =>
    checkShape(entry, thresholds, `${path}[${JSON.stringify(tool)}]`),
  );
}

const unknownKey = (path: string): ConfigIssue => ({ path, message: 'unknown key (ignored)', severity: 'warning' });

const wrongType = (path: string, expected: string, value: unknown): ConfigIssue => ({
  path,
  message: `expected ${expected}, got ${typeName(value)}`,
  severity: 'error',
});

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return typeof value;
}
