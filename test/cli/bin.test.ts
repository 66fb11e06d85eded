import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/version.js';
import { fixtureDir, jsonl, runCli } from './helpers.js';

const BIN = fileURLToPath(new URL('../../dist/esm/cli/main.js', import.meta.url));
const built = existsSync(BIN);

/** Runs the built bin when `dist/` exists (npm run build), else `main` in-process. */
async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  if (!built) return runCli(args);
  const child = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr };
}

describe(`tool-loop-guard bin (${built ? 'built dist/esm/cli/main.js' : 'in-process main: dist/ not built'})`, () => {
  it('prints its version and exits with the --fail-on code', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${PACKAGE_VERSION}\n` });
    const fx = fixtureDir();
    try {
      const file = fx.write('loop.jsonl', jsonl([1, 2, 3, 4, 5].map((step) => ({ step, tool: 'search', args: {}, result: 'same' }))));
      const result = await run(['analyze', '--enable', '--warning', '2', '--critical', '3', '--fail-on', 'critical', file]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('first block at call 4 (step 4) of 5');
      expect(result.stderr).toBe('');
      expect((await run(['analyze', '--nope'])).code).toBe(2);
    } finally {
      fx.cleanup();
    }
  });
});
