#!/usr/bin/env bash
# Set up what is needed and materialize the whole asset graph on the embedded default:
# SQLite Dagster instance, local Parquet under $MICROCODER_DATA (default ./data), CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."
# Set-up on one line: its output goes to a log, shown only when it fails.
log=$(mktemp -t microcoder-setup.XXXXXX)
started=$SECONDS
for step in scripts/setup.sh scripts/setup-train.sh scripts/setup-vllm.sh; do
  if ! "$step" >>"$log" 2>&1; then
    tail -n 40 "$log" >&2
    echo "set-up failed in $step (whole log: $log)" >&2
    exit 1
  fi
done
rm -f "$log"
echo "set-up: $((SECONDS - started))s (.venv, .venv-train, .venv-vllm; reused when unchanged)"
# Difficulty runs on vLLM's CPU build (.venv-vllm), measured faster end to end; translation and
# everything else on the `sampler` resource's default. MICROCODER_SAMPLER_BACKEND overrides both.
# Flags pass through to `microcoder run`: --sources, --sample N, --translate N, --jobs N,
# --verbose (Dagster's event log and verl's output on the terminal too), --from-failure; see README "Running".
exec .venv/bin/microcoder run "$@"
