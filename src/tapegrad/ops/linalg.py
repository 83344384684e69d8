"""Matrix and tensor products. matmul, einsum, tensordot and kron compose mm/mv/bmm/dot and
shape ops the way torch does, so the graph shows torch's nodes."""
import collections
import string

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from . import reduction
from ._checks import broadcast_shapes, numel, wrap_dim
from ._define import defop
from .complex_parts import conj_of
from .pointwise import mul, mul_scalar
from .reordering import diagonal
from .shape import (VIEW_INCOMPATIBLE, unsafe_view, expand, flatten, movedim, permute, reshape,
                    squeeze, t, transpose, unsqueeze, view)


# torch's messages for mixed dtypes name them as C++ types
_C_TYPE = {"float32": "float", "float64": "double", "float16": "c10::Half",
           "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int", "int16": "short int",
           "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def check_mm_dtypes(input, other):
    if input.dtype is not other.dtype:
        raise RuntimeError("expected m1 and m2 to have the same dtype, but got: "
                           f"{_C_TYPE[input.dtype.name]} != {_C_TYPE[other.dtype.name]}")


def _refuse_bool(array, kernel):
    # the operands share a dtype by now; torch has no bool kernel for its products (and returns
    # before it, for the matrix products, when an operand is empty)
    if array.dtype.kind == "b":
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")


def _product(xp, product, a, b):
    """xp's product of a and b in their dtype: NumPy computes bfloat16 products in float32
    (ml_dtypes), torch gives bfloat16."""
    result = product(a, b)
    return result if result.dtype == a.dtype else result.astype(a.dtype)


@defop("MmBackward0", save=("input", "mat2"))
def _mm(xp, input: Tensor, mat2: Tensor):
    if input.size and mat2.size:
        _refuse_bool(input, "addmm_impl_cpu_")
    return _product(xp, xp.matmul, input, mat2)


# Complex operands enter the formulas conjugated (torch's mat2.mH, self.conj()); conj_of is
# the identity on real tensors.
_mm.derivatives(input=lambda ctx: _mm(ctx.grad, conj_of(t(ctx.mat2))),
                mat2=lambda ctx: _mm(conj_of(t(ctx.input)), ctx.grad))


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError(f"{'self' if input.ndim != 2 else 'mat2'} must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    check_mm_dtypes(input, mat2)
    return _mm(input, mat2)


@defop("DotBackward0", save=("input", "tensor"))
def _dot(xp, input: Tensor, tensor: Tensor):
    _refuse_bool(input, "dot")
    return _product(xp, xp.dot, input, tensor)


_dot.derivatives(input=lambda ctx: ctx.grad * conj_of(ctx.tensor),
                 tensor=lambda ctx: ctx.grad * conj_of(ctx.input))


def dot(input, tensor):
    _check_vectors(input, tensor)
    return _dot(input, tensor)


def _check_vectors(input, other):
    """dot's and vdot's checks: two vectors of one size and one dtype."""
    if input.ndim != 1 or other.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {input.ndim}D and {other.ndim}D "
                           "tensors")
    if input.shape[0] != other.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{input.shape[0]}] and "
                           f"src [{other.shape[0]}] to have the same number of elements, but "
                           f"got {input.shape[0]} and {other.shape[0]} elements respectively")
    if input.dtype is not other.dtype:
        raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                           f"{input.dtype.legacy_name} and {other.dtype.legacy_name}")


@defop("MvBackward0", save=("input", "vec"))
def _mv(xp, input: Tensor, vec: Tensor):
    if input.size and vec.size:
        _refuse_bool(input, "addmv_impl_cpu")
    return _product(xp, xp.matmul, input, vec)


_mv.derivatives(input=lambda ctx: outer(ctx.grad, conj_of(ctx.vec)),  # grad.ger(vec.conj())
                vec=lambda ctx: _mv(conj_of(t(ctx.input)), ctx.grad))


def mv(input, vec):
    if input.ndim == 0:  # torch sizes its result by input's first dim before any check
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
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
    if input.size and mat2.size:
        _refuse_bool(input, "bmm")
    return _product(xp, xp.matmul, input, mat2)


_bmm.derivatives(input=lambda ctx: _bmm(ctx.grad, conj_of(transpose(ctx.mat2, 1, 2))),
                 mat2=lambda ctx: _bmm(conj_of(transpose(ctx.input, 1, 2)), ctx.grad))


