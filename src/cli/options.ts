import { loadConfigFile } from '../config/load-file.js';
import type { LoopDetectionConfig, ToolLoopGuardConfig } from '../config/types.js';

/** A bad command line: printed with the usage hint, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Parses a positive integer option value. */
export function positiveInteger(name: string, value: string): number {
  if (!/^\d+$/.test(value.trim()) || Number(value) <= 0)
    throw new UsageError(`--${name} must be a positive integer, got ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * Parses a range of positive integers: `5`, `3..10`, `3..10/2` (step), or a list `3,5,8`
 * (items may themselves be ranges). Returns sorted distinct values.
 */
export function integerRange(name: string, value: string): number[] {
  const values = new Set<number>();
  for (const part of value.split(',')) {
    const text = part.trim();
    const range = /^(\d+)\.\.(\d+)(?:\/(\d+))?$/.exec(text);
    if (range) {
      const [from, to, step] = [Number(range[1]), Number(range[2]), Number(range[3] ?? 1)];
      if (from <= 0 || to < from || step <= 0)
        throw new UsageError(`--${name}: bad range ${JSON.stringify(text)} (want from..to with 0 < from <= to)`);
      for (let n = from; n <= to; n += step) values.add(n);
    } else values.add(positiveInteger(name, text));
  }
  if (values.size > 10_000) throw new UsageError(`--${name}: range too large`);
  return [...values].sort((a, b) => a - b);
}

/** Threshold overrides from the command line, applied over the config file. */
export interface ConfigOverrides {
  enable?: boolean;
  warningThreshold?: number;
  criticalThreshold?: number;
  globalCircuitBreakerThreshold?: number;
  historySize?: number;
  unknownToolThreshold?: number;
  windowSize?: number;
}

/** The option names of {@link ConfigOverrides} on the command line. */
export const OVERRIDE_OPTIONS = {
  enable: { type: 'boolean' },
  warning: { type: 'string' },
  critical: { type: 'string' },
  breaker: { type: 'string' },
  history: { type: 'string' },
  unknown: { type: 'string' },
  window: { type: 'string' },
} as const;

/** Reads the override options (single values). */
export function readOverrides(values: Record<string, unknown>): ConfigOverrides {
  const int = (name: string) => (typeof values[name] === 'string' ? positiveInteger(name, values[name]) : undefined);
  return {
    enable: values.enable === true ? true : undefined,
    warningThreshold: int('warning'),
    criticalThreshold: int('critical'),
    globalCircuitBreakerThreshold: int('breaker'),
    historySize: int('history'),
    unknownToolThreshold: int('unknown'),
    windowSize: int('window'),
  };
}

function applyToBlock(
  block: LoopDetectionConfig | undefined,
  overrides: ConfigOverrides,
  always: boolean,
): LoopDetectionConfig | undefined {
  if (!block && !always) return block;
  const next: LoopDetectionConfig = { ...block };
  if (overrides.enable) next.enabled = true;
  for (const key of [
    'warningThreshold',
    'criticalThreshold',
    'globalCircuitBreakerThreshold',
    'historySize',
    'unknownToolThreshold',
  ] as const) {
    if (overrides[key] !== undefined) next[key] = overrides[key];
  }
  if (overrides.windowSize !== undefined)
    next.postCompactionGuard = { ...next.postCompactionGuard, windowSize: overrides.windowSize };
  return next;
}

/**
 * Applies command-line overrides to the global `tools.loopDetection` block and to every
 * per-agent block (so the command line wins over the file everywhere). The input is not
 * modified.
 */
export function applyOverrides(config: ToolLoopGuardConfig, overrides: ConfigOverrides): ToolLoopGuardConfig {
  const any = Object.values(overrides).some((value) => value !== undefined);
  if (!any) return config;
  const next: ToolLoopGuardConfig = {
    ...config,
    tools: { ...config.tools, loopDetection: applyToBlock(config.tools?.loopDetection, overrides, true) },
  };
  if (Array.isArray(config.agents?.list)) {
    next.agents = {
      ...config.agents,
      list: config.agents.list.map((entry) =>
        entry?.tools?.loopDetection
          ? {
              ...entry,
              tools: { ...entry.tools, loopDetection: applyToBlock(entry.tools.loopDetection, overrides, false) },
            }
          : entry,
      ),
    };
  }
  return next;
}

/**
 * Loads `--config` (JSON5, same rules as the processor). Its warnings go to `warn`; leave it out
 * when the config goes to an `AgentConfigResolver`, which reports them itself.
 */
export async function loadCliConfig(
  file: string | undefined,
  warn?: (line: string) => void,
): Promise<ToolLoopGuardConfig> {
  if (file === undefined) return {};
  const loaded = await loadConfigFile(file);
  if (warn) for (const warning of loaded.warnings) warn(`config ${file}: ${warning.path}: ${warning.message}`);
  return loaded.config;
}
