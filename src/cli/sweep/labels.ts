import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isRecord } from '../../util/is-record.js';

/** One labelled run of a trajectory index (`../shared/trajectories/index.json`). */
export interface RunLabel {
  readonly id: string;
  /** Absolute path of the run's JSONL file. */
  readonly file: string;
  /** The agent, shortened to its first word (`AutoCodeRover`, `SWE-agent`, `tau-bench`). */
  readonly agent: string;
  /**
   * The agent set-up the run belongs to: the index entry's `setup`, else its `agent` and
   * `model` together (one scaffold with one model).
   */
  readonly setup: string;
  readonly resolved: boolean;
  /** Whether the run hit its harness limit (round, cost, turn limit). */
  readonly hitLimit: boolean | 'unknown';
}

/** Short agent label: the first word of the index's `agent` text. */
export function shortAgent(agent: unknown): string {
  return typeof agent === 'string' && agent.trim() !== '' ? agent.trim().split(/\s+/)[0] : 'unknown';
}

/**
 * Reads an index `{trajectories: [{id, file, agent, model?, setup?, resolved, hit_limit, …}]}`; `file` is
 * relative to the index's folder. Throws with a clear message when the file is not an index.
 */
export async function loadRunLabels(indexFile: string): Promise<RunLabel[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(indexFile, 'utf8'));
  } catch (error) {
    throw new Error(`${indexFile}: cannot read index: ${(error as Error).message}`, { cause: error });
  }
  if (!isRecord(parsed) || !Array.isArray(parsed.trajectories))
    throw new Error(`${indexFile}: not a trajectory index (expected {trajectories: [...]})`);
  const base = dirname(resolve(indexFile));
  const labels: RunLabel[] = [];
  parsed.trajectories.forEach((entry, index) => {
    if (!isRecord(entry) || typeof entry.file !== 'string')
      throw new Error(`${indexFile}: trajectories[${index}] has no "file"`);
    labels.push({
      id: typeof entry.id === 'string' ? entry.id : entry.file,
      file: resolve(base, entry.file),
      agent: shortAgent(entry.agent),
      setup:
        typeof entry.setup === 'string' && entry.setup.trim() !== ''
          ? entry.setup.trim()
          : `${typeof entry.agent === 'string' ? entry.agent : 'unknown agent'} / ${typeof entry.model === 'string' ? entry.model : 'unknown model'}`,
      resolved: entry.resolved === true,
      hitLimit: entry.hit_limit === true ? true : entry.hit_limit === false ? false : 'unknown',
    });
  });
  return labels;
}
