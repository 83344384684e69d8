"""Every op. Each family module (every public module in this package) lists its public names:
FUNCTIONS become tapegrad.X (torch.X), METHODS become Tensor.X (the tensor as first argument),
TENSOR_ONLY adds Tensor attributes whose signature differs from the function's,
NN_FUNCTIONS become tapegrad.nn.functional.X, and LINALG_FUNCTIONS, SPECIAL_FUNCTIONS,
FFT_FUNCTIONS and MASKED_FUNCTIONS tapegrad.linalg.X, tapegrad.special.X, tapegrad.fft.X and
tapegrad.masked.X.
Adding an op touches only its family's file."""
import importlib
import pkgutil

from .._tensor import Tensor
from ._checks import NN_TORCH_NAMES, public as _public
from ._define import REGISTRY
from ._inplace import (IN_PLACE_FUNCTIONS, IN_PLACE_METHODS, copy_, fill_, in_place_variant,
                       inplace, setitem, zero_)
from .indexing import getitem
from .pointwise import to_copy
from .reduction import sum_to_size, vector_norm

FAMILIES = tuple(importlib.import_module(f"{__name__}.{info.name}")
                 for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


def _exports(family, kind):
    """A family's public names of one kind as {name: object}: it lists attribute names, or
    maps public names to objects where they differ (torch.dropout vs F.dropout)."""
    declared = getattr(family, kind, ())
    if isinstance(declared, dict):
        return declared
    return {name: getattr(family, name) for name in declared}


TORCH_FUNCTIONS = {}  # name -> callable, re-exported as tapegrad.<name>
NN_FUNCTIONS = {}  # tapegrad.nn.functional.<name>
LINALG_FUNCTIONS = {}  # tapegrad.linalg.<name>
SPECIAL_FUNCTIONS = {}  # tapegrad.special.<name>
FFT_FUNCTIONS = {}  # tapegrad.fft.<name>
MASKED_FUNCTIONS = {}  # tapegrad.masked.<name>
# the namespaces whose torch names for error messages are "<prefix><name>" (linalg_inv)
_PREFIXED = ((LINALG_FUNCTIONS, "LINALG_FUNCTIONS", "linalg_"),
             (SPECIAL_FUNCTIONS, "SPECIAL_FUNCTIONS", "special_"),
             (FFT_FUNCTIONS, "FFT_FUNCTIONS", "fft_"),
             (MASKED_FUNCTIONS, "MASKED_FUNCTIONS", ""))

for _family in FAMILIES:
    TORCH_FUNCTIONS.update(_exports(_family, "FUNCTIONS"))
    NN_FUNCTIONS.update(_exports(_family, "NN_FUNCTIONS"))
    for _namespace, _kind, _ in _PREFIXED:
        _namespace.update(_exports(_family, _kind))
    for _name, _method in _exports(_family, "METHODS").items():
        setattr(Tensor, _name, _public(_method, _name, method=True))
        globals().setdefault(_name, _method)
    for _name, _attribute in getattr(_family, "TENSOR_ONLY", {}).items():
        setattr(Tensor, _name, _attribute)
for _name in IN_PLACE_METHODS:  # Tensor.exp_, torch.exp_, ... unless declared by hand
    if hasattr(Tensor, _name) and _name + "_" not in vars(Tensor):
        setattr(Tensor, _name + "_", in_place_variant(_name))
    if _name in IN_PLACE_FUNCTIONS and hasattr(Tensor, _name):
        TORCH_FUNCTIONS.setdefault(_name + "_", getattr(Tensor, _name + "_"))
globals().update(TORCH_FUNCTIONS)
# torch.<name> raises torch's TypeError for a list or None in a tensor's place (diagnosed once
# a call has failed); the ops' own calls to each other, through this module, skip that layer.
TORCH_FUNCTIONS.update((name, _public(function, name)) for name, function in
                       TORCH_FUNCTIONS.items())
for _namespace, _, _prefix in _PREFIXED:
    _namespace.update((name, _public(function, _prefix + name)) for name, function in
                      _namespace.items())
NN_FUNCTIONS.update((name, _public(NN_FUNCTIONS[name], torch_name))
                    for name, torch_name in NN_TORCH_NAMES.items() if name in NN_FUNCTIONS)
