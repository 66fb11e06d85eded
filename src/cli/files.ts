import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { describeReadError } from './readers/input.js';
import type { InputProblem } from './readers/types.js';

/** Extensions picked up when a folder is given (a file named explicitly is always read). */
export const INPUT_EXTENSIONS: readonly string[] = ['.json', '.jsonl', '.ndjson'];

/** Expands files and folders (recursively, sorted by path) into input files. */
export async function expandInputs(paths: readonly string[]): Promise<{ files: string[]; problems: InputProblem[] }> {
  const files: string[] = [];
  const problems: InputProblem[] = [];
  const walk = async (folder: string): Promise<void> => {
    let entries;
    try {
      entries = await readdir(folder, { withFileTypes: true });
    } catch (error) {
      problems.push({ file: folder, message: `cannot read folder: ${(error as Error).message}` });
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.isFile() && INPUT_EXTENSIONS.includes(extname(entry.name).toLowerCase())) files.push(path);
    }
  };
  for (const path of paths) {
    let info;
    try {
      info = await stat(path);
    } catch (error) {
      problems.push({ file: path, message: describeReadError(error) });
      continue;
    }
    if (info.isDirectory()) await walk(path);
    else files.push(path);
  }
  return { files, problems };
}
