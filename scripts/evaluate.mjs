#!/usr/bin/env node
// Regenerates the measured tables of docs/evaluation.md and docs/detectors.md: builds the CLI,
// runs `tool-loop-guard evaluate` on the labelled runs of ../shared/trajectories (TRAJECTORIES=
// points elsewhere; SKIP_BUILD=1 reuses dist/), and replaces every `<!-- evaluate:NAME -->` …
// `<!-- /evaluate:NAME -->` block of those pages with the section of that name.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const data = process.env.TRAJECTORIES ?? join(root, '..', 'shared', 'trajectories');
const index = join(data, 'index.json');
if (!existsSync(index)) {
  console.error(`evaluate: ${index} not found (the evaluation data lives next to the repository; set TRAJECTORIES)`);
  process.exit(2);
}
if (process.env.SKIP_BUILD !== '1')
  execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });
const output = execFileSync(
  process.execPath,
  [
    join(root, 'dist', 'esm', 'cli', 'main.js'),
    'evaluate',
    '--index',
    index,
    '--config',
    join(root, 'profiles', 'small-model.json5'),
  ],
  { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 64 * 1024 * 1024 },
);
const block = /<!-- evaluate:([^ ]+?) -->\n[\s\S]*?<!-- \/evaluate:\1 -->\n?/g;
const sections = new Map([...output.matchAll(block)].map((match) => [match[1], match[0]]));
let missing = 0;
for (const page of ['docs/evaluation.md', 'docs/detectors.md']) {
  const file = join(root, page);
  const before = readFileSync(file, 'utf8');
  const replaced = [];
  const after = before.replace(block, (whole, name) => {
    const section = sections.get(name);
    if (section === undefined) {
      console.error(`evaluate: ${page} has a block "${name}" that the evaluation no longer prints`);
      missing += 1;
      return whole;
    }
    replaced.push(name);
    return whole.endsWith('\n') ? section : section.trimEnd();
  });
  writeFileSync(file, after);
  console.log(
    `${page}: ${replaced.length} tables regenerated (${replaced.join(', ')})${after === before ? ', unchanged' : ''}`,
  );
}
process.exit(missing === 0 ? 0 : 1);
