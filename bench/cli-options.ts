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

/** `--rounds`'s whole number of rounds (≥ 1), `undefined` when the option is absent. */
export function roundsOption(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const rounds = Number(text);
  if (!Number.isInteger(rounds) || rounds < 1) usageError(`--rounds=${text}: expected a whole number >= 1`);
  return rounds;
}
