import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { PACKAGE_VERSION } from '../../src/version.js';
import { fixtureDir, jsonl } from './helpers.js';

/** Built by the test run's global setup (test/helpers/build-dist.ts). */
const BIN = fileURLToPath(new URL('../../dist/esm/cli/main.js', import.meta.url));

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8' });
  return { code: child.status ?? -1, stdout: child.stdout, stderr: child.stderr };
}

describe('tool-loop-guard bin (built dist/esm/cli/main.js)', () => {
  it('prints its version and exits with the --fail-on code', async () => {
    expect(await run(['--version'])).toMatchObject({ code: 0, stdout: `${PACKAGE_VERSION}\n` });
    const fx = fixtureDir();
    try {
      const file = fx.write(
        'loop.jsonl',
        jsonl([1, 2, 3, 4, 5].map((step) => ({ step, tool: 'search', args: {}, result: 'same' }))),
      );
      const result = await run([
        'analyze',
        '--enable',
        '--warning',
        '2',
        '--critical',
        '3',
        '--fail-on',
        'critical',
        file,
      ]);
      expect(result.code).toBe(1);
      expect(result.stdout).toContain('first block at call 4 (step 4) of 5');
      expect(result.stderr).toBe('');
      expect((await run(['analyze', '--nope'])).code).toBe(2);
    } finally {
      fx.cleanup();
    }
  });
});
