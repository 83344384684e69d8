"""embedding_bag: the sum, mean or max of the embedding rows of each bag of indices, without
building the (indices, embedding_dim) tensor of rows; one EmbeddingBagBackward0 node, as torch.

The wrapper turns input, offsets and padding_idx into the positions that count (padding rows do
not), the row each one reads and the bag it goes to; the ops see only those.
"""
import numpy as np

from .. import _backend
from .._tensor import Tensor
from ..autograd import grad_mode
from ._define import defop
from ._inplace import inplace
from .activation import _embedding_renorm
from .grid_sampling import constant_like
from .indexing import _gather, _masked_fill, index_select_op, scatter_add_into_zeros
from .reduction import sum
from .scatter import _index_add
from .shape import unsqueeze, zeros_of

_MODES = ("sum", "mean", "max")


# ---- sum and mean: each kept position adds its row, times its share, into its bag ----------

@defop("EmbeddingBagBackward0", save=("weight", "per_sample_weights", "rows", "bags", "shares",
                                      "grad_shares", "positions", "n_bags"))
def _embedding_bag_sum(xp, weight: Tensor, rows, bags, shares, grad_shares, positions, n_bags,
                       per_sample_weights: Tensor = None):
    values = weight[rows] * shares[:, None].astype(weight.dtype)
    if per_sample_weights is not None:
        values = values * per_sample_weights[positions][:, None]
    result = xp.zeros((n_bags, weight.shape[1]), weight.dtype)
    xp.add.at(result, bags, values)
    return result


def _bag_sum_weight_grad(ctx):
    """Each bag's gradient into the rows it read, times the positions' shares (and 1/count of
    the row with scale_grad_by_freq)."""
    grad = index_select_op(ctx.grad, 0, ctx.bags) * constant_like(ctx.grad,
                                                                  ctx.grad_shares[:, None])
    if ctx.per_sample_weights is not None:
        grad = grad * unsqueeze(index_select_op(ctx.per_sample_weights, 0, ctx.positions), 1)
    return _index_add(zeros_of(grad, ctx.weight_shape), 0, ctx.rows, grad)


def _bag_sum_sample_weight_grad(ctx):
    """A position's weight meets its row in its bag's gradient: their dot product (0 for the
    positions padding_idx leaves out)."""
    dots = sum(index_select_op(ctx.grad, 0, ctx.bags) * index_select_op(ctx.weight, 0, ctx.rows),
               1)
    return _index_add(zeros_of(dots, ctx.per_sample_weights_shape), 0, ctx.positions, dots)


_embedding_bag_sum.derivatives(weight=_bag_sum_weight_grad,
                               per_sample_weights=_bag_sum_sample_weight_grad)


# ---- max: each bag's feature d is row maxima[b, d]'s ---------------------------------------

@defop("EmbeddingBagBackward0", save=("maxima", "empty"))
def _embedding_bag_max(xp, weight: Tensor, maxima, empty, per_sample_weights: Tensor = None):
    """per_sample_weights is always None: torch's node keeps an edge for it all the same."""
    picked = _gather.forward(xp, weight, 0, maxima)
    return xp.where(empty[:, None], 0, picked).astype(weight.dtype)


_embedding_bag_max.derivatives(weight=lambda ctx: scatter_add_into_zeros(
    _masked_fill(ctx.grad, _backend.array_module(ctx.empty).broadcast_to(ctx.empty[:, None],
                                                                         ctx.maxima.shape), 0),
    ctx.weight_shape, 0, ctx.maxima))


def _maxima(xp, weight, rows, bags, n_bags):
    """Per bag and feature, the row holding the maximum (the first, as torch), and which bags
    are empty."""
    counts = xp.bincount(bags, minlength=n_bags)
    width = int(counts.max()) if counts.size else 0
    slots = xp.arange(rows.size) - (xp.cumsum(counts) - counts)[bags]
    values = xp.full((n_bags, width, weight.shape[1]), -np.inf, weight.dtype)
    values[bags, slots] = weight[rows]
    table = xp.zeros((n_bags, width), np.int64)
    table[bags, slots] = rows
    if not width:
        return xp.zeros((n_bags, weight.shape[1]), np.int64), counts == 0
    best = xp.argmax(values, axis=1)
    return xp.take_along_axis(table, best, axis=1), counts == 0


# ---- checks and the public function --------------------------------------------------------

