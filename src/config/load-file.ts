import { constants, type Stats } from 'node:fs';
import { open } from 'node:fs/promises';
import JSON5 from 'json5';
import type { ToolLoopGuardConfig } from './types.js';
import type { ConfigIssue } from './config-issue.js';
import { validateToolLoopGuardConfig } from './validate.js';

/** Largest config file read: 1 MiB. A config is a few hundred bytes; anything near this is a mistake. */
export const MAX_CONFIG_FILE_BYTES = 1024 * 1024;

/** A config file could not be used. The message names the file, and the key path or line. */
export class ConfigFileError extends Error {
  override readonly name = 'ConfigFileError';
  /** The file that was read. */
  readonly file: string;
  /** Key path of the first wrong value, when the problem is a value. */
  readonly keyPath?: string;
  /** 1-based line of a syntax error. */
  readonly line?: number;
  /** 1-based column of a syntax error. */
  readonly column?: number;

  constructor(
    message: string,
    details: { file: string; keyPath?: string; line?: number; column?: number; cause?: unknown },
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.file = details.file;
    this.keyPath = details.keyPath;
    this.line = details.line;
    this.column = details.column;
  }
}

/** What {@link loadConfigFile} returns: the config and the non-fatal findings. */
export interface LoadedConfig {
  readonly config: ToolLoopGuardConfig;
  /** Unknown keys and rules the runtime clamps; the config is still usable. */
  readonly warnings: readonly ConfigIssue[];
}

/**
 * Reads an OpenClaw-shaped config (`{ tools: { loopDetection }, agents: { list } }`) from a
 * JSON5 file. Throws {@link ConfigFileError} for a missing or unreadable file, one that is not a
 * regular file (a FIFO, a device), one over {@link MAX_CONFIG_FILE_BYTES}, a JSON5
 * syntax error (with line and column), a top level that is not an object, or a value of the
 * wrong type (with its key path). Unknown keys and clamped pairs come back as `warnings`.
 */
export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readRegularFile(file);
  } catch (error) {
    if (error instanceof ConfigFileError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : (error as Error).message;
    throw new ConfigFileError(`${file}: cannot read config: ${reason}`, { file, cause: error });
  }
  return parseConfigText(text, file);
}

/**
 * Reads a config file that is a regular file of at most {@link MAX_CONFIG_FILE_BYTES}. It is
 * opened without blocking (a FIFO with no writer would otherwise hang the open) and checked on
 * the open descriptor, so what is checked is what is read; a file that grows past the limit
 * while it is read is refused too.
 */
async function readRegularFile(file: string): Promise<string> {
  const handle = await open(file, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new ConfigFileError(`${file}: cannot read config: is a directory`, { file });
    if (!stats.isFile())
      throw new ConfigFileError(`${file}: cannot read config: not a regular file (${fileKind(stats)})`, { file });
    if (stats.size > MAX_CONFIG_FILE_BYTES) throw tooLarge(file);
    const buffer = Buffer.alloc(MAX_CONFIG_FILE_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_CONFIG_FILE_BYTES) throw tooLarge(file);
    return buffer.toString('utf8', 0, length);
  } finally {
    await handle.close();
  }
}

const tooLarge = (file: string) =>
  new ConfigFileError(`${file}: cannot read config: larger than the ${MAX_CONFIG_FILE_BYTES}-byte (1 MiB) limit`, {
    file,
  });

function fileKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  if (stats.isSocket()) return 'a socket';
  return 'not a file';
}

/** Parses JSON5 config text; `file` names the source in errors. See {@link loadConfigFile}. */
export function parseConfigText(text: string, file = '<config>'): LoadedConfig {
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (error) {
    const { lineNumber, columnNumber } = error as { lineNumber?: number; columnNumber?: number };
    const where = lineNumber === undefined ? '' : `:${lineNumber}:${columnNumber ?? 1}`;
    const reason = (error as Error).message.replace(/^JSON5: /, '');
    throw new ConfigFileError(`${file}${where}: invalid JSON5: ${reason}`, {
      file,
      line: lineNumber,
      column: columnNumber,
      cause: error,
    });
  }
  const issues = validateToolLoopGuardConfig(parsed);
  const fatal = issues.find((issue) => issue.severity === 'error');
  if (fatal) {
    throw new ConfigFileError(`${file}: ${fatal.path}: ${fatal.message}`, { file, keyPath: fatal.path });
  }
  return { config: parsed as ToolLoopGuardConfig, warnings: issues };
}
