"""torch.cuda as a CPU-only torch build has it: no device, and each function returns or raises
what torch's does there (seeding and the memory counters quietly do nothing, anything that
needs a GPU raises torch's AssertionError).

Where torch's CPU build fails inside its own internals (set_device, reset_peak_memory_stats
and memory_summary reach for missing torch._C functions) tapegrad raises the same
AssertionError as the rest instead of an AttributeError about torch's internals."""
from collections import OrderedDict

from ._device import CUDA_NOT_COMPILED, as_device, device as _device_class
from ._legacy_tensor_types import CUDA_TYPES

globals().update(CUDA_TYPES)  # torch.cuda.FloatTensor, ...: they exist, unusable without CUDA


class OutOfMemoryError(RuntimeError):
    """Raised when a CUDA allocation fails (never, without a GPU)."""


def _not_compiled():
    raise AssertionError(CUDA_NOT_COMPILED)


def is_available():
    return False


def device_count():
    return 0


def is_initialized():
    return False


def init():
    _not_compiled()


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


# ---- seeds: torch queues them for a CUDA initialisation that never comes -------------------

def manual_seed(seed):
    int(seed)  # torch converts first, so a bad seed still raises


def manual_seed_all(seed):
    int(seed)


def seed():
    pass


def seed_all():
    pass


def initial_seed():
    _not_compiled()


def get_rng_state(device="cuda"):
    _not_compiled()


def get_rng_state_all():
    return []  # one state per device


def set_rng_state(new_state, device="cuda"):
    pass


def set_rng_state_all(new_states):
    for state in new_states:
        set_rng_state(state)


# ---- devices ---------------------------------------------------------------------------------

def current_device():
    _not_compiled()


def set_device(device):
    index = _device_index(device)
    if index is not None and index >= 0:
        _not_compiled()


def synchronize(device=None):
    _not_compiled()


def get_device_name(device=None):
    _not_compiled()


def get_device_capability(device=None):
    _not_compiled()


def get_device_properties(device=None):
    _not_compiled()


def can_device_access_peer(device, peer_device):
    _not_compiled()


def get_arch_list():
    return []


def get_gencode_flags():
    return ""


def is_bf16_supported(including_emulation=True):
    return False


def is_tf32_supported():
    return False


def ipc_collect():
    _not_compiled()


def _exchange_device(index):
    if index < 0:  # torch compares as is: a None index raises TypeError here too
        return -1
    raise RuntimeError("PyTorch was compiled without CUDA support")


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

def empty_cache():
    pass


def memory_stats(device=None):
    return OrderedDict()


def memory_allocated(device=None):
    return 0


def max_memory_allocated(device=None):
    return 0


def memory_reserved(device=None):
    return 0


def max_memory_reserved(device=None):
    return 0


def reset_peak_memory_stats(device=None):
    _device_index(device)
    _not_compiled()


reset_max_memory_allocated = reset_accumulated_memory_stats = reset_peak_memory_stats


def memory_summary(device=None, abbreviated=False):
    _not_compiled()


def mem_get_info(device=None):
    _not_compiled()


def set_per_process_memory_fraction(fraction, device=None):
    _not_compiled()


# ---- streams and events ----------------------------------------------------------------------

class Stream:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


def current_stream(device=None):
    _not_compiled()


def default_stream(device=None):
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


def stream(stream):
    return StreamContext(stream)
