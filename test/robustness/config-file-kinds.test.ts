/**
 * A config file must be a regular file of a sane size. A FIFO, a device such as
 * /dev/zero, or a huge file is refused quickly with a `ConfigFileError` that says why, instead
 * of hanging `create()` or filling memory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigFileError, loadConfigFile, ToolLoopSpanProcessor } from '../../src/index.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tlg-config-kinds-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function refusal(file: string): Promise<ConfigFileError> {
  const started = Date.now();
  const error = await loadConfigFile(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(Date.now() - started).toBeLessThan(2000);
  expect(error).toBeInstanceOf(ConfigFileError);
  return error as ConfigFileError;
}

describe('config files that are not regular files of a sane size', () => {
  it('a FIFO is refused at once, not read forever', async () => {
    const fifo = join(dir, 'config.fifo');
    execFileSync('mkfifo', [fifo]);
    expect((await refusal(fifo)).message).toMatch(/not a regular file/);
  });

  it('/dev/zero is refused at once', async () => {
    expect((await refusal('/dev/zero')).message).toMatch(/not a regular file/);
  });

  it('a file over the size limit is refused with the limit in the message', async () => {
    const big = join(dir, 'big.json5');
    await writeFile(big, '{}');
    await truncate(big, 64 * 1024 * 1024);
    expect((await refusal(big)).message).toMatch(/larger than|too large/);
  });

  it('create() with such a configFile rejects with ConfigFileError', async () => {
    const started = Date.now();
    await expect(ToolLoopSpanProcessor.create({ configFile: '/dev/zero' })).rejects.toBeInstanceOf(ConfigFileError);
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('control: a small regular file loads', async () => {
    const good = join(dir, 'good.json5');
    await writeFile(good, '{ tools: { loopDetection: { enabled: true } } }');
    expect((await loadConfigFile(good)).config.tools?.loopDetection?.enabled).toBe(true);
  });
});
