#!/usr/bin/env bash
# Set up what is needed and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# Built side by side where they share nothing: a fresh machine waits for the slowest download rather
# than the sum of them. .venv and .venv-train both install this checkout in editable mode (which
# writes its egg-info here), so they go one after the other. Each one's output is kept apart and
# shown when it fails.
logs=$(mktemp -d)
pids=()
for chain in "setup.sh setup-train.sh" setup-vllm.sh setup-system.sh; do
  (for step in $chain; do "scripts/$step" || exit; done) >"$logs/${chain%% *}.log" 2>&1 &
  pids+=("$!:$chain")
done
failed=0
for entry in "${pids[@]}"; do
  if ! wait "${entry%%:*}"; then
    chain=${entry#*:}
    echo "set-up failed in: $chain (the output of scripts/${chain// / then scripts/}):" >&2
    tail -n 60 "$logs/${chain%% *}.log" >&2
    failed=1
  fi
done
rm -rf "$logs"
[ "$failed" = 0 ] || exit 1
.venv/bin/ruff check .  # the configuration in pyproject.toml; the noqa codes assume it
exec .venv/bin/python -m pytest "$@"
