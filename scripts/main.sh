#!/usr/bin/env bash
# Set up what is needed and materialize the whole asset graph on the embedded default:
# SQLite Dagster instance, local Parquet under $MICROCODER_DATA (default ./data), CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-train.sh
scripts/setup-vllm.sh
exec .venv/bin/microcoder run "$@"
