// Reads an `analyze --json` report on stdin and the trajectory index (argv[2]); prints the loop
// runs (unresolved, limit hit) with their first block, and per detector the runs it blocked.
// Used by scripts/evaluate.sh.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

const report = JSON.parse(readFileSync(0, 'utf8'));
const indexFile = process.argv[2];
const index = JSON.parse(readFileSync(indexFile, 'utf8'));
const byFile = new Map(report.runs.map((run) => [resolve(run.id), run]));
const categoryOf = (entry) =>
  entry.resolved ? 'resolved' : entry.hit_limit === true ? `${entry.agent.split(' ')[0]} limit` : 'other unresolved';

const rows = [];
const detectors = new Map();
let resolvedBlocked = 0;
for (const entry of index.trajectories) {
  const run = byFile.get(resolve(dirname(indexFile), entry.file)) ?? { calls: 0, blocks: 0, events: [] };
  const blocks = run.events.filter((event) => event.action === 'block');
  const category = categoryOf(entry);
  if (entry.resolved && blocks.length > 0) resolvedBlocked += 1;
  for (const [position, detector] of [...new Set(blocks.map((event) => event.detector))].entries()) {
    const stats = detectors.get(detector) ?? new Map();
    detectors.set(detector, stats);
    const cell = stats.get(category) ?? { runs: 0, first: 0, example: entry.file };
    stats.set(category, cell);
    cell.runs += 1;
    if (position === 0 && blocks[0].detector === detector) cell.first += 1;
  }
  if (entry.resolved || entry.hit_limit !== true) continue;
  const block = blocks[0];
  rows.push([
    entry.agent.split(' ')[0],
    entry.id.split('/').pop(),
    run.calls,
    run.firstBlock ? run.firstBlock.call : '-',
    block ? `${block.detector} ${block.toolName}` : '-',
  ]);
}
console.log('| agent | run | calls | first block | detector, tool |\n|---|---|---|---|---|');
for (const row of rows) console.log(`| ${row.join(' | ')} |`);
console.log(`\nresolved runs with a block: ${resolvedBlocked}\n`);
console.log('| detector | runs it blocked (first block by it), by kind of run | example |\n|---|---|---|');
for (const [detector, stats] of [...detectors.entries()].sort()) {
  const cells = [...stats.entries()].sort().map(([category, cell]) => `${category} ${cell.runs} (${cell.first})`);
  const example =
    [...stats.entries()].find(([category]) => category.endsWith('limit'))?.[1].example ??
    [...stats.values()][0].example;
  console.log(`| ${detector} | ${cells.join(', ')} | ${example} |`);
}
