"""tapegrad: PyTorch's tensor + autograd programming model on NumPy.

`import tapegrad as torch` runs ordinary PyTorch autograd code and prints what torch prints.
"""
from typing import TYPE_CHECKING

from . import (accelerator, autograd, backends, cuda, fft, func, interop, linalg, masked, nn,
               optim, random, return_types, signal, sparse, special, utils)
from ._creation import (arange, as_tensor, empty, empty_like, empty_permuted, empty_strided, eye,
                        from_numpy, frombuffer, full, full_like, linspace, logspace, ones,
                        ones_like, rand, rand_like, randint, randint_like, randn, randn_like,
                        randperm, scalar_tensor, tensor, zeros, zeros_like)
from ._device import get_default_device, set_default_device
from ._legacy_tensor_types import CPU_TYPES
from ._layout import (channels_last, channels_last_3d, contiguous_format, layout, memory_format,
                      preserve_format, strided)
from ._sparse import sparse_coo, sparse_coo_tensor
from .backends import (are_deterministic_algorithms_enabled, get_float32_matmul_precision,
                       is_deterministic_algorithms_warn_only_enabled, set_float32_matmul_precision,
                       use_deterministic_algorithms)
from ._dtype import (bfloat16, bool, cdouble, cfloat, complex64, complex128, double, dtype, float,
                     float16, float32, float64, get_default_dtype, half, int, int8, int16, int32,
                     int64, long, promote_types, set_default_dtype, short, uint8, uint64)
from ._printing import get_printoptions, set_printoptions
from ._type_info import finfo, iinfo
from ._random import (Generator, default_generator, get_rng_state, initial_seed, manual_seed,
                      seed, set_rng_state)
from ._tensor import Size, Tensor, device, is_tensor
from .interop import from_dlpack, from_torch
from .autograd.anomaly_mode import (is_anomaly_check_nan_enabled, is_anomaly_enabled,
                                    set_anomaly_enabled)
from .func import vmap
from .autograd import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                       no_grad, set_grad_enabled)
from .ops import TORCH_FUNCTIONS

globals().update(TORCH_FUNCTIONS)  # torch.add, torch.matmul, ...: each declared with its op
globals().update(CPU_TYPES)  # torch.FloatTensor, torch.LongTensor, ...
__version__ = "0.1.0"

# Imported on first access, and attributes like any other: serialization imports zipfile, json
# and pathlib (about 7 ms, more than its share of `import tapegrad`); distributions is 80
# modules' worth of classes (about 18 ms); explain and viz are tapegrad's own extras, which
# torch programs do not reach for; testing is for test code only, jit a few decorators.
_LAZY = {"explain": "explain", "viz": "viz", "serialization": "serialization",
         "load": "serialization", "save": "serialization", "distributions": "distributions",
         "testing": "testing", "jit": "jit"}
# torch.amp, torch.cpu and autocast's state functions: for mixed-precision scripts only
_AUTOCAST_STATE = ("autocast", "is_autocast_enabled", "set_autocast_enabled",
                   "get_autocast_dtype", "set_autocast_dtype", "is_autocast_cache_enabled",
                   "set_autocast_cache_enabled", "autocast_increment_nesting",
                   "autocast_decrement_nesting", "clear_autocast_cache")
# and the per-device spellings torch keeps with a DeprecationWarning (amp/deprecated.py)
_AUTOCAST_DEPRECATED = (
    "get_autocast_cpu_dtype", "get_autocast_gpu_dtype", "get_autocast_ipu_dtype",
    "get_autocast_xla_dtype", "is_autocast_cpu_enabled", "is_autocast_ipu_enabled",
    "is_autocast_xla_enabled", "set_autocast_cpu_dtype", "set_autocast_cpu_enabled",
    "set_autocast_gpu_dtype", "set_autocast_ipu_dtype", "set_autocast_ipu_enabled",
    "set_autocast_xla_dtype", "set_autocast_xla_enabled")
_LAZY.update(amp="amp", cpu="cpu", **dict.fromkeys(_AUTOCAST_STATE, "amp.autocast_mode"),
             **dict.fromkeys(_AUTOCAST_DEPRECATED, "amp.deprecated"))
# storages: for code that reaches under tensors to their memory
_STORAGES = ("BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage",
             "ComplexDoubleStorage", "ComplexFloatStorage", "DoubleStorage", "FloatStorage",
             "HalfStorage", "IntStorage", "LongStorage", "ShortStorage", "TypedStorage",
             "UntypedStorage")
_LAZY.update(storage="storage", **dict.fromkeys(_STORAGES, "storage"))


