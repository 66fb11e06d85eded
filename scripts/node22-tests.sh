#!/usr/bin/env bash
# Runs the README's test suite (`vitest run`) and the real frameworks' suite (test/frameworks) under
# Node 22, the LTS line after the Node 20 that CI and `engines` start from: the processor leans on
# V8 details (WebAssembly SIMD for the result scan, the JSON parser, hidden classes) that change
# between Node lines, and ai@7 and Mastra declare `engines: node >= 22`, so on Node 20 their suite
# runs outside what they support.
#
# Node 22 comes from npm's `node` package (its binary for this platform), pinned below and cached
# in ${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/node-<version>. Its bin directory leads PATH,
# so the processes the tests spawn with `node` (the CLI, the demo) run on Node 22 too.
set -euo pipefail
cd "$(dirname "$0")/.."

NODE22_VERSION=22.23.3
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/node-$NODE22_VERSION"
BIN="$CACHE/node_modules/node/bin"

if [ "$("$BIN/node" --version 2>/dev/null)" != "v$NODE22_VERSION" ]; then
  rm -rf "$CACHE"
  mkdir -p "$CACHE"
  # The package's install script fetches the platform's binary package; allowed by name and version
  # (npm 11 warns about install scripts not listed in allowScripts, and says it will block them).
  cat >"$CACHE/package.json" <<JSON
{
  "private": true,
  "dependencies": { "node": "$NODE22_VERSION" },
  "allowScripts": { "node@$NODE22_VERSION": true }
}
JSON
  npm install --prefix "$CACHE" --no-package-lock --no-audit --no-fund
fi

found="$(PATH="$BIN:$PATH" node --version)"
if [ "$found" != "v$NODE22_VERSION" ]; then
  echo "node22-tests: expected node v$NODE22_VERSION on PATH, found $found" >&2
  exit 1
fi
echo "== tests under node $found"
PATH="$BIN:$PATH" node node_modules/vitest/vitest.mjs run
echo "== framework tests under node $found"
PATH="$BIN:$PATH" npm --prefix test/frameworks test
