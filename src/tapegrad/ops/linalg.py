"""Matrix products. matmul composes them the way torch does, so the graph shows torch's nodes."""
from .._tensor import Tensor
from ._checks import broadcast_shapes, numel
from ._define import defop
from .shape import _unsafe_view, expand, reshape, t, transpose, unsqueeze


# torch's messages for mixed dtypes name them as C++ types
_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool", "complex64": "c10::complex<float>",
           "complex128": "c10::complex<double>"}


def _check_same_dtype(input, other):
    if input.dtype is not other.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_C_TYPE[input.dtype.name]} != {_C_TYPE[other.dtype.name]}")


@defop("MmBackward0", save=("input", "mat2"))
def _mm(xp, input: Tensor, mat2: Tensor):
    return xp.matmul(input, mat2)


_mm.derivatives(input=lambda ctx: _mm(ctx.grad, t(ctx.mat2)),
                mat2=lambda ctx: _mm(t(ctx.input), ctx.grad))


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    _check_same_dtype(input, mat2)
    return _mm(input, mat2)


@defop("DotBackward0", save=("input", "tensor"))
def _dot(xp, input: Tensor, tensor: Tensor):
    return xp.dot(input, tensor)


_dot.derivatives(input=lambda ctx: ctx.grad * ctx.tensor,
                 tensor=lambda ctx: ctx.grad * ctx.input)


def dot(input, tensor):
    if input.ndim != 1 or tensor.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {tensor.ndim}D "
                           "tensors")
    if input.shape[0] != tensor.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and "
                           f"src [{tensor.shape[0]}] to have the same number of elements, but "
                           f"got {input.shape[0]} and {tensor.shape[0]} elements respectively")
    if input.dtype is not tensor.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{input.dtype.legacy_name} and {tensor.dtype.legacy_name}")
    return _dot(input, tensor)


@defop("MvBackward0", save=("input", "vec"))
def _mv(xp, input: Tensor, vec: Tensor):
    return xp.matmul(input, vec)


_mv.derivatives(input=lambda ctx: unsqueeze(ctx.grad, 1) * ctx.vec,
                vec=lambda ctx: _mv(t(ctx.input), ctx.grad))


def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    if input.dtype is not vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{vec.dtype.legacy_name}, {input.dtype.legacy_name}, and "
                           f"{vec.dtype.legacy_name}")
    return _mv(input, vec)


@defop("BmmBackward0", save=("input", "mat2"))
def _bmm(xp, input: Tensor, mat2: Tensor):
    return xp.matmul(input, mat2)


_bmm.derivatives(input=lambda ctx: _bmm(ctx.grad, transpose(ctx.mat2, 1, 2)),
                 mat2=lambda ctx: _bmm(transpose(ctx.input, 1, 2), ctx.grad))


def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor" if input.ndim != 3
                           else "batch2 must be a 3D tensor")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{mat2.dtype.legacy_name}")
    return _bmm(input, mat2)


def matmul(input, other):
    """The @ operator: dot, mv, mm, a folded mm/mv, or bmm over broadcast batch dims, chosen as
    torch chooses (so the recorded nodes are torch's)."""
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        raise TypeError("matmul(): argument 'other' (position 2) must be Tensor")
    a, b = input.ndim, other.ndim
    if a == 0 or b == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{a}D and {b}D")
    if a == 1 and b == 1:
        return dot(input, other)
    if a == 2 and b == 1:
        return mv(input, other)
    if a == 1 and b == 2:
        return _squeeze_in_place(mm(unsqueeze(input, 0), other), 0)
    if a == 2 and b == 2:
        return mm(input, other)
    if _should_fold(input, other):
        return _folded_matmul(input, other)
    return _batched_matmul(input, other)


@defop("SqueezeBackward4", view=True)
def _squeeze_in_place(xp, input: Tensor, dim):
    """squeeze_(dim), the in-place overload torch's matmul uses: its own node name."""
    return xp.squeeze(input, dim)


_squeeze_in_place.derivatives(input=lambda ctx: reshape(ctx.grad, ctx.input_shape))


def _should_fold(input, other):
    """torch folds the batch of the larger operand into mm/mv rows when that costs no copy
    (or when the smaller operand needs a gradient, to keep its backward a single mm)."""
    larger, smaller = (input, other) if input.ndim >= other.ndim else (other, input)
    if not (larger.ndim >= 3 and smaller.ndim <= 2):
        return False
    if smaller._requires_grad:
        return True
    if input.ndim == 2:
        return False
    folded = larger if larger is input else transpose(larger, -1, -2)
    if folded.numel() == 0:
        return True
    strides, shape = folded.stride(), folded.shape
    return all(strides[i] == strides[i + 1] * shape[i + 1] for i in range(folded.ndim - 2))


def _folded_matmul(input, other):
    transposed = other.ndim > input.ndim  # fold other^T and compute (other^T @ input^T)^T
    big = transpose(other, -1, -2) if transposed else input
    small = (t(input) if input.ndim == 2 else input) if transposed else other
    rows = big.shape[:-1]
    folded = reshape(big, numel(rows), big.shape[-1])
    if small.ndim == 1:
        return _unsafe_view(mv(folded, small), rows)
    result = _unsafe_view(mm(folded, small), rows + (small.shape[1],))
    return transpose(result, -1, -2).contiguous() if transposed else result


def _batched_matmul(input, other):
    n, k = input.shape[-2:] if input.ndim > 1 else (1, input.shape[0])
    k2, m = other.shape[-2:] if other.ndim > 1 else (other.shape[0], 1)
    if k != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{numel(input.shape[:-2]) or 1}, {k}] but got: "
                           f"[{numel(other.shape[:-2]) or 1}, {k2}].")
    batch = broadcast_shapes(input.shape[:-2], other.shape[:-2])
    input3 = reshape(expand(input.reshape(n, k) if input.ndim == 1 else input, batch + (n, k)),
                     -1, n, k)
    other3 = reshape(expand(other.reshape(k, m) if other.ndim == 1 else other, batch + (k, m)),
                     -1, k, m)
    shape = batch + ((n,) if input.ndim > 1 else ()) + ((m,) if other.ndim > 1 else ())
    return _unsafe_view(bmm(input3, other3), shape)


FUNCTIONS = "bmm dot matmul mm mv".split()
METHODS = FUNCTIONS
