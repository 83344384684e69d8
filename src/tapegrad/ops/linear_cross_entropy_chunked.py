"""torch's chunked linear_cross_entropy (options given): the logits are made a few batch rows
at a time and never kept whole. As torch's custom ops:

- mean/sum: the gradients are computed in the forward and scaled by the incoming gradient in
  backward; without options.allow_retain_graph they are handed over once (a second backward
  raises torch's error); backward is not differentiable again in the inputs (as torch's);
- none: backward recomputes the gradients chunk by chunk, folding in the incoming gradient.

Each op's tensor inputs are those torch's node has edges for: input, linear_weight, target,
then linear_bias and weight when given.
"""
import inspect


from .. import _backend
from .._tensor import Tensor
from ..autograd import grad_mode
from . import reduction
from ._define import defop
from .linalg import check_mm_dtypes, matmul
from .shape import squeeze, transpose, unsqueeze

_TWICE = ("linear_cross_entropy chunked backward called twice; retain_graph=True / double "
          "backward are not supported.")


def _chunks(xp, input, linear_weight, target, linear_bias, weight, ignore_index, chunk_size):
    """(rows, per-row losses, d loss_row / d logits) for each chunk of batch rows; ignored
    rows get 0 and the class weights scale both."""
    classes = linear_weight.shape[0]
    for start in range(0, input.shape[0], chunk_size):
        rows = slice(start, start + chunk_size)
        logits = input[rows] @ linear_weight.T
        if linear_bias is not None:
            logits = logits + linear_bias
        kept = target[rows] != ignore_index
        picked = xp.where(kept, target[rows], 0)
        if (picked < 0).any() or (picked >= classes).any():
            bad = picked[(picked < 0) | (picked >= classes)][0]
            raise RuntimeError(f"index {bad} is out of bounds for dimension 1 with size "
                               f"{classes}")
        scale = kept.astype(logits.dtype) * (1 if weight is None else weight[picked])
        shifted = logits - logits.max(axis=1, keepdims=True)
        exps = xp.exp(shifted)
        totals = exps.sum(axis=1, keepdims=True)
        positions = xp.arange(len(picked))
        losses = (xp.log(totals[:, 0]) - shifted[positions, picked]) * scale
        logits_grad = exps / totals
        logits_grad[positions, picked] -= 1
        yield rows, losses, logits_grad * scale[:, None], scale


def _op(node_name, name, tensors, attributes, forward, save):
    """An op whose tensor inputs are `tensors` (torch's edges), over a shared forward."""
    parameters = [inspect.Parameter("xp", inspect.Parameter.POSITIONAL_ONLY)]
    parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                     annotation=Tensor) for n in tensors]
    parameters += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                   for n in attributes]

    def variant(xp, *args):
        given = dict(zip(tensors, args))
        return forward(xp, *(given.get(n) for n in _TENSORS), *args[len(tensors):])
    variant.__signature__ = inspect.Signature(parameters)
    return defop(node_name, save=tuple(n for n in save if n in (*tensors, *attributes)),
                 name=name)(variant)


_TENSORS = ("input", "linear_weight", "target", "linear_bias", "weight")


# ---- mean and sum: gradients made in the forward ------------------------------------------

def _reduced_forward(xp, input, linear_weight, target, linear_bias, weight, reduction_,
                     ignore_index, chunk_size, wanted, handed):
    total, denominator = 0.0, 0.0
    grads = {n: xp.zeros_like(a) for n, a in (("input", input), ("linear_weight", linear_weight),
                                            ("linear_bias", linear_bias)) if n in wanted}
    for rows, losses, logits_grad, scale in _chunks(xp, input, linear_weight, target,
                                                    linear_bias, weight, ignore_index,
                                                    chunk_size):
        total, denominator = total + losses.sum(), denominator + scale.sum()
        if "input" in grads:
            grads["input"][rows] = logits_grad @ linear_weight
        if "linear_weight" in grads:
            grads["linear_weight"] += logits_grad.T @ input[rows]
        if "linear_bias" in grads:
            grads["linear_bias"] += logits_grad.sum(axis=0)
    divisor = denominator if reduction_ == "mean" else 1.0
    handed.update({n: g / divisor for n, g in grads.items()})
    return xp.asarray(total / divisor, input.dtype)


def _handed_over(name):
    """The precomputed gradient times the incoming one; taken once unless retained."""
    def formula(ctx):
        grad = ctx.handed.get(name) if ctx.allow_retain_graph else ctx.handed.pop(name, None)
        if grad is None:
            raise RuntimeError(_TWICE)
        return ctx.grad * Tensor._make(grad)
    return formula