if TYPE_CHECKING:  # what the loops above and the lazy imports bind, for type checkers
    from . import (_functions, amp, cpu, distributions, explain, jit, serialization, storage,
                   testing, viz)
    from .amp.autocast_mode import (autocast, autocast_decrement_nesting,
                                    autocast_increment_nesting, clear_autocast_cache,
                                    get_autocast_dtype, is_autocast_cache_enabled,
                                    is_autocast_enabled, set_autocast_cache_enabled,
                                    set_autocast_dtype, set_autocast_enabled)
    from .amp.deprecated import (get_autocast_cpu_dtype, get_autocast_gpu_dtype,
                                 get_autocast_ipu_dtype, get_autocast_xla_dtype,
                                 is_autocast_cpu_enabled, is_autocast_ipu_enabled,
                                 is_autocast_xla_enabled, set_autocast_cpu_dtype,
                                 set_autocast_cpu_enabled, set_autocast_gpu_dtype,
                                 set_autocast_ipu_dtype, set_autocast_ipu_enabled,
                                 set_autocast_xla_dtype, set_autocast_xla_enabled)
    from ._functions import *  # noqa: F403  (their signatures, written by tools/stubs.py)
    from .serialization import load, save
    from .storage import (BFloat16Storage, BoolStorage, ByteStorage, CharStorage,
                          ComplexDoubleStorage, ComplexFloatStorage, DoubleStorage, FloatStorage,
                          HalfStorage, IntStorage, LongStorage, ShortStorage, TypedStorage,
                          UntypedStorage)
else:  # a module __getattr__ would make every unknown name Any to a type checker
    def __getattr__(name):
        if name not in _LAZY:
            raise AttributeError(f"module 'tapegrad' has no attribute '{name}'")
        import importlib
        module = importlib.import_module(f"{__name__}.{_LAZY[name]}")  # sets tapegrad.<module>
        globals()[name] = module if name == _LAZY[name] else getattr(module, name)
        return globals()[name]


def __dir__():
    return sorted({*globals(), *_LAZY})


def is_floating_point(input):
    return input.dtype.is_floating_point


def numel(input):
    return input.numel()


def result_type(tensor1, tensor2):
    """torch.result_type of two tensors or numbers."""
    from ._dtype import result_type as promote
    values = (tensor1, tensor2)
    tensors = [v for v in values if isinstance(v, Tensor)]
    return promote([t.dtype for t in tensors if t.ndim], [t.dtype for t in tensors if not t.ndim],
                   [v for v in values if not isinstance(v, Tensor)])


# The public names, for `from tapegrad import *` and for type checkers (which, in a typed
# package, count an imported name as public only when listed): these, and the ops.
__all__ = [
    "BFloat16Storage", "BoolStorage", "ByteStorage", "CharStorage", "ComplexDoubleStorage",
    "ComplexFloatStorage", "DoubleStorage", "FloatStorage", "Generator", "HalfStorage",
    "IntStorage", "LongStorage", "ShortStorage", "Size", "Tensor", "TypedStorage",
    "UntypedStorage", "arange", "are_deterministic_algorithms_enabled",
    "as_tensor", "autocast", "autocast_decrement_nesting", "autocast_increment_nesting",
    "bfloat16", "clear_autocast_cache", "get_autocast_cpu_dtype", "get_autocast_dtype",
    "get_autocast_gpu_dtype", "get_autocast_ipu_dtype", "get_autocast_xla_dtype",
    "is_autocast_cache_enabled", "is_autocast_cpu_enabled", "is_autocast_enabled",
    "is_autocast_ipu_enabled", "is_autocast_xla_enabled", "set_autocast_cache_enabled",
    "set_autocast_cpu_dtype", "set_autocast_cpu_enabled", "set_autocast_dtype",
    "set_autocast_enabled", "set_autocast_gpu_dtype", "set_autocast_ipu_dtype",
    "set_autocast_ipu_enabled", "set_autocast_xla_dtype", "set_autocast_xla_enabled", "bool", "cdouble", "cfloat", "channels_last", "channels_last_3d",
    "complex128", "complex64", "contiguous_format", "default_generator", "device", "double",
    "dtype", "empty", "empty_like", "empty_permuted", "empty_strided", "enable_grad", "eye",
    "finfo", "float", "float16", "float32", "float64", "from_dlpack", "from_numpy",
    "from_torch", "frombuffer", "full", "full_like", "get_default_device", "get_default_dtype",
    "get_float32_matmul_precision", "get_printoptions", "get_rng_state", "half", "iinfo",
    "inference_mode", "initial_seed", "int", "int16", "int32", "int64", "int8",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled",
    "is_deterministic_algorithms_warn_only_enabled", "is_floating_point", "is_grad_enabled",
    "is_inference_mode_enabled", "is_tensor", "layout", "linspace", "load", "logspace", "long",
    "manual_seed", "memory_format", "no_grad", "numel", "ones", "ones_like", "preserve_format",
    "promote_types", "rand", "rand_like", "randint", "randint_like", "randn", "randn_like",
    "randperm", "result_type", "save", "scalar_tensor", "seed", "set_anomaly_enabled",
    "set_default_device", "set_default_dtype", "set_float32_matmul_precision",
    "set_grad_enabled", "set_printoptions", "set_rng_state", "short", "sparse_coo",
    "sparse_coo_tensor", "strided", "tensor", "uint64", "uint8", "use_deterministic_algorithms",
    "vmap", "zeros", "zeros_like"
]
if TYPE_CHECKING:
    __all__ += _functions.__all__
else:  # the ops, and the submodules (nn, optim, viz, ..., loaded or not)
    _submodules = {name for name, value in globals().items() if type(value) is type(nn)}
    __all__ += [*TORCH_FUNCTIONS, *CPU_TYPES, *sorted((_submodules | _LAZY.keys()) - {*__all__})]