def bmm(input, mat2):
    _check_batches(input, mat2)
    if input.numel() == 0 or mat2.numel() == 0:  # torch's zeros, of mat2's dtype, unchecked
        return _bmm(input.to(mat2.dtype), mat2)
    if input.dtype.name == "bool":  # torch's kernel dispatches on input's dtype first
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"expected scalar type {input.dtype.legacy_name} but found "
                           f"{mat2.dtype.legacy_name}")
    return _bmm(input, mat2)


def _check_batches(batch1, batch2):
    """bmm's and baddbmm's shape checks."""
    if batch1.ndim != 3 or batch2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor" if batch1.ndim != 3
                           else "batch2 must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0] or batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch1.shape[0]}, {batch1.shape[2]}] but got: "
                           f"[{batch2.shape[0]}, {batch2.shape[1]}].")


def matmul(input, other):
    """The @ operator: dot, mv, mm, a folded mm/mv, or bmm over broadcast batch dims, chosen as
    torch chooses (so the recorded nodes are torch's)."""
    if not isinstance(other, Tensor) or not isinstance(input, Tensor):
        name, position, value = (("input", 1, input) if not isinstance(input, Tensor)
                                 else ("other", 2, other))
        raise TypeError(f"matmul(): argument '{name}' (position {position}) must be Tensor, "
                        f"not {type(value).__name__}")
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


@defop("SqueezeBackward4")
def _squeeze_in_place(xp, input: Tensor, dim):
    """squeeze_(dim), the in-place overload torch's matmul uses on its own fresh product:
    a node name of its own, and no view to track."""
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
        return unsafe_view(mv(folded, small), rows)
    result = unsafe_view(mm(folded, small), rows + (small.shape[1],))
    return transpose(result, -1, -2).contiguous() if transposed else result


def _batched_matmul(input, other):
    n, k = input.shape[-2:] if input.ndim > 1 else (1, input.shape[0])
    k2, m = other.shape[-2:] if other.ndim > 1 else (other.shape[0], 1)
    if k != k2:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{numel(input.shape[:-2]) or 1}, {k}] but got: "
                           f"[{numel(other.shape[:-2]) or 1}, {k2}].")
    batch = broadcast_shapes(input.shape[:-2], other.shape[:-2])
    rows = numel(batch)  # not -1, which an empty batch leaves ambiguous
    input3 = reshape(expand(input.reshape(n, k) if input.ndim == 1 else input, batch + (n, k)),
                     rows, n, k)
    other3 = reshape(expand(other.reshape(k, m) if other.ndim == 1 else other, batch + (k, m)),
                     rows, k, m)
    shape = batch + ((n,) if input.ndim > 1 else ()) + ((m,) if other.ndim > 1 else ())
    return unsafe_view(bmm(input3, other3), shape)


# ---- fused products: beta * input + alpha * (product) ----------------------------------------

def _combine(input, product, beta, alpha, dtype=None):
    """beta * input + alpha * product, rounded once to dtype (the product's by default). A
    bfloat16 product arrives unrounded in float32 and the sum is taken there, as torch's
    opmath does. beta == 0 ignores input, nan and inf included, as BLAS does."""
    dtype = dtype or product.dtype  # integer tensors stay integer, whatever beta and alpha are
    if alpha != 1:
        product = product * alpha
    if beta != 0:
        addend = input.astype(product.dtype, copy=False) if hasattr(input, "astype") else input
        addend = addend if beta == 1 else addend * beta
        if type(product) is np.ndarray:  # a fresh result: add in place, no second buffer
            np.add(product, addend, out=product, casting="unsafe")
        else:
            product = product + addend
    return product.astype(dtype, copy=False)


def _scaled(grad, scale):
    """torch's maybe_multiply: a product by a number (MulBackward1) unless it is 1."""
    return grad if scale == 1 else mul_scalar(grad, scale)


@defop("AddmmBackward0", save=("mat1", "mat2", "beta", "alpha"))
def _addmm(xp, input: Tensor, mat1: Tensor, mat2: Tensor, beta=1, alpha=1):
    if mat1.size and mat2.size:
        _refuse_bool(mat1, "addmm_impl_cpu_")
    return _combine(input, xp.matmul(mat1, mat2), beta, alpha, mat1.dtype)


