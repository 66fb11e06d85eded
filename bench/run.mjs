#!/usr/bin/env node
// Compiles the bench (and the sources it imports) with tsc into .bench/build (outside git),
// then runs it: `bench/main.js` (timing, memory) under `node --expose-gc` (the memory children
// need explicit GC), or with --instructions `bench/instructions.js` (callgrind counts, the gate).
// Type errors in bench/ stop the run; errors elsewhere are the type check's to report (tsc still
// emits), so the bench keeps measuring while the sources are being edited.
// With --against=<revision|directory>, it first builds that tree's processor (`against-build.mjs`)
// and the timing bench runs it beside this tree's, interleaved (`--only` picks the span kinds);
// --against=<old>..<new> (two revisions) times <new>'s processor as ours instead of this tree's.
// With --instructions, --against counts the two trees' processors per span kind instead.
// --profile runs `bench/profile.js`: a CPU profile of one variant per span kind, summed by function.
// --serve runs `bench/serve.js`: `tool-loop-guard serve`'s throughput beside the collector's, and
// its memory per live run beside the processor's (`npm run bench:serve`).
// Usage: node bench/run.mjs [--smoke] [--only=<part,...>] [--out=<file>] [--against=<rev|dir|old..new>] [--rounds=<n>]
//        node bench/run.mjs --instructions [--all] [--cache-sim] [--update] [--only=<kind,...>] [--against=<…>]
//        node bench/run.mjs --profile [--only=<kind,...>] [--variant=<name>] [--seconds=<s>] [--interval=<µs>] [--top=<n>]
//        node bench/run.mjs --serve [--smoke] [--out=<file>] [--cpu-prof-dir=<dir>]
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildAgainst } from './against-build.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const build = spawnSync(process.execPath, [tsc, '-p', join(root, 'bench/tsconfig.json')], {
  cwd: root,
  encoding: 'utf8',
});
if (build.status !== 0) {
  process.stdout.write(build.stdout);
  if (build.error || build.stdout.split('\n').some((line) => line.startsWith('bench/')))
    process.exit(build.status ?? 1);
  console.warn('bench: type errors outside bench/ (above); measuring what tsc emitted');
}
const args = process.argv.slice(2);
// This script's own options; the rest go to the bench it runs, which parses them strictly.
const OWN_OPTIONS = {
  instructions: { type: 'boolean' },
  profile: { type: 'boolean' },
  serve: { type: 'boolean' },
  against: { type: 'string' },
};
const { values: own, tokens } = parseArgs({
  args,
  options: OWN_OPTIONS,
  strict: false,
  allowPositionals: true,
  tokens: true,
});
const ownArgs = new Set();
for (const token of tokens)
  if (token.kind === 'option' && Object.hasOwn(OWN_OPTIONS, token.name)) {
    ownArgs.add(token.index);
    if (token.value !== undefined && !token.inlineValue) ownArgs.add(token.index + 1);
  }
const forwarded = args.filter((_, index) => !ownArgs.has(index));
const instructions = own.instructions === true;
const profile = own.profile === true;
const serve = own.serve === true;
const againstSpec = own.against;
if (profile && (instructions || againstSpec !== undefined)) {
  console.error('bench: --profile profiles this tree; it does not combine with --instructions or --against');
  process.exit(2);
}
if (serve && (instructions || profile || againstSpec !== undefined)) {
  console.error('bench: --serve measures this tree; it does not combine with --instructions, --profile or --against');
  process.exit(2);
}
if (againstSpec !== undefined) {
  if (typeof againstSpec !== 'string' || againstSpec === '') {
    console.error('bench: --against needs a revision, a directory or <old>..<new>');
    process.exit(2);
  }
  try {
    const range = /^(.+[^.])\.\.([^.].*)$/.exec(againstSpec);
    const [old, newer] = range && !existsSync(againstSpec) ? [range[1], range[2]] : [againstSpec, undefined];
    const against = buildAgainst(root, old, tsc);
    forwarded.push(`--against-entry=${against.entry}`, `--against-label=${against.label}`);
    if (newer !== undefined) {
      const ours = buildAgainst(root, newer, tsc);
      forwarded.push(`--ours-entry=${ours.entry}`, `--ours-label=${ours.label}`);
    }
  } catch (error) {
    console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
const result = spawnSync(
  process.execPath,
  instructions
    ? [join(root, '.bench/build/bench/instructions.js'), ...forwarded]
    : profile
      ? [join(root, '.bench/build/bench/profile.js'), ...forwarded]
      : serve
        ? [join(root, '.bench/build/bench/serve.js'), ...forwarded]
        : ['--expose-gc', join(root, '.bench/build/bench/main.js'), ...forwarded],
  { stdio: 'inherit', cwd: root },
);
process.exit(result.status ?? 1);
