/**
 * Vitest global setup: the package, bin and demo tests load `dist/`, so it is rebuilt before
 * the run whenever it is missing or older than a file under `src/` (a stale build would test
 * old code).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const BUILT = ['dist/esm/index.js', 'dist/cjs/index.js'];

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

export default function buildDist(): void {
  const builtAt = BUILT.every((file) => existsSync(file))
    ? Math.min(...BUILT.map((file) => statSync(file).mtimeMs))
    : 0;
  if (builtAt > newestMtime('src')) return;
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
}