_addmm.derivatives(
    input=lambda ctx: _scaled(ctx.grad, conj_of(ctx.beta)),
    mat1=lambda ctx: _scaled(_mm(ctx.grad, conj_of(t(ctx.mat2))), conj_of(ctx.alpha)),
    mat2=lambda ctx: _scaled(_mm(conj_of(t(ctx.mat1)), ctx.grad), conj_of(ctx.alpha)))


def _check_addmm_dtypes(input, mat1, mat2):
    for first, name in ((input, "self"), (mat1, "mat1")):
        if first.dtype is not mat2.dtype:
            raise RuntimeError(f"{name} and mat2 must have the same dtype, but got "
                               f"{first.dtype.legacy_name} and {mat2.dtype.legacy_name}")


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    _check_tensors("addmm", input=input, mat1=mat1, mat2=mat2)
    _check_addmm_dtypes(input, mat1, mat2)
    for name, matrix in (("mat1", mat1), ("mat2", mat2)):
        if matrix.ndim != 2:
            raise RuntimeError(f"{name} must be a matrix, got {matrix.ndim}-D tensor")
    if mat1.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({mat1.shape[0]}x"
                           f"{mat1.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    expand(input.detach(), (mat1.shape[0], mat2.shape[1]))  # torch's broadcast check and text
    return _addmm(input, mat1, mat2, beta, alpha)


@defop("AddmvBackward0", save=("mat", "vec", "beta", "alpha"))
def _addmv(xp, input: Tensor, mat: Tensor, vec: Tensor, beta=1, alpha=1):
    if mat.size and vec.size:
        _refuse_bool(mat, "addmv_impl_cpu")
    return _combine(input, _product(xp, xp.matmul, mat, vec), beta, alpha)


_addmv.derivatives(
    input=lambda ctx: _scaled(ctx.grad, conj_of(ctx.beta)),
    mat=lambda ctx: _scaled(outer(ctx.grad, conj_of(ctx.vec)), conj_of(ctx.alpha)),
    vec=lambda ctx: _scaled(_mv(conj_of(t(ctx.mat)), ctx.grad), conj_of(ctx.alpha)))


def addmv(input, mat, vec, *, beta=1, alpha=1):
    _check_tensors("addmv", input=input, mat=mat, vec=vec)
    if input.ndim > 1 or mat.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {max(input.ndim, 1)}, "
                           f"{mat.ndim}, {vec.ndim}")
    if not input.dtype is mat.dtype is vec.dtype:
        raise RuntimeError("addmv input tensors must have the same dtype, but got "
                           f"{input.dtype.legacy_name}, {mat.dtype.legacy_name}, and "
                           f"{vec.dtype.legacy_name}")
    rows = input.shape[0] if input.ndim else mat.shape[0]
    if mat.shape[1] != vec.shape[0] or rows not in (1, mat.shape[0]):
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({mat.shape[0]}x"
                           f"{mat.shape[1]}), vec ({vec.shape[0]})")
    return _addmv(input, mat, vec, beta, alpha)


@defop("BaddbmmBackward0", save=("batch1", "batch2", "beta", "alpha"))
def _baddbmm(xp, input: Tensor, batch1: Tensor, batch2: Tensor, beta=1, alpha=1):
    if batch1.size and batch2.size:
        _refuse_bool(batch1, "baddbmm")
    return _combine(input, xp.matmul(batch1, batch2), beta, alpha, batch1.dtype)


_baddbmm.derivatives(
    input=lambda ctx: _scaled(ctx.grad, conj_of(ctx.beta)),
    batch1=lambda ctx: _scaled(_bmm(ctx.grad, conj_of(transpose(ctx.batch2, 1, 2))),
                               conj_of(ctx.alpha)),
    batch2=lambda ctx: _scaled(_bmm(conj_of(transpose(ctx.batch1, 1, 2)), ctx.grad),
                               conj_of(ctx.alpha)))


