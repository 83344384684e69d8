"""torch.cuda: with a GPU backend (CuPy, the `gpu` extra, and a CUDA device) the functions
ask it; without one, each returns or raises what a CPU-only torch build's does (seeding and
the memory counters quietly do nothing, anything that needs a GPU raises torch's
AssertionError).

Where torch's CPU build fails inside its own internals (set_device, reset_peak_memory_stats
and memory_summary reach for missing torch._C functions) tapegrad raises the same
AssertionError as the rest instead of an AttributeError about torch's internals."""
from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Iterable, NoReturn, Optional, Union

from . import _backend, _random
from ._device import CUDA_NOT_COMPILED, as_device, device as _device_class
from ._legacy_tensor_types import CUDA_TYPES

if TYPE_CHECKING:
    from ._tensor import Tensor

globals().update(CUDA_TYPES)  # torch.cuda.FloatTensor, ...: they exist, unusable without CUDA

if TYPE_CHECKING:
    default_generators: tuple[_random.Generator, ...]
else:
    def __getattr__(name: str) -> Any:
        # torch.cuda.default_generators: each device's generator (none without a GPU), read
        # when asked, since a backend may be registered after import
        if name == "default_generators":
            return tuple(_random.device_generator(index) for index in range(device_count()))
        if name == "amp":  # torch.cuda.amp's deprecated spellings, imported when first used
            from .amp.deprecated import cuda_amp
            return cuda_amp
        raise AttributeError(f"module '{__name__}' has no attribute '{name}'")


class OutOfMemoryError(RuntimeError):
    """Raised when a CUDA allocation fails (never, without a GPU)."""


def _not_compiled() -> NoReturn:
    raise AssertionError(CUDA_NOT_COMPILED)


def _gpu():
    """The cuda backend, or torch's AssertionError for a build without CUDA."""
    backend = _backend.backend_for("cuda")
    if backend is None:
        _not_compiled()
    return backend


def is_available() -> bool:
    return _backend.backend_for("cuda") is not None


def device_count() -> int:
    backend = _backend.backend_for("cuda")
    return 0 if backend is None else backend.device_count()


def is_initialized() -> bool:
    return is_available()


def init() -> None:
    _gpu()


def _is_compiled():
    return False


def _device_index(value):
    """torch.cuda's reading of a device argument: an index, or None for the current device."""
    if isinstance(value, (str, bytes)):
        value = as_device(value)
    if isinstance(value, _device_class):
        if value.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {value}")
        return value.index
    if isinstance(value, device):  # a torch.cuda.device context
        return value.idx
    return value


# ---- seeds and states: without a GPU, torch queues seeds for an initialisation that never
# comes; with one, each device's generator (_random.py) takes them

def manual_seed(seed: int) -> None:
    """Seed the current device's generator."""
    seed = int(seed)  # torch converts first, so a bad seed still raises
    if is_available():
        _random.device_generator(current_device()).manual_seed(seed)


def manual_seed_all(seed: int) -> None:
    """Seed every device's generator."""
    seed = int(seed)
    for index in range(device_count()):
        _random.device_generator(index).manual_seed(seed)


def seed() -> None:
    """Seed the current device's generator with a random number."""
    if is_available():
        _random.device_generator(current_device()).seed()


def seed_all() -> None:
    """Seed every device's generator with one random number."""
    if is_available():
        manual_seed_all(_random.device_generator(current_device()).seed())


def initial_seed() -> int:
    """The seed of the current device's generator."""
    return _random.device_generator(_gpu().current_index()).initial_seed()


def get_rng_state(device: Union[int, str, _device_class] = "cuda") -> Tensor:
    """The state of a device's generator, as a ByteTensor on the cpu: its seed and the count
    of values drawn (torch's layout for its CUDA generators; the numbers are tapegrad's)."""
    _gpu()
    return _random.device_generator(_index_or_current(device)).get_state()


def get_rng_state_all() -> list[Tensor]:
    """The states of every device's generator."""
    return [get_rng_state(index) for index in range(device_count())]


def set_rng_state(new_state: Tensor, device: Union[int, str, _device_class] = "cuda") -> None:
    """Restore a device's generator to a state get_rng_state gave."""
    if is_available():
        _random.device_generator(_index_or_current(device)).set_state(new_state)