def _bags_of(xp, input, offsets, include_last_offset):
    """Flat indices, each position's bag (-1: before the first), and the number of bags."""
    if input.ndim == 2:
        length = input.shape[1]
        bags = xp.repeat(xp.arange(input.shape[0]), length)
        return input._data.reshape(-1), bags, input.shape[0]
    indices, starts = input._data, offsets._data.astype(np.int64)
    if starts.size and starts[0] != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {int(starts[0])}\n"
                         "[ torch.LongTensor{} ]")  # torch's check prints the offsets' type
    if starts.size and starts[-1] > indices.size:
        raise RuntimeError(f"offsets[-1] can not be greater than input's length {indices.size} "
                           f"but got offsets[-1] of {int(starts[-1])}")
    if include_last_offset:  # torch's last bag still runs to the end of input
        starts = starts[:-1]
    return indices, xp.searchsorted(starts, xp.arange(indices.size), side="right") - 1, starts.size


def _frequencies(xp, indices, num_weights):
    """The count torch divides each row's gradient by with scale_grad_by_freq. Its CPU kernel
    reads the count of the k-th smallest index for the k-th distinct row, not that row's own
    count, and so does this."""
    ordered = xp.sort(indices.reshape(-1))
    counts = xp.bincount(ordered, minlength=num_weights)
    distinct = xp.unique(ordered)
    result = xp.ones(num_weights)
    result[distinct] = counts[ordered[:distinct.size]]
    return result


def _check_embedding_bag(input, weight, offsets, mode, scale_grad_by_freq, sparse,
                         per_sample_weights):
    if per_sample_weights is not None and input.shape != per_sample_weights.shape:
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) "
                         "is not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.ndim}")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("max mode does not support sparse weights")
    for name, tensor in (("indices", input), ("offsets", offsets)):
        if tensor is not None and tensor.dtype.name not in ("int64", "int32"):
            raise RuntimeError(f"Expected tensor for argument #1 '{name}' to have one of the "
                               "following scalar types: Long, Int; but got torch."
                               f"{tensor.dtype.legacy_name}Tensor instead (while checking "
                               "arguments for embedding_bag)")


def _check_after_renorm(xp, input, weight, mode, per_sample_weights, padding_idx):
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if not weight.dtype.is_floating_point:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have one of the "
                           "following scalar types: Half, BFloat16, Float, Double; but got "
                           f"torch.{weight.dtype.legacy_name}Tensor instead (while checking "
                           "arguments for embedding_bag)")
    if per_sample_weights is not None and per_sample_weights.dtype is not weight.dtype:
        raise RuntimeError("Expected tensor for argument #1 'weight' to have the same type as "
                           "tensor for argument #1 'per_sample_weights'; but type torch."
                           f"{weight.dtype.legacy_name}Tensor does not equal torch."
                           f"{per_sample_weights.dtype.legacy_name}Tensor (while checking "
                           "arguments for embedding_bag)")
    size = weight.shape[0]
    if padding_idx is not None and not -size <= padding_idx < size:
        raise RuntimeError("padding_idx must be within the number of embeddings, "
                           f"-{size} through {size - 1}, but got {padding_idx}")
    outside = xp.flatnonzero((input._data < 0) | (input._data >= size))
    if outside.size:
        raise RuntimeError(f"Index {int(outside[0])} of input takes value "
                           f"{int(input._data.reshape(-1)[outside[0]])} which is not in the valid "
                           f"range [0, {size})")


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    """The sum, mean or max of the rows of weight each bag of input picks. Differs from torch:
    sparse=True gives a dense gradient (no sparse tensors); with include_last_offset the last
    bag runs to the end of input, as torch's kernel for float64, max mode or a padding_idx
    (its float32 sum and mean stop at the last offset)."""
    _check_embedding_bag(input, weight, offsets, mode, scale_grad_by_freq, sparse,
                         per_sample_weights)
    if max_norm is not None:
        with grad_mode.no_grad():
            inplace(_embedding_renorm, weight, input._data, max_norm, norm_type)
    xp = _backend.array_module(input._data)
    _check_after_renorm(xp, input, weight, mode, per_sample_weights, padding_idx)
    indices, bags, n_bags = _bags_of(xp, input, offsets, include_last_offset)
    kept = bags >= 0
    if padding_idx is not None:
        kept &= indices != padding_idx % weight.shape[0]
    positions = xp.flatnonzero(kept)
    rows, bags = indices[positions].astype(np.int64), bags[positions]
    if mode == "max":
        maxima, empty = _maxima(xp, weight._data, rows, bags, n_bags)
        return _embedding_bag_max(weight, maxima, empty)
    shares = xp.ones(rows.size)
    if mode == "mean":
        shares /= xp.bincount(bags, minlength=n_bags)[bags]
    grad_shares = shares
    if scale_grad_by_freq:
        grad_shares = shares / _frequencies(xp, indices, weight.shape[0])[rows]
    if per_sample_weights is not None and input.ndim == 2:
        per_sample_weights = per_sample_weights.reshape(-1)
    return _embedding_bag_sum(weight, rows, bags, shares, grad_shares, positions, n_bags,
                              per_sample_weights)


NN_FUNCTIONS = ["embedding_bag"]
