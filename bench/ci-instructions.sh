#!/usr/bin/env bash
# CI's instruction-count gate: installs valgrind (Debian; it brings callgrind_annotate, which the
# count needs) when missing, then runs
# `npm run bench:instructions`, which fails when ours needs more than 10 % above the budget of
# any span kind in bench/instruction-budget.json, and an instruction A/B of the plain span
# against HEAD, so that mode keeps working.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v valgrind >/dev/null || ! command -v callgrind_annotate >/dev/null; then
  if [ "$(id -u)" -ne 0 ]; then
    echo "valgrind missing and not root: run as root or install valgrind" >&2
    exit 1
  fi
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends valgrind
fi
valgrind --version
npm run bench:instructions
# The instruction A/B (another tree's processor counted beside this one's), against this commit.
node bench/run.mjs --instructions --against=HEAD --only=plain