def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    _check_tensors("baddbmm", input=input, batch1=batch1, batch2=batch2)
    if input.dtype is not batch1.dtype or input.dtype is not batch2.dtype:
        if input.dtype is batch1.dtype:
            raise RuntimeError(f"expected scalar type {batch1.dtype.legacy_name} but found "
                               f"{batch2.dtype.legacy_name}")
        raise RuntimeError(f"Input dtypes must be the same, got: input "
                           f"{_C_TYPE[input.dtype.name]}, batch1: {_C_TYPE[batch1.dtype.name]}, "
                           f"batch2: {_C_TYPE[batch2.dtype.name]}")
    if batch1.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    size = (batch1.shape[0], batch1.shape[1], batch2.shape[wrap_dim(2, batch2.ndim)])
    _check_batches(batch1, batch2)
    expand(input.detach(), size)
    return _baddbmm(input, batch1, batch2, beta, alpha)


@defop("AddbmmBackward0", save=("batch1", "batch2", "beta", "alpha"))
def _addbmm(xp, input: Tensor, batch1: Tensor, batch2: Tensor, beta=1, alpha=1):
    return _combine(input, xp.matmul(batch1, batch2).sum(0), beta, alpha, batch1.dtype)


def _batches_of(ctx):
    """The gradient of addbmm's sum over the batch: the incoming gradient for every batch."""
    return expand(unsqueeze(ctx.grad, 0), (ctx.batch1_shape[0],) + tuple(ctx.grad.shape))


_addbmm.derivatives(
    input=lambda ctx: _scaled(ctx.grad, conj_of(ctx.beta)),
    batch1=lambda ctx: _scaled(_bmm(_batches_of(ctx), conj_of(transpose(ctx.batch2, 1, 2))),
                               conj_of(ctx.alpha)),
    batch2=lambda ctx: _scaled(_bmm(conj_of(transpose(ctx.batch1, 1, 2)), _batches_of(ctx)),
                               conj_of(ctx.alpha)))


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """beta * input + alpha * (the sum over the batch of batch1 @ batch2)."""
    _check_tensors("addbmm", input=input, batch1=batch1, batch2=batch2)
    size = (batch1.shape[wrap_dim(1, batch1.ndim)], batch2.shape[wrap_dim(2, batch2.ndim)])
    expand(input.detach(), size)  # torch's broadcast check and text come first
    for name, batch in (("batch1", batch1), ("batch2", batch2)):
        if batch.ndim != 3:
            raise RuntimeError(f"{name} must be a 3D tensor")
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")
    if batch1.shape[2] != batch2.shape[1]:
        raise RuntimeError(f"Incompatible matrix sizes for bmm ({batch1.shape[1]}x"
                           f"{batch1.shape[2]} and {batch2.shape[1]}x{batch2.shape[2]})")
    if batch1.shape[0] == 0:  # torch scales input alone, in its dtype, with no dtype check
        for batch in (batch1, batch2):
            reduction.check_grad_dtype(batch, input.dtype)
        batch1, batch2 = batch1.to(input.dtype), batch2.to(input.dtype)
    else:
        _check_addmm_dtypes(input, batch1, batch2)  # torch's addbmm runs addmm
    _check_blas_dtype(input)
    return _addbmm(input, batch1, batch2, *_integral_scales(input, beta, alpha))


def _check_blas_dtype(input):
    if input.dtype.name == "bool":
        raise NotImplementedError("\"addmm_impl_cpu_\" not implemented for 'Bool'")


def _integral_scales(input, beta, alpha):
    """torch truncates addbmm's scales to integers for an integer result."""
    if input.dtype.is_floating_point or input.dtype.is_complex:
        return beta, alpha
    return int(beta), int(alpha)


@defop("AddrBackward0", save=("vec1", "vec2", "beta", "alpha"), promote="common")
def _addr(xp, input: Tensor, vec1: Tensor, vec2: Tensor, beta=1, alpha=1):
    product = xp.multiply.outer(vec1, vec2)
    if product.dtype == xp.bool_:  # scales are booleans too: and, then or
        return (product & bool(alpha)) | (xp.asarray(input) & bool(beta))
    return _combine(input, product, beta, alpha)


_addr.derivatives(
    input=lambda ctx: _scaled(ctx.grad, conj_of(ctx.beta)),
    vec1=lambda ctx: _scaled(_mv(ctx.grad, conj_of(ctx.vec2)), conj_of(ctx.alpha)),
    vec2=lambda ctx: _scaled(_mv(t(ctx.grad), conj_of(ctx.vec1)), conj_of(ctx.alpha)))