def set_rng_state_all(new_states: Iterable[Tensor]) -> None:
    for index, state in enumerate(new_states):
        set_rng_state(state, index)


# ---- devices ---------------------------------------------------------------------------------

def current_device() -> int:
    return _gpu().current_index()


def _index_or_current(device):
    index = _device_index(device)
    return current_device() if index is None else index


def set_device(device: Any) -> None:
    index = _device_index(device)
    if index is not None and index >= 0:
        _gpu().set_current(index)


def synchronize(device: Any = None) -> None:
    _gpu().synchronize(_index_or_current(device))


def get_device_name(device: Any = None) -> str:
    return _gpu().device_name(_index_or_current(device))


def get_device_capability(device: Any = None) -> tuple[int, int]:
    _not_compiled()


def get_device_properties(device: Any = None) -> Any:
    _not_compiled()


def can_device_access_peer(device: Any, peer_device: Any) -> bool:
    _not_compiled()


def get_arch_list() -> list[str]:
    return []


def get_gencode_flags() -> str:
    return ""


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def is_tf32_supported() -> bool:
    return False


def ipc_collect() -> None:
    _not_compiled()


def _exchange_device(index):
    """Make index the current device; the one current before (-1: none) comes back."""
    if index < 0:  # torch compares as is: a None index raises TypeError here too
        return -1
    backend = _backend.backend_for("cuda")
    if backend is None:
        raise RuntimeError("PyTorch was compiled without CUDA support")
    previous = backend.current_index()
    backend.set_current(index)
    return previous


class device:
    """Context manager that makes a CUDA device current; entering one fails without CUDA,
    except for index -1 (no device), as in torch."""

    def __init__(self, device):
        self.idx = _device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        self.prev_idx = _exchange_device(self.idx)

    def __exit__(self, *exc_info):
        self.idx = _exchange_device(self.prev_idx)
        return False


class device_of(device):
    """The device context of a tensor's device: a no-op for cpu tensors."""

    def __init__(self, obj):
        super().__init__(obj.get_device() if obj.is_cuda else -1)


# ---- memory: the caching allocator's counters stay at zero ---------------------------------

def empty_cache() -> None:
    if is_available():
        _gpu().empty_cache()


def memory_stats(device: Any = None) -> dict[str, Any]:
    return OrderedDict()


def memory_allocated(device: Any = None) -> int:
    """Bytes held by tensors on the device (CuPy's memory pool in use)."""
    return _gpu().memory_allocated(_index_or_current(device)) if is_available() else 0


# device index -> the most memory_allocated has answered since the last reset
_peaks: dict[int, int] = {}


def max_memory_allocated(device: Any = None) -> int:
    """The peak of memory_allocated as seen at its calls and at this one (CuPy's pool keeps
    no peak of its own)."""
    if not is_available():
        return 0
    index = _index_or_current(device)
    _peaks[index] = max(_peaks.get(index, 0), memory_allocated(index))
    return _peaks[index]


def memory_reserved(device: Any = None) -> int:
    return 0


def max_memory_reserved(device: Any = None) -> int:
    return 0


def reset_peak_memory_stats(device: Any = None) -> None:
    _device_index(device)
    _gpu()
    _peaks.pop(_index_or_current(device), None)


reset_max_memory_allocated = reset_accumulated_memory_stats = reset_peak_memory_stats


def memory_summary(device: Any = None, abbreviated: bool = False) -> str:
    _not_compiled()


def mem_get_info(device: Any = None) -> tuple[int, int]:
    _not_compiled()


def set_per_process_memory_fraction(fraction: float, device: Any = None) -> None:
    _not_compiled()


# ---- streams and events ----------------------------------------------------------------------

class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


def current_stream(device: Any = None) -> Stream:
    _not_compiled()


def default_stream(device: Any = None) -> Stream:
    _not_compiled()


class StreamContext:
    """Makes a stream current inside a `with` block; with None it does nothing."""

    def __init__(self, stream):
        self.stream = stream

    def __enter__(self):
        if self.stream is not None:  # no Stream can exist without CUDA
            _not_compiled()

    def __exit__(self, *exc_info):
        return False


def stream(stream: Optional[Stream]) -> StreamContext:
    return StreamContext(stream)
