"""Every op. Each family module lists its public names: FUNCTIONS become tapegrad.X (torch.X),
METHODS become Tensor.X (the tensor as first argument), TENSOR_ONLY adds Tensor attributes
whose signature differs from the function's. Adding an op touches only its family's file."""
from .._tensor import Tensor
from . import linalg, pointwise, reduction, shape
from ._define import REGISTRY
from ._inplace import copy_, fill_, inplace, setitem, zero_
from .pointwise import to_copy
from .reduction import sum_to_size, vector_norm
from .shape import getitem

FAMILIES = (pointwise, reduction, shape, linalg)
TORCH_FUNCTIONS = {}  # name -> callable, re-exported as tapegrad.<name>

for _family in FAMILIES:
    for _name in _family.FUNCTIONS:
        TORCH_FUNCTIONS[_name] = globals()[_name] = getattr(_family, _name)
    for _name in _family.METHODS:
        globals()[_name] = getattr(_family, _name)
        setattr(Tensor, _name, globals()[_name])
    for _name, _attribute in getattr(_family, "TENSOR_ONLY", {}).items():
        setattr(Tensor, _name, _attribute)