def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """beta * input + alpha * outer(vec1, vec2), in the three tensors' common dtype."""
    _check_tensors("addr", input=input, vec1=vec1, vec2=vec2)
    for name, vector in (("vec1", vec1), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"addr: Expected 1-D argument {name}, but got {vector.ndim}-D")
    expand(input.detach(), (vec1.shape[0], vec2.shape[0]))
    result_dtype = _dtype.result_type([t.dtype for t in (input, vec1, vec2) if t.ndim],
                                      [t.dtype for t in (input, vec1, vec2) if not t.ndim], [])
    for name, scale in (("beta", beta), ("alpha", alpha)):
        if isinstance(scale, bool) and result_dtype.name != "bool":
            raise RuntimeError(f"Boolean {name} only supported for Boolean results.")
        if isinstance(scale, float) and not (result_dtype.is_floating_point
                                             or result_dtype.is_complex):
            raise RuntimeError(f"For integral input tensors, argument {name} must not be a "
                               "floating point number.")
    return _addr(input, vec1, vec2, beta, alpha)


def _check_tensors(function, **arguments):
    for position, (name, value) in enumerate(arguments.items(), 1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{function}(): argument '{name}' (position {position}) must be "
                            f"Tensor, not {type(value).__name__}")


# ---- vector products -----------------------------------------------------------------------

@defop("VdotBackward0", save=("input", "other"))
def _vdot(xp, input: Tensor, other: Tensor):
    _refuse_bool(input, "dot")
    return _product(xp, xp.vdot, input, other)


_vdot.derivatives(input=lambda ctx: conj_of(ctx.grad) * ctx.other,
                  other=lambda ctx: ctx.grad * ctx.input)


def vdot(input, other):
    """Dot product of two vectors, conjugating the first (the same as dot for real tensors)."""
    _check_vectors(input, other)
    return _vdot(input, other)


def outer(input, vec2):
    """input as a column times vec2, as torch composes it."""
    for name, vector in (("self", input), ("vec2", vec2)):
        if vector.ndim != 1:
            raise RuntimeError(f"outer: Expected 1-D argument {name}, but got {vector.ndim}-D")
    return mul(reshape(input, input.shape[0], 1), vec2)


ger = outer