def _reduced_op(with_bias, with_weight):
    tensors = ("input", "linear_weight", "target") + ("linear_bias",) * with_bias \
        + ("weight",) * with_weight
    op = _op("GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_defaultBackward",
             f"_linear_cross_entropy_chunked{'_bias' * with_bias}{'_weight' * with_weight}",
             tensors, ("reduction", "ignore_index", "chunk_size", "wanted", "handed",
                       "allow_retain_graph"),
             lambda xp, *args: _reduced_forward(xp, *args[:-1]), ("handed", "allow_retain_graph"))
    op.derivatives(**{n: _handed_over(n) for n in ("input", "linear_weight", "linear_bias")
                      if n in tensors})
    # A formula takes its gradient out of `handed`: run twice (on arrays, then again on
    # Tensors, Note [Formulas on arrays]) the second run would find it gone.
    op.on_arrays = False
    return op


# ---- none: gradients recomputed in backward -------------------------------------------------

def _unreduced_forward(xp, input, linear_weight, target, linear_bias, weight, ignore_index,
                       chunk_size):
    losses = [chunk[1] for chunk in _chunks(xp, input, linear_weight, target, linear_bias,
                                            weight, ignore_index, chunk_size)]
    # in the input's dtype: ml_dtypes' bfloat16 matmul gives float32 logits
    return xp.concatenate(losses).astype(input.dtype, copy=False) if losses else xp.zeros(
        0, input.dtype)


def _logits_grad(ctx):
    """d loss_row / d logits for every row (a constant: torch's backward is not
    differentiable again), scaled by the incoming gradient."""
    if "logits_grad" not in vars(ctx):
        arrays = [None if getattr(ctx, n, None) is None else getattr(ctx, n)._data
                  for n in _TENSORS]
        xp = _backend.array_module(arrays[0])
        chunks = [chunk[2] for chunk in _chunks(xp, *arrays, ctx.ignore_index, ctx.chunk_size)]
        logits_grad = xp.concatenate(chunks).astype(arrays[0].dtype, copy=False)  # as above
        ctx.logits_grad = unsqueeze(ctx.grad, 1) * Tensor._make(logits_grad)
    return ctx.logits_grad


def _unreduced_op(with_bias, with_weight):
    tensors = ("input", "linear_weight", "target") + ("linear_bias",) * with_bias \
        + ("weight",) * with_weight
    op = _op("GeneratedBackwardFor_torch_nn__linear_cross_entropy_batch_chunked_no_reduction_"
             "defaultBackward",
             f"_linear_cross_entropy_chunked_none{'_bias' * with_bias}{'_weight' * with_weight}",
             tensors, ("ignore_index", "chunk_size"), _unreduced_forward,
             (*_TENSORS, "ignore_index", "chunk_size"))
    formulas = {
        "input": lambda ctx: matmul(_logits_grad(ctx), ctx.linear_weight.detach()),
        "linear_weight": lambda ctx: matmul(transpose(_logits_grad(ctx), 0, 1),
                                            ctx.input.detach()),
        "linear_bias": lambda ctx: reduction.sum(_logits_grad(ctx), 0)}
    op.derivatives(**{n: f for n, f in formulas.items() if n in tensors})
    return op


_OPS = {(kind, with_bias, with_weight): make(with_bias, with_weight)
        for kind, make in (("reduced", _reduced_op), ("none", _unreduced_op))
        for with_bias in (False, True) for with_weight in (False, True)}


def chunked_linear_cross_entropy(input, linear_weight, target, linear_bias, weight, reduction,
                                 ignore_index, options):
    """The chunked path of F.linear_cross_entropy (its shape checks done by the caller)."""
    if getattr(options, "acc_dtype", None) is None and not input.dtype.is_floating_point:
        # torch takes the accumulation dtype from the input, and checks it first
        raise ValueError("acc_dtype must be one of {None, torch.float16, torch.bfloat16, "
                         f"torch.float32, torch.float64}}, got {input.dtype}. Pass "
                         "acc_dtype=None to let the op pick automatically.")
    check_mm_dtypes(input, linear_weight)
    batched = input.ndim == 2
    if not batched:
        input, target = unsqueeze(input, 0), unsqueeze(target, 0)
    size = options.batch_chunk_size
    chunk_size = max(1, min(size, input.shape[0]) if size else input.shape[0])
    optional = [t for t in (linear_bias, weight) if t is not None]
    key = (linear_bias is not None, weight is not None)
    if reduction == "none":
        result = _OPS[("none", *key)](input, linear_weight, target, *optional, ignore_index,
                                      chunk_size)
    else:
        recording = grad_mode.is_recording()
        wanted = {n for n, t in (("input", input), ("linear_weight", linear_weight),
                                 ("linear_bias", linear_bias))
                  if recording and t is not None and t.requires_grad}
        result = _OPS[("reduced", *key)](input, linear_weight, target, *optional, reduction,
                                         ignore_index, chunk_size, wanted, {},
                                         bool(options.allow_retain_graph))
    return result if batched else squeeze(result, 0)
