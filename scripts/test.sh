#!/usr/bin/env bash
# Set up what is needed and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# The four environments are independent (three venvs and the system packages): built side by side,
# a fresh machine waits for the slowest download rather than the sum of them. Each one's output is
# kept apart and shown when it fails.
logs=$(mktemp -d)
pids=()
for step in setup.sh setup-train.sh setup-vllm.sh setup-system.sh; do
  "scripts/$step" >"$logs/$step.log" 2>&1 &
  pids+=("$!:$step")
done
failed=0
for entry in "${pids[@]}"; do
  if ! wait "${entry%%:*}"; then
    echo "set-up failed in scripts/${entry#*:}:" >&2
    tail -n 60 "$logs/${entry#*:}.log" >&2
    failed=1
  fi
done
rm -rf "$logs"
[ "$failed" = 0 ] || exit 1
.venv/bin/ruff check .  # the configuration in pyproject.toml; the noqa codes assume it
exec .venv/bin/python -m pytest "$@"
