"""linear_cross_entropy: cross_entropy of the logits of a linear layer, composed as torch's
reference path composes it (linear, reshape, cross_entropy), or torch's chunked path when
options are given."""
import math

from .activation import linear
from .linear_cross_entropy_chunked import chunked_linear_cross_entropy
from .loss import cross_entropy
from .shape import reshape
from .._warnings import warn


def _check_shapes(input, linear_weight, linear_bias):
    """(batch shape, class count, K-dimensional out_features), or torch's error."""
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.ndim}")
    batches, in_features = tuple(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    classes, out_features = linear_weight.shape[0], tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes, *out_features):
        raise RuntimeError(f"expected linear_bias shape {(classes, *out_features)}, got "
                           f"{tuple(linear_bias.shape)}")
    if out_features and not batches:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    return batches, classes, out_features


def _warn_options_ignored(reduction, label_smoothing, target, out_features, linear_bias):
    bias_shape = None if linear_bias is None else tuple(linear_bias.shape)
    warn("linear_cross_entropy: ``options`` ignored; chunked path needs reduction in "
         "{'mean','sum','none'}, label_smoothing == 0, target.dtype == int64, "
         f"out_features == (). Got reduction={reduction!r}, label_smoothing="
         f"{label_smoothing}, target.dtype={target.dtype}, out_features="
         f"{out_features}, tracing=False, linear_bias.shape={bias_shape}.")


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...); the logits get
    linear_weight's class dims (C, d1, ..., dK). With `options` (torch's
    LinearCrossEntropyOptions, or any object with its batch_chunk_size and
    allow_retain_graph) the batch is processed in chunks, as torch's chunked ops do."""
    batches, classes, out_features = _check_shapes(input, linear_weight, linear_bias)
    logits_shape = (*batches, classes, *out_features)
    # a target of the logits' shape holds class probabilities (cross_entropy's own test)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None and (out_features or reduction not in ("mean", "sum", "none")
                                or label_smoothing != 0.0 or target.dtype.name != "int64"):
        _warn_options_ignored(reduction, label_smoothing, target, out_features, linear_bias)
    elif options is not None:
        return chunked_linear_cross_entropy(input, linear_weight, target, linear_bias, weight,
                                            reduction, ignore_index, options)
    if out_features:
        rows = math.prod(out_features, start=classes)
        linear_weight = reshape(linear_weight, (rows, input.shape[-1]))
        if linear_bias is not None:
            linear_bias = reshape(linear_bias, (rows,))
    logits = reshape(linear(input, linear_weight, linear_bias), logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)


NN_FUNCTIONS = ["linear_cross_entropy"]
