import { boundedText } from '../util/bounded-text.js';
import { silentLogger, type EngineLogger } from '../util/logger.js';
import { mergeLoopDetectionConfig } from './merge.js';
import { resolveLoopDetectionConfig } from './resolve.js';
import type { ResolvedLoopDetectionConfig } from '../engine/config.js';
import type { LoopDetectionConfig, ToolLoopGuardConfig } from './types.js';
import { validateToolLoopGuardConfig } from './validate.js';
import { isRecord } from '../util/is-record.js';
import { snapshotConfig } from './snapshot.js';

/**
 * Resolves the effective loop-detection config for an agent id, once per agent: the
 * global `tools.loopDetection` block merged with the matching `agents.list[]` entry
 * (as OpenClaw merges them), validated and clamped. Structural problems (unknown keys, wrong types) are
 * reported once through the logger at construction; the runtime falls back per key.
 */
export class AgentConfigResolver {
  private readonly global: LoopDetectionConfig | undefined;
  private readonly agents = new Map<string, { block: LoopDetectionConfig | undefined; index: number }>();
  private readonly cache = new Map<string, ResolvedLoopDetectionConfig>();
  private readonly logger: EngineLogger;
  private globalResolved: ResolvedLoopDetectionConfig | undefined;

  /** @param source - Where the config came from (a file), named in warnings. */
  constructor(config: ToolLoopGuardConfig | undefined, logger: EngineLogger = silentLogger, source?: string) {
    this.logger = logger;
    const where = source === undefined ? 'config' : `config ${source}:`;
    // One plain copy, own properties only: what is validated is what is used.
    const snapshot = snapshotConfig(config ?? {});
    for (const issue of [...snapshot.issues, ...validateToolLoopGuardConfig(snapshot.value)]) {
      logger.warn(`${where} ${issue.path}: ${issue.message}`);
    }
    // A config that is not an object was reported above; it sets nothing (and inherits nothing).
    const root = isRecord(snapshot.value) ? snapshot.value : (Object.create(null) as Record<string, unknown>);
    this.global = isRecord(root.tools) ? (root.tools.loopDetection as LoopDetectionConfig | undefined) : undefined;
    const list = isRecord(root.agents) && Array.isArray(root.agents.list) ? root.agents.list : [];
    list.forEach((entry, index) => {
      if (!isRecord(entry) || typeof entry.id !== 'string') return;
      // Bounded as agent ids read from spans are, so that a long id still finds its entry.
      const id = boundedText(entry.id.trim());
      // OpenClaw resolves the first matching entry; later duplicates are ignored.
      if (id && !this.agents.has(id)) {
        const block = isRecord(entry.tools)
          ? (entry.tools.loopDetection as LoopDetectionConfig | undefined)
          : undefined;
        this.agents.set(id, { block, index });
      }
    });
  }

  /** The resolved config for `agentId` (global config when absent or not listed). */
  forAgent(agentId?: string): ResolvedLoopDetectionConfig {
    const id = agentId === undefined ? undefined : boundedText(agentId.trim());
    const agent = id ? this.agents.get(id) : undefined;
    if (!agent || !id) {
      this.globalResolved ??= resolveLoopDetectionConfig(this.global, { logger: this.logger });
      return this.globalResolved;
    }
    let resolved = this.cache.get(id);
    if (!resolved) {
      resolved = resolveLoopDetectionConfig(mergeLoopDetectionConfig(this.global, agent.block), {
        logger: this.logger,
        keyPath: `agents.list[${agent.index}].tools.loopDetection (merged)`,
      });
      this.cache.set(id, resolved);
    }
    return resolved;
  }
}