def inner(input, other):
    """Contraction over the last dims (tensordot); a product when either is 0-d."""
    if input.ndim == 0 or other.ndim == 0:
        return mul(input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError("inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    return _tensordot(input, other, [-1], [-1])


def kron(input, other):
    """Kronecker product: both operands spread over interleaved dims, multiplied, merged."""
    ndim = max(input.ndim, other.ndim)
    left = (1,) * (ndim - input.ndim) + input.shape
    right = (1,) * (ndim - other.ndim) + other.shape
    if not (_is_row_major(input) and _is_row_major(other) or input.requires_grad
            or other.requires_grad):
        # torch's product then keeps the operand's dim order, and the final view fails (with
        # an input that requires grad, torch's autograd path copies instead)
        raise RuntimeError(VIEW_INCOMPATIBLE)
    input_view = unsafe_view(input, tuple(s for size in left for s in (size, 1)))
    other_view = unsafe_view(other, tuple(s for size in right for s in (1, size)))
    return unsafe_view(mul(input_view, other_view), tuple(a * b for a, b in zip(left, right)))


def _is_row_major(tensor):
    strides = [stride for stride, size in zip(tensor.stride(), tensor.shape) if size > 1]
    return all(a >= b for a, b in zip(strides, strides[1:]))


# ---- tensordot -----------------------------------------------------------------------------

def tensordot(a, b, dims=2, out=None):
    """Contract dims of a with dims of b: the last `dims` of a with the first of b, or two
    lists of dims."""
    if isinstance(dims, Tensor):
        dims = dims.tolist() if dims.numel() > 1 else int(dims.item())
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > min(a.ndim, b.ndim):
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return _tensordot(a, b, list(range(-dims, 0)), list(range(dims)))
    if not isinstance(dims, (tuple, list)):
        raise RuntimeError("tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    dims_a, dims_b = dims
    for name, position, value in (("dims_self", 3, dims_a), ("dims_other", 4, dims_b)):
        if not isinstance(value, (tuple, list)):
            raise TypeError(f"tensordot(): argument '{name}' (position {position}) must be "
                            f"tuple of ints, not {type(value).__name__}")
    return _tensordot(a, b, list(dims_a), list(dims_b))


def _tensordot(a, b, dims_a, dims_b):
    """torch's tensordot: broadcast dims (size 1 on one side) are summed first, then both
    operands are permuted to (kept, contracted) / (contracted, kept) and multiplied by mm; a
    full contraction is a dot (contiguous operands) or a sum of products."""
    if len(dims_a) != len(dims_b):
        raise RuntimeError("both dimension lists should have same length")
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    contracted = 1
    left, right = a, b
    for dim_a, dim_b in zip(dims_a, dims_b):
        size_a, size_b = a.shape[wrap_dim(dim_a, a.ndim)], b.shape[wrap_dim(dim_b, b.ndim)]
        if size_b == 1:
            left = reduction.sum(left, dim_a, keepdim=True)
        elif size_a == 1:
            right = reduction.sum(right, dim_b, keepdim=True)
        elif size_a != size_b:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{size_a} in dim {dim_a} and second has size {size_b} in dim "
                               f"{dim_b}")
        else:
            contracted *= size_a
    contracted_a, contracted_b = _dim_set(dims_a, a.ndim), _dim_set(dims_b, b.ndim)
    kept_a = [d for d in range(a.ndim) if d not in contracted_a]
    kept_b = [d for d in range(b.ndim) if d not in contracted_b]
    left = permute(left, kept_a + dims_a)
    right = permute(right, dims_b + kept_b)
    rows_shape = [a.shape[d] for d in kept_a]
    columns_shape = [b.shape[d] for d in kept_b]
    rows, columns = numel(rows_shape), numel(columns_shape)
    shape = rows_shape + columns_shape
    if rows == 1 and columns == 1:
        if left.is_contiguous() and right.is_contiguous():
            return reshape(dot(flatten(left), flatten(right)), shape)
        return reshape(reduction.sum(mul(squeeze(left), squeeze(right))), shape)
    product = mm(reshape(left, rows, contracted), reshape(right, contracted, columns))
    return reshape(product, shape)


def _dim_set(dims, ndim):
    """The wrapped dims, with torch's error for a repeated one."""
    seen = set()
    for dim in dims:
        wrapped = wrap_dim(dim, ndim)
        if wrapped in seen:
            raise RuntimeError(f"dim {wrapped} appears multiple times in the list of dims")
        seen.add(wrapped)
    return seen


# ---- einsum --------------------------------------------------------------------------------

_ELLIPSIS = "..."


def einsum(*args):
    """Einstein summation, computed as torch computes it: operands aligned by permute,
    diagonal and unsqueeze, then contracted left to right by mul or bmm (sumproduct_pair)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    if isinstance(args[0], Tensor):  # sublist format: operand, [dims], operand, [dims], [out]
        equation = ",".join(_sublist_labels(labels) for labels in args[1::2])
        if len(args) % 2:
            equation += "->" + _sublist_labels(args[-1])
        operands = args[:-1:2] if len(args) % 2 else args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    if not operands:
        raise RuntimeError("einsum(): must provide at least one operand")
    return _einsum(equation, operands)


def _sublist_labels(sublist):
    labels = ""
    for n in sublist:
        if n is Ellipsis:
            labels += _ELLIPSIS
        elif 0 <= n < 52:
            labels += string.ascii_letters[(n + 26) % 52]  # 0-25: A-Z, 26-51: a-z
        else:
            raise ValueError("einsum(): subscript in subscript list is not within the valid "
                             "range [0, 52)")
    return labels


def _einsum(equation, operands):
    arrow = equation.find("->")
    lhs = equation if arrow < 0 else equation[:arrow]
    labels = _operand_labels(lhs, len(operands))
    counts = collections.Counter(label for op in labels for label in op if label != _ELLIPSIS)
    layout = _Layout(_ellipsis_ndim(labels, operands))
    if arrow < 0:  # implicit output: the ellipsis, then the labels seen once, sorted
        layout.place_ellipsis()
        for label in sorted(counts, key=_label_order):
            if counts[label] == 1:
                layout.place(label)
    else:
        _place_output(layout, equation[arrow + 2:], len(lhs) + 2, counts)
    layout.place_contracted(counts)
    aligned = collections.deque(_align(operand, op_labels, i, layout)
                                for i, (operand, op_labels) in enumerate(zip(operands, labels)))
    while len(aligned) > 1:
        aligned.appendleft(_contract_pair(aligned.popleft(), aligned.popleft(), layout))
    result = aligned[0]
    if layout.ndim == layout.out_ndim:
        return result
    if len(operands) > 1:  # the contracted dims have size 1 by now
        return view(result, result.shape[:layout.out_ndim])
    return reduction.sum(result, list(range(layout.out_ndim, layout.ndim)))


def _label_order(label):
    # torch orders labels A-Z before a-z
    return (label.islower(), label)


def _operand_labels(lhs, count):
    """Each operand's labels (letters and _ELLIPSIS), with torch's parse errors."""
    labels, current, i = [[] for _ in range(count)], 0, 0
    while i < len(lhs):
        char = lhs[i]
        if char == ".":
            if _ELLIPSIS in labels[current]:
                raise RuntimeError(f"einsum(): found '.' for operand {current} for which an "
                                   "ellipsis was already found")
            if lhs[i:i + 3] != _ELLIPSIS:
                raise RuntimeError(f"einsum(): found '.' for operand {current} that is not part "
                                   "of any ellipsis")
            labels[current].append(_ELLIPSIS)
            i += 2
        elif char == ",":
            current += 1
            if current >= count:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
        elif char in string.ascii_letters:
            labels[current].append(char)
        elif char != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {i} in the equation "
                               "string, subscripts must be in [a-zA-Z]")
        i += 1
    if current != count - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return labels


def _ellipsis_ndim(labels, operands):
    """The most dims any ellipsis covers; checks each operand's number of subscripts."""
    ellipsis_ndim = 0
    for i, (op_labels, operand) in enumerate(zip(labels, operands)):
        named = len(op_labels) - (_ELLIPSIS in op_labels)
        if _ELLIPSIS in op_labels:
            ellipsis_ndim = max(ellipsis_ndim, operand.ndim - named)
            if named > operand.ndim:
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) "
                                   f"is more than the number of dimensions ({operand.ndim}) for "
                                   f"operand {i}")
        elif named != operand.ndim:
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({named}) does "
                               f"not match the number of dimensions ({operand.ndim}) for operand "
                               f"{i} and no ellipsis was given")
    return ellipsis_ndim


