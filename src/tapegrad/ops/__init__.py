"""Every op, importable as tapegrad.ops.X; the public ones are re-exported by tapegrad."""
from .._tensor import Tensor
from ._define import REGISTRY
from ._inplace import copy_, fill_, inplace, setitem, zero_
from .linalg import bmm, dot, matmul, mm, mv
from .pointwise import (abs, add, bitwise_and, bitwise_not, bitwise_or, bitwise_xor, clamp, clip,
                        clone, cos, div, eq, exp, ge, gt, le, log, lt, maximum, minimum, mul, ne,
                        neg, pow, reciprocal, relu, remainder, rsub, sigmoid, sign, sin, sqrt,
                        square, sub, tanh, to_copy, where)
from .reduction import max, mean, min, norm, sum, sum_to_size, vector_norm
from .shape import (expand, expand_as, flatten, gather, getitem, permute, reshape, squeeze,
                    swapaxes, swapdims, t, transpose, unsqueeze, view)

# Tensor methods that are exactly the function of the same name with the tensor first.
METHODS = (
    "abs add bitwise_and bitwise_not bitwise_or bitwise_xor clamp clip clone cos div eq exp "
    "ge gt le log lt maximum minimum mul ne neg pow reciprocal relu remainder sigmoid sign sin "
    "sqrt square sub tanh bmm dot matmul mm mv max mean min norm sum expand expand_as "
    "flatten gather permute reshape squeeze sum_to_size swapaxes swapdims t transpose "
    "unsqueeze view").split()

for _name in METHODS:
    setattr(Tensor, _name, globals()[_name])
Tensor.absolute = Tensor.abs
Tensor.negative = Tensor.neg
Tensor.multiply = Tensor.mul
Tensor.divide = Tensor.div
Tensor.subtract = Tensor.sub
Tensor.where = lambda self, condition, other: where(condition, self, other)
Tensor.T = property(lambda self: permute(self, tuple(reversed(range(self.ndim)))))
Tensor.mT = property(lambda self: transpose(self, -2, -1))
