#!/usr/bin/env node
// Compiles the bench (and the sources it imports) with tsc into .bench/build (outside git),
// then runs it under `node --expose-gc` (the memory targets need explicit GC).
// Usage: node bench/run.mjs [--smoke] [--only=<target,...>] [--out=<file>]
import { execFileSync, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(root, 'bench/tsconfig.json')], { stdio: 'inherit', cwd: root });
const result = spawnSync(
  process.execPath,
  ['--expose-gc', join(root, '.bench/build/bench/main.js'), ...process.argv.slice(2)],
  {
    stdio: 'inherit',
    cwd: root,
  },
);
process.exit(result.status ?? 1);
