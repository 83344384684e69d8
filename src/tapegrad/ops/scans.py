"""Running extrema and the running log-sum-exp: cummax, cummin, logcumsumexp (cumsum and
cumprod live with the sums in reduction.py)."""
import math

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import is_recording
from ._checks import wrap_dim
from .complex_parts import conj_of
from ._define import defop
from .pointwise import where
from .reduction import numpy_keywords, return_type, sum, value_selecting_backward
from .reordering import flip
from .shape import constant_beside, movedim, unsqueeze
from .unary import abs, exp, log

cummax_return = return_type("cummax", ("values", "indices"))
cummin_return = return_type("cummin", ("values", "indices"))


def _running_extremum(xp, accumulate, input, dim):
    """(values, int64 indices): torch moves the index to every later position whose value
    equals the running extremum (ties go to the latest), and to every NaN, which then sticks."""
    work = input.reshape(input.shape or (1,))
    values = accumulate(work, axis=dim)
    positions = xp.arange(work.shape[dim]).reshape((-1,) + (1,) * (work.ndim - dim - 1))
    updates = (work == values) | (work != work)
    indices = xp.maximum.accumulate(xp.where(updates, positions, 0), axis=dim)
    return values.reshape(input.shape), indices.astype(xp.int64).reshape(input.shape)


@defop("CummaxBackward0", save=("dim", "result1"))
def _cummax(xp, input: Tensor, dim):
    return _running_extremum(xp, xp.maximum.accumulate, input, dim)


@defop("CumminBackward0", save=("dim", "result1"))
def _cummin(xp, input: Tensor, dim):
    return _running_extremum(xp, xp.minimum.accumulate, input, dim)


def _running_extremum_backward(ctx):
    """Each position's gradient goes to the element its running extremum came from."""
    if ctx.grad.numel() == 0:
        return ctx.grad
    return value_selecting_backward(ctx.grad, ctx.result1, ctx.input_shape, ctx.dim, True)


_cummax.derivatives(input=_running_extremum_backward)
_cummin.derivatives(input=_running_extremum_backward)


@numpy_keywords
def cummax(input, dim):
    """Running maximum along dim and the index it came from."""
    return cummax_return(*_cummax(input, wrap_dim(dim, input.ndim)))


@numpy_keywords
def cummin(input, dim):
    return cummin_return(*_cummin(input, wrap_dim(dim, input.ndim)))


@defop("LogcumsumexpBackward0", save=("input", "result", "dim"), promote="float")
def _logcumsumexp(xp, input: Tensor, dim):
    # accumulated in double and rounded once per element, as torch's CPU kernel
    work = input.reshape(input.shape or (1,))
    if xp.iscomplexobj(work):
        running = _complex_logcumsumexp(xp, work.astype(xp.complex128), dim)
    else:
        running = xp.logaddexp.accumulate(work.astype(xp.float64), axis=dim)
    return running.astype(input.dtype).reshape(input.shape)


def _complex_logcumsumexp(xp, work, dim):
    """NumPy's logaddexp has no complex loop: one step along dim at a time, each taking the term
    of larger real part out as torch's does, so the imaginary part is a sum of the inputs' (it is
    not brought back into (-pi, pi])."""
    running = xp.moveaxis(work.copy(), dim, 0)
    with xp.errstate(invalid="ignore", over="ignore"):
        for i in range(1, running.shape[0]):
            total, term = running[i - 1], running[i]
            smaller = xp.where(term.real < total.real, term, total)
            larger = xp.where(term.real < total.real, total, term)
            step = xp.log1p(xp.exp(smaller - larger)) + larger
            # both real parts infinite: exp(smaller - larger) is NaN, the sum is plain
            infinite = xp.isinf(smaller.real) & (smaller.real == larger.real)
            plain = xp.where(smaller.real < 0, smaller, xp.log(xp.exp(smaller) + xp.exp(larger)))
            running[i] = xp.where(infinite, plain, step)
    return xp.moveaxis(running, 0, dim)


def _reversed_logcumsumexp(input, dim):
    return flip(_logcumsumexp(flip(input, (dim,)), dim), (dim,))


def _logcumsumexp_backward(ctx):
    """grad_i = sum over j >= i of grad_j exp(x_i - result_j), summed in log space with the
    positive and the negative gradients apart, so that nothing overflows: torch's formula, also
    under create_graph (where x_i - result_j rounds, as at 1e300, its answer is the rounded one).
    Its derivative in grad is NaN where grad is 0: a grad that is itself differentiated (forward
    AD's seeds, gradgrad in the grad outputs) takes the exact table instead."""
    grad, dim = ctx.grad, ctx.dim
    if grad.numel() == 0 or grad.ndim == 0:
        return grad
    if is_recording() and grad.requires_grad:
        return _logcumsumexp_backward_exact(grad, ctx.input, ctx.result, dim)
    if grad.dtype.is_complex:
        # d result_j / d x_i = exp(x_i - result_j) is holomorphic: the gradient is the conjugate
        # of that sum against conj(grad), which needs no sign split (log of 0 is -inf + 0j)
        summed = _reversed_logcumsumexp(log(conj_of(grad)) - ctx.result, dim)
        return conj_of(exp(summed + ctx.input))
    # the smallest finite value stands for log(0), as in torch (-inf would give inf - inf)
    lowest = float(np.finfo(grad.dtype.numpy).min)
    magnitude = log(abs(grad))
    positive = where(grad > 0, magnitude, lowest) - ctx.result
    negative = where(grad < 0, magnitude, lowest) - ctx.result
    return (exp(_reversed_logcumsumexp(positive, dim) + ctx.input)
            - exp(_reversed_logcumsumexp(negative, dim) + ctx.input))


def _logcumsumexp_backward_exact(grad, input, result, dim):
    """The same sum as a table over (i, j), O(n^2) in the size of dim and linear in grad:
    exp(x_i - result_j) for j >= i never exceeds 1, and the other entries are exp(-inf) = 0."""
    x, result, grad = (movedim(t, dim, -1) for t in (input, result, grad))
    size = x.shape[-1]
    later = constant_beside(x, np.triu(np.ones((size, size), dtype=bool)))
    weights = exp(where(later, unsqueeze(x, -1) - unsqueeze(result, -2), -math.inf))
    return movedim(sum(conj_of(weights) * unsqueeze(grad, -2), -1), -1, dim)


_logcumsumexp.derivatives(input=_logcumsumexp_backward)


@numpy_keywords
def logcumsumexp(input, dim):
    """log(cumsum(exp(input))) along dim, without overflow."""
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{input.dtype.legacy_name}'")
    return _logcumsumexp(input, wrap_dim(dim, input.ndim))


FUNCTIONS = ["cummax", "cummin", "logcumsumexp"]
METHODS = FUNCTIONS
