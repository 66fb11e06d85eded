#!/bin/sh
# Reproduces the measurements in docs/evaluation.md: builds the CLI, then replays the labelled
# trajectories of ../shared/trajectories (override with TRAJECTORIES=/path) under the documented
# threshold grids. Usage: sh scripts/evaluate.sh [> evaluation.txt]   (SKIP_BUILD=1 to reuse dist/)
set -eu
cd "$(dirname "$0")/.."
DATA=${TRAJECTORIES:-../shared/trajectories}
INDEX="$DATA/index.json"
if [ ! -f "$INDEX" ]; then
  echo "evaluate: $INDEX not found (the evaluation data lives next to the repository)" >&2
  exit 2
fi
if [ "${SKIP_BUILD:-}" != "1" ]; then node scripts/build.mjs >&2; fi
CLI="node dist/esm/cli/main.js"
NO_PING_PONG=$(mktemp "${TMPDIR:-/tmp}/tool-loop-guard-eval.XXXXXX")
trap 'rm -f "$NO_PING_PONG"' EXIT
echo '{ tools: { loopDetection: { detectors: { pingPong: false } } } }' > "$NO_PING_PONG"

echo "### 1. Main grid: warning 3..10 x critical 4..20 x window 2..5 (25 best rows)"
$CLI sweep --index "$INDEX" --warning 3..10 --critical 4..20 --window 2..5 --top 25
echo
echo "### 2. History size at the recommended thresholds"
$CLI sweep --index "$INDEX" --warning 3 --critical 4..5 --history 4..10,15,20,30,50
echo
echo "### 3. Below the floor: critical 2..4"
$CLI sweep --index "$INDEX" --warning 1..3 --critical 2..4
echo
echo "### 4. Ping-pong detector off"
$CLI sweep --index "$INDEX" --warning 2..3 --critical 3..4 --config "$NO_PING_PONG"
echo
echo "### 5. Recommended profile (warning 3, critical 4): the loop runs, run by run"
$CLI analyze --json --enable --warning 3 --critical 4 "$DATA" | node -e '
const fs = require("fs");
const path = require("path");
const report = JSON.parse(fs.readFileSync(0, "utf8"));
const index = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
const byFile = new Map(report.runs.map((run) => [path.resolve(run.id), run]));
const rows = [];
let resolvedBlocked = 0;
for (const entry of index.trajectories) {
  const run = byFile.get(path.resolve(path.dirname(process.argv[1]), entry.file)) ?? { calls: 0, blocks: 0, events: [] };
  if (entry.resolved && run.blocks > 0) resolvedBlocked += 1;
  if (entry.resolved || entry.hit_limit !== true) continue;
  const block = run.events.find((event) => event.action === "block");
  rows.push([entry.agent.split(" ")[0], entry.id.split("/").pop(), run.calls, run.firstBlock ? run.firstBlock.call : "-", block ? `${block.detector} ${block.toolName}` : "-"]);
}
console.log("| agent | run | calls | first block | detector, tool |\n|---|---|---|---|---|");
for (const row of rows) console.log(`| ${row.join(" | ")} |`);
console.log(`\nresolved runs with a block: ${resolvedBlocked}`);
' "$INDEX"
