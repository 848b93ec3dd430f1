#!/usr/bin/env bash
# Set up what is needed and materialize the whole asset graph on the embedded default:
# SQLite Dagster instance, local Parquet under $MICROCODER_DATA (default ./data), CPU model.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-train.sh
scripts/setup-vllm.sh
# The model-driven stages on vLLM (.venv-vllm's CPU build): on the main job's sample it finishes
# the difficulty stage ~3x sooner than transformers, start-up included (benchmarks/bench_difficulty.py).
export MICROCODER_SAMPLER_BACKEND=${MICROCODER_SAMPLER_BACKEND:-vllm}
exec .venv/bin/microcoder run "$@"
