// The suite tests the package as it ships: the root's build output. A clean clone has neither
// the root's dependencies nor dist/, and a build older than src/ would test old code; nor this
// workspace's own dependencies (its lockfile), which `npm run test:frameworks` installs here.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const workspace = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const root = resolve(workspace, '../..');
const built = ['dist/esm/index.js', 'dist/esm/index.d.ts'].map((file) => join(root, file));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

if (!existsSync(join(root, 'node_modules', 'typescript'))) {
  execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' });
}
const builtAt = built.every((file) => existsSync(file)) ? Math.min(...built.map((file) => statSync(file).mtimeMs)) : 0;
if (builtAt <= newestMtime(join(root, 'src'))) {
  execFileSync(npm, ['run', 'build'], { cwd: root, stdio: 'inherit' });
}
if (!existsSync(join(workspace, 'node_modules', 'vitest'))) {
  execFileSync(npm, ['ci', '--no-audit', '--no-fund'], { cwd: workspace, stdio: 'inherit' });
}
