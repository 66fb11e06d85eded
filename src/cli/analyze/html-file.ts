import { constants } from 'node:fs';
import { access, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

/** A write error in words. */
function describeWriteError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'its folder does not exist';
  if (code === 'ENOTDIR') return 'a part of its path is not a folder';
  if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') return 'permission denied';
  if (code === 'EISDIR') return 'it is a folder';
  return (error as Error).message;
}

/**
 * Checks, before a long analysis, that the HTML report can be written to `path`: its folder
 * exists and is writable, and the path is no folder. Returns the problem, or `undefined`.
 */
export async function htmlTargetProblem(path: string): Promise<string | undefined> {
  const target = resolve(path);
  try {
    if ((await stat(target)).isDirectory())
      return `cannot write the HTML report to ${JSON.stringify(path)}: it is a folder`;
    await access(target, constants.W_OK);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT')
      return `cannot write the HTML report to ${JSON.stringify(path)}: ${describeWriteError(error)}`;
  }
  try {
    const folder = dirname(target);
    if (!(await stat(folder)).isDirectory())
      return `cannot write the HTML report to ${JSON.stringify(path)}: ${describeWriteError({ code: 'ENOTDIR' })}`;
    await access(folder, constants.W_OK);
    return undefined;
  } catch (error) {
    return `cannot write the HTML report to ${JSON.stringify(path)}: ${describeWriteError(error)}`;
  }
}

/** Writes the report; returns the problem in words when that fails, else `undefined`. */
export async function writeHtmlFile(path: string, html: string): Promise<string | undefined> {
  try {
    await writeFile(path, html, 'utf8');
    return undefined;
  } catch (error) {
    return `cannot write the HTML report to ${JSON.stringify(path)}: ${describeWriteError(error)}`;
  }
}
