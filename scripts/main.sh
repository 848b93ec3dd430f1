#!/usr/bin/env bash
# Set up what is needed and materialize the whole asset graph on the embedded default:
# SQLite Dagster instance, local Parquet under $MICROCODER_DATA (default ./data), CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-train.sh
scripts/setup-vllm.sh
# The model-driven stages run on the `sampler` resource's default (transformers on CPU);
# MICROCODER_SAMPLER_BACKEND=vllm runs them on .venv-vllm's engine instead (see README).
# Flags pass through to `microcoder run`: --sources, --jobs N (partitions at once), --verbose
# (Dagster's event log on the terminal too), --from-failure; see README "Running".
exec .venv/bin/microcoder run "$@"
