import { readFile } from 'node:fs/promises';
import JSON5 from 'json5';
import type { ToolLoopGuardConfig } from './types.js';
import { validateToolLoopGuardConfig, type ConfigIssue } from './validate.js';

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
 * JSON5 file. Throws {@link ConfigFileError} for a missing or unreadable file, a JSON5
 * syntax error (with line and column), a top level that is not an object, or a value of the
 * wrong type (with its key path). Unknown keys and clamped pairs come back as `warnings`.
 */
export async function loadConfigFile(file: string): Promise<LoadedConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT' ? 'file not found' : code === 'EISDIR' ? 'is a directory' : (error as Error).message;
    throw new ConfigFileError(`${file}: cannot read config: ${reason}`, { file, cause: error });
  }
  return parseConfigText(text, file);
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
