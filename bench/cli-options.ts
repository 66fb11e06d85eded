/**
 * The bench's command-line options, parsed strictly with `node:util`'s `parseArgs`: an unknown
 * option, a missing value or a name `--only` does not know stops the run (status 2) with a
 * message naming it, where a typo used to measure something else, or nothing, without a word.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Prints what is wrong with the command line and exits with status 2. */
export function usageError(message: string): never {
  console.error(`bench: ${message}`);
  process.exit(2);
}

/** The values of `options` in this process's arguments; no positionals, nothing undeclared. */
export function benchOptions<T extends Options>(options: T, usage: string) {
  try {
    return parseArgs({ args: process.argv.slice(2), options, strict: true, allowPositionals: false }).values;
  } catch (error) {
    return usageError(`${error instanceof Error ? error.message : String(error)}\nusage: ${usage}`);
  }
}

/**
 * `--only`'s comma-separated names, each checked against `known`; `undefined` (run everything)
 * when the option is absent.
 */
export function onlyOption(text: string | undefined, known: readonly string[]): readonly string[] | undefined {
  if (text === undefined) return undefined;
  const names = text.split(',').filter((name) => name !== '');
  const unknown = names.filter((name) => !known.includes(name));
  if (names.length === 0 || unknown.length > 0)
    usageError(
      `--only=${text}: ${names.length === 0 ? 'no names' : `unknown ${unknown.join(', ')}`}; expected some of ${known.join(', ')}`,
    );
  return names;
}

/** A number option's value (> 0, and whole when `whole`), `undefined` when the option is absent. */
export function positiveOption(name: string, text: string | undefined, whole: boolean): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!(n > 0) || (whole && !Number.isInteger(n)))
    usageError(`--${name}=${text}: expected a ${whole ? 'whole ' : ''}number > 0`);
  return n;
}

/** The options `run.mjs --against` passes on to the bench it runs: the two builds' entries and names. */
export const TREE_OPTIONS = {
  'against-entry': { type: 'string' },
  'against-label': { type: 'string' },
  'ours-entry': { type: 'string' },
  'ours-label': { type: 'string' },
} as const;

/** {@link TREE_OPTIONS}' values, each build named by its label, else its entry (ours: "this tree"). */
export function treeOptions(values: {
  'against-entry'?: string;
  'against-label'?: string;
  'ours-entry'?: string;
  'ours-label'?: string;
}): { againstEntry?: string; againstLabel?: string; oursEntry?: string; oursLabel: string } {
  const againstEntry = values['against-entry'];
  const oursEntry = values['ours-entry'];
  return {
    againstEntry,
    againstLabel: values['against-label'] ?? againstEntry,
    oursEntry,
    oursLabel: values['ours-label'] ?? oursEntry ?? 'this tree',
  };
}
