import { basename, dirname } from 'node:path';
import type { RunLabel } from '../sweep/labels.js';

/**
 * A short name for each agent set-up of some labelled runs: the folder its runs are in when no
 * other set-up's runs are there (`autocoderover/`), else the part of the file names before `__`
 * when all the set-up's runs share it (`gpt-oss-120b-langchain__airline__task3.jsonl`), else the
 * set-up key itself. Names stay distinct.
 */
export function setupNames(labels: readonly RunLabel[]): Map<string, string> {
  const files = new Map<string, string[]>();
  const setupsIn = new Map<string, Set<string>>();
  for (const label of labels) {
    const list = files.get(label.setup);
    if (list) list.push(label.file);
    else files.set(label.setup, [label.file]);
    const folder = dirname(label.file);
    const setups = setupsIn.get(folder);
    if (setups) setups.add(label.setup);
    else setupsIn.set(folder, new Set([label.setup]));
  }
  const names = new Map<string, string>();
  const taken = new Set<string>();
  for (const [setup, paths] of files) {
    const folders = new Set(paths.map((path) => dirname(path)));
    const prefixes = new Set(paths.map((path) => basename(path).split('__')[0]));
    const [folder] = folders;
    const [prefix] = prefixes;
    let name =
      folders.size === 1 && setupsIn.get(folder)?.size === 1
        ? basename(folder)
        : prefixes.size === 1 && paths.every((path) => basename(path).includes('__'))
          ? prefix
          : setup;
    if (taken.has(name)) name = setup;
    taken.add(name);
    names.set(setup, name);
  }
  return names;
}
