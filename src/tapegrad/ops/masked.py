"""torch.masked: reductions and normalisations that see only the elements where a boolean
mask (broadcast to the input's shape) is True.

torch composes each from ordinary ops, so do we, in the same order: the masked-out elements
are replaced by the reduction's identity (0 for sum, -inf for amax, nan for median, ...) with
`where`, and the plain op runs on the result. grad_fn names, gradients (zero at masked-out
elements) and double backward come from the ops composed. A fully masked-out slice gives
what the identity gives: 0 for sum, -inf for amax, nan for mean, median, softmax and var.
"""
import numpy as np

from .. import _creation, _dtype
from . import binary_math, loss, pointwise, reduction, sorting, unary
from .reduction import vector_norm
from .shape import broadcast_to

# torch.masked's names of the two kinds, for _output_mask
_REDUCTIONS = frozenset(("sum", "prod", "amax", "amin", "argmax", "argmin", "mean", "median",
                         "norm", "var", "std", "logsumexp"))
_NORMALIZATIONS = frozenset(("softmax", "log_softmax", "softmin", "normalize", "cumsum",
                             "cumprod"))
_SMALL_INTEGERS = ("bool", "uint8", "int8", "int16", "int32")  # summed in int64


# ---- masks and identities -----------------------------------------------------------------

def _reduction_identity(op_name, input, *args):
    """The 0-d tensor the masked-out elements become before the reduction op_name runs."""
    return _creation.tensor(_identity_value(op_name, input.dtype, *args), dtype=input.dtype)


def _identity_value(op_name, dtype, *args):
    if op_name in ("sum", "cumsum"):
        return 0
    if op_name in ("prod", "cumprod"):
        return 1
    if op_name == "norm":
        return np.inf if args and args[0] == -np.inf else 0
    if op_name == "median":
        return np.nan
    if op_name in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        lowest = op_name not in ("amin", "argmin")
        if dtype.is_floating_point or dtype.is_complex and op_name == "logsumexp":
            return -np.inf if lowest else np.inf
        if dtype.is_signed or dtype is _dtype.uint8:
            limits = np.iinfo(dtype.numpy)
            return int(limits.min if lowest else limits.max)
    raise NotImplementedError(f"identity of {op_name} on {dtype} input")


def _canonical_dim(dim, ndim):
    """dim as a sorted tuple of non-negative dims; None (or ()) means all of them."""
    if dim == ():
        dim = None
    if dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, *args, **kwargs):
    """The mask= keyword as a bool tensor of input's shape."""
    mask = kwargs.get("mask")
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = broadcast_to(mask, input.shape)
    return mask.to(dtype=_dtype.bool)


def _any(input, dims, keepdim):
    for d in reversed(dims):
        input = input.any(dim=d, keepdim=keepdim)
    return input


def _output_mask(op, input, *args, **kwargs):
    """Where the result of the masked op `op` called so is defined: any element of a reduced
    slice unmasked, or the input's mask for normalisations."""
    if not callable(op):
        raise ValueError(f"_output_mask expected masked operation (got {type(op).__name__} "
                         "object)")
    if op.__name__ in _REDUCTIONS:
        if op.__name__ == "norm":
            args = args[1:]  # the ord argument
        dim = args[0] if args else kwargs.get("dim")
        mask = _input_mask(input, *args, **kwargs)
        return _any(mask, _canonical_dim(dim, input.ndim), bool(kwargs.get("keepdim", False)))
    if op.__name__ in _NORMALIZATIONS:
        return _input_mask(input, *args, **kwargs)
    raise ValueError(f"_output_mask expected masked operation (got callable {op.__module__}."
                     f"{op.__name__})")


def _combine_input_and_mask(op_name, input, mask, *args):
    """input with its masked-out elements replaced by op_name's identity."""
    if mask is None:
        return input
    return pointwise.where(_input_mask(input, mask=mask), input,
                           _reduction_identity(op_name, input, *args))


def _summed_dtype(input, dtype):
    """sum and prod: integers narrower than int64 (and bools) are summed in int64."""
    if dtype is None:
        return _dtype.int64 if input.dtype.name in _SMALL_INTEGERS else input.dtype
    return dtype


# ---- reductions ---------------------------------------------------------------------------

def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _summed_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    return reduction.sum(_combine_input_and_mask("sum", input, mask), dims, bool(keepdim),
                         dtype=dtype)


