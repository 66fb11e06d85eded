#!/usr/bin/env bash
# Installs the e2e Python agent's packages into a virtualenv cached across runs, and prints that
# virtualenv's python on the last line of stdout:
#
#   PY="$(bash scripts/e2e/python-agent/install.sh | tail -n 1)"
#
# Every package comes from PyPI, pinned with its hashes in requirements.txt (the whole dependency
# tree, compiled from requirements.in; see the README beside this file), installed with
# --require-hashes --no-deps --only-binary=:all:, so nothing unpinned, unhashed or built from source
# gets in. The virtualenv lives in ${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard/python-agent-<key>,
# the key being requirements.txt and the Python version: a change to either installs afresh, anything
# else reuses it. pip's download cache sits beside it. Needs python3 >= 3.10 with the venv module.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/tool-loop-guard"
PYTHON="${TLG_E2E_PYTHON:-python3}"

command -v "$PYTHON" >/dev/null || { echo "python-agent: $PYTHON not found (set TLG_E2E_PYTHON)" >&2; exit 1; }
"$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' \
  || { echo "python-agent: $("$PYTHON" --version 2>&1) is too old; LangGraph needs Python >= 3.10" >&2; exit 1; }

PY_VERSION="$("$PYTHON" -c 'import platform; print(platform.python_version())')"
KEY="$( (cat "$HERE/requirements.txt"; echo "$PY_VERSION") | sha256sum | cut -c1-16)"
VENV="$CACHE/python-agent-$KEY-py$PY_VERSION"

if [ -x "$VENV/bin/python" ]; then
  echo "reusing $VENV" >&2
else
  t=$SECONDS
  rm -rf "$VENV.tmp"
  mkdir -p "$CACHE"
  "$PYTHON" -m venv "$VENV.tmp"
  # A venv's scripts hard-code its path: install in place under the final name's sibling, then move
  # only once everything is in, and run python by path (never the moved scripts' shebangs).
  PIP_CACHE_DIR="$CACHE/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 \
    "$VENV.tmp/bin/python" -m pip install --quiet --require-hashes --no-deps --only-binary=:all: \
    -r "$HERE/requirements.txt" >&2
  "$VENV.tmp/bin/python" -m pip check >&2
  mv "$VENV.tmp" "$VENV"
  echo "installed the agent's packages into $VENV in $((SECONDS - t))s" >&2
fi
echo "$VENV/bin/python"