class _Layout:
    """Where each label sits in the aligned operands: the output's dims first (the ellipsis
    where the output has it), then the contracted labels and, if the output lacks it, the
    ellipsis. Alignment records each label's size and how many operands have it (dim_counts)."""

    def __init__(self, ellipsis_ndim):
        self.position, self.sizes = {}, {}
        self.ellipsis_ndim, self.ellipsis_start, self.ndim = ellipsis_ndim, None, 0
        self.ellipsis_sizes = [1] * ellipsis_ndim

    def place_ellipsis(self):
        self.ellipsis_start = self.ndim
        self.ndim += self.ellipsis_ndim

    def place(self, label):
        self.position[label] = self.ndim
        self.ndim += 1

    def place_contracted(self, counts):
        self.out_ndim = self.ndim
        if self.ellipsis_start is None:
            self.place_ellipsis()
        for label in sorted(counts, key=_label_order):
            if label not in self.position:
                self.place(label)
        self.dim_counts = [0] * self.ndim

    def note_size(self, label, size, operand):
        if size == 1:
            return
        seen = self.sizes.get(label, 1)
        if seen not in (1, size):
            raise RuntimeError(f"einsum(): subscript {label} has size {size} for operand "
                               f"{operand} which does not broadcast with previously seen size "
                               f"{seen}")
        self.sizes[label] = size
        self.dim_counts[self.position[label]] += 1

    def note_ellipsis_size(self, j, size, dim, operand):
        if size == 1:
            return
        seen = self.ellipsis_sizes[j]
        if seen not in (1, size):
            raise RuntimeError(f"einsum(): dimension {dim} covered by ellipsis in operand "
                               f"{operand}has size {size} which does not broadcast with "
                               f"previously seen ellipsis with size {seen} for the respective "
                               "dimension")
        self.ellipsis_sizes[j] = size
        self.dim_counts[self.ellipsis_start + j] += 1


