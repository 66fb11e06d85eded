#!/bin/sh
# Reproduces the measurements in docs/evaluation.md and docs/detectors.md: builds the CLI, then
# replays the labelled trajectories of ../shared/trajectories (override with TRAJECTORIES=/path)
# under the documented threshold grids and the small-model profile. Usage: sh scripts/evaluate.sh [> evaluation.txt]   (SKIP_BUILD=1 to reuse dist/)
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
echo "### 5. W3/C4 (the previous recommendation): the loop runs, run by run"
$CLI analyze --json --enable --warning 3 --critical 4 "$DATA" | node scripts/evaluate-runs.mjs "$INDEX"
echo
echo "### 6. profile small-model (profiles/small-model.json5) against W3/C4"
$CLI sweep --index "$INDEX" --warning 3 --critical 4 --history 30
$CLI sweep --index "$INDEX" --config profiles/small-model.json5 --warning 3 --critical 5
echo
echo "### 7. profile small-model: margins (each threshold lowered until a resolved run is blocked)"
for AXIS in similarOutcomeThreshold=1..5 identicalCallBudget=1..6 lowGainCallBudget=1..5 cycleCriticalLaps=2..4 redundantCallBudget=1..6 similarityPercent=80,90,95,100; do
  $CLI sweep --index "$INDEX" --config profiles/small-model.json5 --warning 3 --critical 5 --set "$AXIS"
done
$CLI sweep --index "$INDEX" --config profiles/small-model.json5 --warning 2..4 --critical 3..6
echo
echo "### 8. profile small-model: the loop runs, run by run, and what each detector blocked"
$CLI analyze --json --config profiles/small-model.json5 "$DATA" | node scripts/evaluate-runs.mjs "$INDEX"
