"""The "cuda" device on CuPy (the optional extra `gpu`): CuPy arrays behind cuda tensors.

Imported only when something asks for cuda; raises ImportError when CuPy or a CUDA device is
missing, and tapegrad then answers as torch's CPU-only build does.
"""
import importlib
from typing import Any

try:
    import cupy
except Exception as error:  # CuPy raises more than ImportError when CUDA libraries are missing
    raise ImportError(f"CuPy is not usable: {error}") from error


class CupyBackend:
    type = "cuda"

    def __init__(self):
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError as error:
            raise ImportError(f"CuPy finds no CUDA device: {error}") from error
        if not count:
            raise ImportError("CuPy finds no CUDA device")
        self.array_type, self.xp, self._count = cupy.ndarray, cupy, count

    def device_count(self) -> int:
        return self._count

    def current_index(self) -> int:
        return cupy.cuda.runtime.getDevice()

    def set_current(self, index: int) -> None:
        cupy.cuda.runtime.setDevice(index)

    def selected(self, index: int) -> Any:
        return cupy.cuda.Device(index)

    def index_of(self, array: Any) -> int:
        return array.device.id

    def to_device(self, array: Any, index: int) -> Any:
        """A copy of array (a NumPy array, or a CuPy one on any device) on device index."""
        with cupy.cuda.Device(index):
            return cupy.array(array, copy=True)

    def to_host(self, array: Any) -> Any:
        return cupy.asnumpy(array)

    def synchronize(self, index: int) -> None:
        with cupy.cuda.Device(index):
            cupy.cuda.runtime.deviceSynchronize()

    def device_name(self, index: int) -> str:
        return cupy.cuda.runtime.getDeviceProperties(index)["name"].decode()

    def memory_allocated(self, index: int) -> int:
        with cupy.cuda.Device(index):
            return cupy.get_default_memory_pool().used_bytes()

    def empty_cache(self) -> None:
        cupy.get_default_memory_pool().free_all_blocks()

    def scipy(self, submodule: str) -> Any:
        """SciPy's submodule for CuPy's arrays (cupyx.scipy.<submodule>)."""
        return importlib.import_module(f"cupyx.scipy.{submodule}")