def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = _summed_dtype(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    result = _combine_input_and_mask("prod", input, mask).to(dtype=dtype)
    for d in reversed(dims):  # torch's prod takes one dim at a time
        result = result.prod(dim=d, keepdim=bool(keepdim))
    return result


def cumsum(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return reduction.cumsum(_combine_input_and_mask("sum", input, mask), d,
                            dtype=dtype).to(dtype=dtype)


def cumprod(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return reduction.cumprod(_combine_input_and_mask("prod", input, mask), d,
                             dtype=dtype).to(dtype=dtype)


def amax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("amax", input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return reduction.amax(masked, dims, bool(keepdim)).to(dtype=dtype)


def amin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("amin", input, mask)
    dims = _canonical_dim(dim, masked.ndim)
    return reduction.amin(masked, dims, bool(keepdim)).to(dtype=dtype)


def argmax(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """The index of the largest unmasked element, in input's dtype (as torch gives it)."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("argmax", input, mask)
    return reduction.argmax(masked, dim, bool(keepdim)).to(dtype=dtype)


def argmin(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("argmin", input, mask)
    return reduction.argmin(masked, dim, bool(keepdim)).to(dtype=dtype)


def _counts(input, dim, keepdim, mask):
    """How many elements each reduced slice has unmasked (int64), and the mask as given to
    the masked sum (None for no mask)."""
    if mask is None:
        ones = _creation.ones(input.shape, dtype=_dtype.int64)
        return sum(ones, dim, keepdim=keepdim), None
    mask = _input_mask(input, mask=mask)
    return mask.sum(dim=dim, keepdim=bool(keepdim)), mask


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (dtype.is_floating_point or dtype.is_complex):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    count, mask = _counts(input, dim, keepdim, mask)
    return sum(input, dim, keepdim=keepdim, dtype=dtype, mask=mask) / count


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """The lower median of the unmasked elements along dim (nan for none)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = input.dtype.is_floating_point
    if not is_float:
        input = input.to(dtype=_dtype.float32)
    masked = _combine_input_and_mask("median", input, mask)
    output = sorting.nanmedian(masked, d, keepdim).values
    if is_float:
        return output
    if output.isnan().any():
        raise ValueError("masked median expects no fully masked out rows if dtype is not "
                         "floating point")
    return output.to(dtype=dtype)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    dims = _canonical_dim(dim, input.ndim)
    masked = _combine_input_and_mask("logsumexp", input, mask)
    return reduction.logsumexp(masked, dims, keepdim=keepdim).to(dtype=dtype)


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """log(exp(input) + exp(other)), a masked-out element of either counting as -inf."""
    dtype = input.dtype if dtype is None else dtype
    return binary_math.logaddexp(_combine_input_and_mask("logaddexp", input, input_mask),
                                 _combine_input_and_mask("logaddexp", other, other_mask)
                                 ).to(dtype=dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("norm", input, mask, ord)
    return vector_norm(masked, ord, _canonical_dim(dim, input.ndim), bool(keepdim),
                       dtype=dtype)


def _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt):
    """sum((x - mean)^2) / max(count - correction, 0) over the unmasked elements."""
    if unbiased is not None and correction is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    if correction is None:
        correction = 1.0 if unbiased is None or unbiased else 0.0
    correction = float(correction)
    if dtype is None:
        dtype = input.dtype
        if not (dtype.is_floating_point or dtype.is_complex):
            dtype = _dtype.float32
    compute_dtype = dtype if dtype.is_floating_point or dtype.is_complex else _dtype.float32
    count, mask = _counts(input, dim, True, mask)
    sample_mean = pointwise.div(sum(input, dim, keepdim=True, dtype=dtype, mask=mask), count)
    x = pointwise.sub(input, sample_mean)
    total = sum(x * x.conj(), dim, keepdim=keepdim, dtype=compute_dtype, mask=mask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = pointwise.sub(count.to(compute_dtype.to_real()), correction)
        count = pointwise.maximum(count, count.new_zeros([]))
    output = pointwise.div(total, count).to(dtype=dtype)
    return unary.sqrt(output) if take_sqrt else output


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, take_sqrt=True)


# ---- normalisations -----------------------------------------------------------------------

def softmax(input, dim, *, dtype=None, mask=None):
    """Softmax over the unmasked elements (masked-out ones are 0; nan where all are)."""
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return loss.softmax(_combine_input_and_mask("amax", input, mask), d, dtype=dtype)


def log_softmax(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return loss.log_softmax(_combine_input_and_mask("amax", input, mask), d, dtype=dtype)


def softmin(input, dim, *, dtype=None, mask=None):
    dtype = input.dtype if dtype is None else dtype
    d = _canonical_dim(dim, input.ndim)[0]
    return loss.softmin(_combine_input_and_mask("amin", input, mask), d, dtype=dtype)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """input divided by its masked ord-norm along dim (at least eps); masked-out elements 0."""
    dtype = input.dtype if dtype is None else dtype
    masked = _combine_input_and_mask("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return pointwise.div(masked, pointwise.maximum(size, size.new_full([], eps)))


MASKED_FUNCTIONS = {function.__name__: function for function in (
    sum, prod, cumsum, cumprod, amax, amin, argmax, argmin, mean, median, norm, var, std,
    softmax, log_softmax, softmin, normalize, logaddexp, logsumexp, _input_mask, _output_mask)}
