#!/usr/bin/env bash
# Set up what is needed and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/setup-train.sh
scripts/setup-vllm.sh
scripts/setup-system.sh
.venv/bin/ruff check .  # the configuration in pyproject.toml; the noqa codes assume it
exec .venv/bin/python -m pytest "$@"
