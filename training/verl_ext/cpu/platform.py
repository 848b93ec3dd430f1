"""verl device platform for plain CPUs: ``torch.cpu`` + the gloo collective backend.

verl 0.9.1 ships cuda/npu/rocm platforms only. This one is registered under the name ``cpu``
and selected with ``VERL_PLATFORM=cpu``. Ray resources stay "GPU": verl's resource pools
hard-code accelerator bundles, so the CPU backend starts Ray with a declared ``num_gpus``
(``training.launcher.run_verl``) and each "GPU" bundle is really a CPU worker.
"""

from __future__ import annotations

from contextlib import contextmanager
from types import ModuleType
from typing import Any, Optional

import torch
from verl.plugin.platform.platform_base import PlatformBase
from verl.plugin.platform.platform_manager import PlatformRegistry


class _CPUDeviceModule(ModuleType):
    """``torch.cpu`` plus the memory-statistics calls verl makes on its device module
    (``memory_allocated``, ``mem_get_info``, ...): a CPU has no device memory pool, so they
    report 0 (mem_get_info: the host's available and total memory)."""

    def __getattr__(self, name):
        return getattr(torch.cpu, name)

    @staticmethod
    def _zero(*args, **kwargs) -> int:
        return 0

    memory_allocated = memory_reserved = max_memory_allocated = max_memory_reserved = _zero

    @staticmethod
    def reset_peak_memory_stats(*args, **kwargs) -> None:
        return None

    @staticmethod
    def empty_cache() -> None:
        return None

    @staticmethod
    def mem_get_info(*args, **kwargs) -> tuple[int, int]:
        import psutil

        vm = psutil.virtual_memory()
        return int(vm.available), int(vm.total)

    @staticmethod
    def manual_seed(seed: int) -> None:
        torch.manual_seed(seed)

    manual_seed_all = manual_seed

    @staticmethod
    def is_available() -> bool:
        return True

    @staticmethod
    def get_device_name(*args, **kwargs) -> str:
        return "CPU"

    @staticmethod
    def device_count() -> int:
        return 1

    @staticmethod
    def set_device(*args, **kwargs) -> None:
        return None

    set_per_process_memory_fraction = ipc_collect = set_device

    @staticmethod
    def get_rng_state(*args, **kwargs):
        return torch.get_rng_state()

    @staticmethod
    def set_rng_state(state, *args, **kwargs) -> None:
        torch.set_rng_state(state)


CPU_DEVICE_MODULE = _CPUDeviceModule("microcoder_cpu_device")


@PlatformRegistry.register(platform="cpu")
class PlatformCPU(PlatformBase):
    """CPU "accelerator": one logical device, gloo for collectives, no IPC, no profiler."""

    @property
    def device_name(self) -> str:
        return "cpu"

    @property
    def vendor_name(self) -> str:
        return "cpu"

    @property
    def device_module(self) -> ModuleType:
        return CPU_DEVICE_MODULE

    def is_available(self) -> bool:
        return True

    def is_platform_available(self, use_smi_check=False) -> bool:
        # Never auto-detected: the CPU backend is chosen explicitly with VERL_PLATFORM=cpu.
        return False

    def current_device(self) -> str:
        # verl passes this to ``tensor.to(device=...)``; an int would mean cuda:<int>. torch.cpu's
        # own current_device() returns "cpu" too.
        return "cpu"

    def device_count(self) -> int:
        return 1

    def set_device(self, device_index: int) -> None:
        return None

    def synchronize(self, device_index: Optional[int] = None) -> None:
        return None

    def manual_seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def manual_seed_all(self, seed: int) -> None:
        torch.manual_seed(seed)

    def set_allocator_settings(self, settings: str) -> None:
        return None

    def empty_cache(self) -> None:
        return None

    def get_device_capability(self, device_index: int = 0) -> tuple[Optional[int], Optional[int]]:
        return None, None

    def communication_backend_name(self) -> str:
        return "gloo"

    def visible_devices_envvar(self) -> str:
        return "CUDA_VISIBLE_DEVICES"

    @contextmanager
    def nvtx_range(self, msg: str):
        yield

    def profiler_start(self) -> None:
        return None

    def profiler_stop(self) -> None:
        return None

    def ray_resource_name(self) -> str:
        return "GPU"

    def ray_resource_options(self, num_gpus: float) -> dict[str, Any]:
        return {"num_gpus": num_gpus}

    def ray_noset_envvars(self) -> list[str]:
        return ["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"]

    def is_ipc_supported(self) -> bool:
        return False

    def cudart(self) -> Any:
        return None