def _place_output(layout, rhs, offset, counts):
    """Lay out the explicit output's labels, with torch's errors."""
    i = 0
    while i < len(rhs):
        char = rhs[i]
        if char == ".":
            if layout.ellipsis_start is not None:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if rhs[i:i + 3] != _ELLIPSIS:
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            layout.place_ellipsis()
            i += 2
        elif char in string.ascii_letters:
            if char in layout.position or not counts[char]:
                problem = ("appears more than once in the output" if char in layout.position
                           else "does not appear in the equation for any input operand")
                raise RuntimeError(f"einsum(): output subscript {char} {problem}")
            layout.place(char)
        elif char != " ":
            raise RuntimeError(f"einsum(): invalid subscript given at index {offset + i} in the "
                               "equation string, subscripts must be in [a-zA-Z]")
        i += 1


def _align(operand, labels, index, layout):
    """The operand with one dim per layout position: a repeated label takes the diagonal, a
    missing one becomes a size-1 dim."""
    permutation = [None] * layout.ndim
    op, dim = operand, 0
    for label in labels:
        if label == _ELLIPSIS:
            covered = operand.ndim - (len(labels) - 1)
            for j in range(layout.ellipsis_ndim - covered, layout.ellipsis_ndim):
                layout.note_ellipsis_size(j, op.shape[dim], dim, index)
                permutation[layout.ellipsis_start + j] = dim
                dim += 1
        elif permutation[layout.position[label]] is None:
            layout.note_size(label, op.shape[dim], index)
            permutation[layout.position[label]] = dim
            dim += 1
        else:
            previous = permutation[layout.position[label]]
            if op.shape[dim] != op.shape[previous]:
                raise RuntimeError(f"einsum(): subscript {label} is repeated for operand {index} "
                                   f"but the sizes don't match, {op.shape[dim]} != "
                                   f"{op.shape[previous]}")
            op = movedim(diagonal(op, 0, previous, dim), -1, previous)
    for position, source in enumerate(permutation):
        if source is None:
            op = unsqueeze(op, dim)
            permutation[position] = dim
            dim += 1
    return permute(op, permutation)


def _contract_pair(a, b, layout):
    """Multiply two aligned operands, summing the contracted dims no later operand has."""
    counts = layout.dim_counts
    sum_dims, a_only, b_only = [], [], []
    for dim in range(layout.out_ndim, layout.ndim):
        if a.shape[dim] != 1 and b.shape[dim] != 1:
            counts[dim] -= 1
            if counts[dim] == 1:
                sum_dims.append(dim)
                counts[dim] = 0
        elif counts[dim] == 1:
            if a.shape[dim] != 1:
                a_only.append(dim)
                counts[dim] = 0
            elif b.shape[dim] != 1:
                b_only.append(dim)
                counts[dim] = 0
    if a_only:
        a = reduction.sum(a, a_only, keepdim=True)
    if b_only:
        b = reduction.sum(b, b_only, keepdim=True)
    return _sumproduct_pair(a, b, sum_dims)


def _sumproduct_pair(left, right, sum_dims):
    """(left * right).sum(sum_dims, keepdim=True) as one bmm: dims in both operands are the
    batch, dims in one only are rows or columns (sum_dims are in both, by construction)."""
    if not sum_dims:
        return mul(left, right)
    both, left_only, right_only = [], [], []
    for dim in range(left.ndim):
        if dim in sum_dims:
            continue
        if left.shape[dim] != 1 and right.shape[dim] != 1:
            both.append(dim)
        elif left.shape[dim] != 1:
            left_only.append(dim)
        else:
            right_only.append(dim)
    order = both + left_only + sum_dims + right_only
    shape = [left.shape[d] for d in both + left_only] + [1] * len(sum_dims) + [
        right.shape[d] for d in right_only]
    batch, rows = numel(shape[:len(both)]), numel(shape[len(both):len(both) + len(left_only)])
    inner, columns = numel(left.shape[d] for d in sum_dims), numel(shape[len(order) -
                                                                       len(right_only):])
    left = reshape(permute(left, order), batch, rows, inner)
    right = reshape(permute(right, both + sum_dims + right_only + left_only), batch, inner,
                    columns)
    inverse_order = sorted(range(len(order)), key=order.__getitem__)
    return permute(view(bmm(left, right), shape), inverse_order)


FUNCTIONS = ("addbmm addmm addmv addr baddbmm bmm dot einsum ger inner kron matmul mm mv outer "
             "tensordot vdot").split()
METHODS = [name for name in FUNCTIONS if name not in ("einsum", "tensordot")]
LINALG_FUNCTIONS = ["matmul"]
