"""ctc_loss: the connectionist temporal classification loss, -log of the probability of all
alignments of each target to its input, by the forward (alpha) and backward (beta) recursions
over the target with blanks between and around its labels (Graves et al. 2006), in log space.

As torch, the per-sample loss is one node (CtcLossBackward0) and its gradient one op whose own
derivative torch does not implement; the gradient is torch's exp(log_probs) - posterior, the
gradient with respect to the logits before a log_softmax (the log_softmax's backward turns it
into the same gradient as the true one's, since each row of it sums to zero).
"""
import numpy as np

from .. import _backend
from .._tensor import Tensor
from ._checks import refuse_half
from ._define import defop
from .conv import check_float
from .loss import checked_reduction, reduce_loss
from .pointwise import div, not_implemented_in_torch, where
from .shape import constant_beside, squeeze, unsqueeze, zeros_of

_NEG_INF = -np.inf


def _extended_labels(xp, targets, target_lengths, width):
    """(N, width): each target's labels with a blank (marked -1) before, between and after,
    padded with blanks."""
    labels = xp.full((len(target_lengths), width), -1, np.int64)
    for b, (target, length) in enumerate(zip(targets, target_lengths)):
        labels[b, 1:2 * length:2] = target[:length]
    return labels


def _rounded(function, x):
    """function(x) in float64, rounded to x's dtype: the correctly rounded value nearly always,
    as C's expf and logf give in torch's kernel (NumPy's own float32 exp and log may differ
    in the last bit, which the gradient's cancellation of about -nll + nll magnifies)."""
    return function(x.astype(np.float64)).astype(x.dtype)


def _log_sum_exp(*terms):
    """log(sum(exp(terms))) elementwise, -inf where every term is (torch's shift by the max)."""
    xp = _backend.array_module(terms[0])
    largest = terms[0]
    for term in terms[1:]:
        largest = xp.maximum(largest, term)
    shift = xp.where(largest == _NEG_INF, 0, largest)
    total = _rounded(xp.exp, terms[0] - shift)
    for term in terms[1:]:
        total = total + _rounded(xp.exp, term - shift)
    return _rounded(xp.log, total) + shift


def _shifted(values, by):
    """values moved `by` places along the last axis, -inf filling in (by > 0: towards higher s)."""
    xp = _backend.array_module(values)
    result = xp.full_like(values, _NEG_INF)
    if by > 0:
        result[:, by:] = values[:, :-by]
    else:
        result[:, :by] = values[:, -by:]
    return result


class _Lattice:
    """The log probabilities of each sample's extended labels at every time step, and which
    transitions skip a blank (from s - 2 to s: a label differing from the one before it)."""

    def __init__(self, xp, log_probs, targets, input_lengths, target_lengths, blank):
        self.xp = xp
        self.input_lengths = xp.asarray(input_lengths)
        self.target_lengths = xp.asarray(target_lengths)
        width = 2 * max(target_lengths, default=0) + 1
        labels = _extended_labels(xp, targets, target_lengths, width)
        self.labels = xp.where(labels < 0, blank, labels)
        batch = xp.arange(len(self.input_lengths))[:, None]
        self.emissions = log_probs[:, batch, self.labels]  # (T, N, width)
        self.skips_into = (labels >= 0) & (_shifted(labels.astype(float), 2) != labels)
        self.skips_from = xp.zeros_like(self.skips_into)  # s -> s + 2, from the other end
        self.skips_from[:, :-2] = self.skips_into[:, 2:]
        self.ends = 2 * self.target_lengths  # the last blank's position

    def alpha(self):
        xp, T = self.xp, self.emissions.shape[0]
        alpha = xp.full(self.emissions.shape, _NEG_INF, self.emissions.dtype)
        start = xp.full(self.emissions.shape[1:], _NEG_INF, self.emissions.dtype)
        start[:, :2] = self.emissions[0, :, :2] if T else _NEG_INF
        start[self.target_lengths == 0, 1:] = _NEG_INF  # no first label to start at
        for t in range(T):
            if t == 0:
                current = start
            else:
                previous = alpha[t - 1]
                skipped = xp.where(self.skips_into, _shifted(previous, 2), _NEG_INF)
                current = self.emissions[t] + _log_sum_exp(previous, _shifted(previous, 1),
                                                           skipped)
            alpha[t] = xp.where((t < self.input_lengths)[:, None], current, _NEG_INF)
        return alpha

    def beta(self):
        xp, (T, batch, width) = self.xp, self.emissions.shape
        beta = xp.full(self.emissions.shape, _NEG_INF, self.emissions.dtype)
        samples = xp.arange(batch)
        last = xp.full((batch, width), _NEG_INF, self.emissions.dtype)
        for t in reversed(range(T)):
            starting = t == self.input_lengths - 1
            following = beta[t + 1] if t + 1 < T else last
            skipped = xp.where(self.skips_from, _shifted(following, -2), _NEG_INF)
            current = self.emissions[t] + _log_sum_exp(following, _shifted(following, -1),
                                                       skipped)
            initial = xp.full((batch, width), _NEG_INF, self.emissions.dtype)
            for offset in (1, 0):  # an empty target has only the blank at 0
                positions = xp.maximum(self.ends - offset, 0)
                initial[samples, positions] = xp.where(self.ends >= offset,
                                                       self.emissions[t, samples, positions],
                                                       _NEG_INF)
            current = xp.where(starting[:, None], initial, current)
            beta[t] = xp.where((t < self.input_lengths)[:, None], current, _NEG_INF)
        return beta

    def negative_log_likelihood(self, alpha):
        xp = self.xp
        samples = xp.arange(len(self.input_lengths))
        last = xp.maximum(self.input_lengths - 1, 0)
        final = alpha[last, samples]  # (N, width)
        ends = final[samples, self.ends]
        before = xp.where(self.ends >= 1, final[samples, xp.maximum(self.ends - 1, 0)], _NEG_INF)
        nll = -_log_sum_exp(ends, before)
        # no time steps: only an empty target has an alignment
        empty = self.input_lengths == 0
        return xp.where(empty, xp.where(self.target_lengths == 0, 0, np.inf), nll).astype(
            alpha.dtype)


@defop("CtcLossBackward0", save=("log_probs", "targets", "input_lengths", "target_lengths",
                                 "blank", "zero_infinity", "result"))
def _ctc_loss(xp, log_probs: Tensor, targets, input_lengths, target_lengths, blank,
              zero_infinity):
    lattice = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    return lattice.negative_log_likelihood(lattice.alpha())


@defop("NotImplemented")
def _ctc_loss_backward(xp, grad: Tensor, log_probs: Tensor, targets, input_lengths,
                       target_lengths, nll: Tensor, blank, zero_infinity):
    """torch's gradient: (exp(log_probs) - exp(log posterior of each class + nll - log_probs))
    times the sample's gradient, for the time steps inside its input (0 after)."""
    lattice = _Lattice(xp, log_probs, targets, input_lengths, target_lengths, blank)
    joint = lattice.alpha() + lattice.beta()  # (T, N, width)
    T, batch, _ = log_probs.shape
    # each class's log posterior, summed over its positions from the last, as torch rounds it
    log_posterior = xp.full(log_probs.shape, _NEG_INF, log_probs.dtype)
    times, samples = xp.arange(T)[:, None], xp.arange(batch)[None, :]
    for s in reversed(range(joint.shape[2])):
        place = (times, samples, lattice.labels[None, :, s])
        log_posterior[place] = _log_sum_exp(log_posterior[place], joint[:, :, s])
    result = (_rounded(xp.exp, log_probs)
              - _rounded(xp.exp, log_posterior + nll[None, :, None] - log_probs)) \
        * grad[None, :, None]
    inside = xp.arange(T)[:, None] < lattice.input_lengths[None, :]
    if zero_infinity:
        inside = inside & (nll != np.inf)[None, :]
    return xp.where(inside[:, :, None], result, 0).astype(log_probs.dtype)


not_implemented_in_torch(_ctc_loss_backward, "_ctc_loss_backward")
_ctc_loss.derivatives(log_probs=lambda ctx: _ctc_loss_backward(
    ctx.grad, ctx.log_probs, ctx.targets, ctx.input_lengths, ctx.target_lengths, ctx.result,
    ctx.blank, ctx.zero_infinity))


# ---- checks and the public function --------------------------------------------------------

def _lengths(name, lengths):
    """Lengths given as a sequence of ints or an integer tensor, as a tuple of ints."""
    if isinstance(lengths, Tensor):
        if lengths.dtype.is_floating_point or lengths.dtype.is_complex:
            raise RuntimeError(f"{name} must be integral")
        return tuple(int(length) for length in lengths._data.reshape(-1))
    if isinstance(lengths, int):
        return (lengths,)
    return tuple(int(length) for length in lengths)


_CHECKED = " (while checking arguments for ctc_loss_allocate_outputs)"


def _check_ctc(log_probs, targets, input_lengths, target_lengths, blank):
    if log_probs.ndim != 3:
        raise RuntimeError(f"Expected 3-dimensional tensor, but got {log_probs.ndim}-dimensional "
                           f"tensor for argument #1 'log_probs'{_CHECKED}")
    steps, batch, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise RuntimeError("blank must be in label range")
    if len(input_lengths) != batch:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(target_lengths) != batch:
        raise RuntimeError("target_lengths must be of size batch_size")
    for length in target_lengths:
        if length < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got "
                               f"value {length}{_CHECKED}")
    # concatenated targets hold every label; padded ones a row per sample
    expected = sum(target_lengths) if targets.ndim == 1 else batch
    if targets.shape[0] != expected:
        raise RuntimeError(f"Expected tensor to have size {expected} at dimension 0, but got "
                           f"size {targets.shape[0]} for argument #2 'targets'{_CHECKED}")
    if targets.ndim > 1 and max(target_lengths, default=0) > targets.shape[1]:
        raise RuntimeError(f"Expected tensor to have size at least {max(target_lengths)} at "
                           f"dimension 1, but got size {targets.shape[1]} for argument #2 "
                           f"'targets'{_CHECKED}")
    for length in input_lengths:
        if length < 0:
            raise RuntimeError(f"Expected input_lengths to have value at least 0, but got value "
                               f"{length}{_CHECKED}")
        if length > steps:
            raise RuntimeError(f"Expected input_lengths to have value at most {steps}, but got "
                               f"value {length}{_CHECKED}")


def _per_sample_targets(targets, target_lengths):
    """Each sample's labels, from padded (N, S) or concatenated targets."""
    labels = targets._data.astype(np.int64)
    if targets.ndim != 1:
        return [row for row in labels]
    ends = np.cumsum(target_lengths)
    return [labels[end - length:end] for end, length in zip(ends, target_lengths)]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of log_probs (T, N, C) or (T, C) against targets; 'mean' divides each
    sample's loss by its target length before the batch mean."""
    reduction = checked_reduction(reduction)
    input_lengths = _lengths("input_lengths", input_lengths)
    target_lengths = _lengths("target_lengths", target_lengths)
    check_float("ctc_loss_cpu", log_probs)
    refuse_half("ctc_loss_cpu", log_probs)
    batched = log_probs.ndim == 3
    if not batched:
        log_probs, targets = unsqueeze(log_probs, 1), targets.reshape(1, -1)
    _check_ctc(log_probs, targets, input_lengths, target_lengths, blank)
    loss = _ctc_loss(log_probs, _per_sample_targets(targets, target_lengths), input_lengths,
                     target_lengths, blank, bool(zero_infinity))
    if zero_infinity:
        loss = where(loss == float("inf"), zeros_of(loss, ()), loss)
    if reduction == "mean":  # each sample's loss per target label first
        lengths = np.maximum(np.asarray(target_lengths, loss.dtype.numpy), 1)
        loss = div(loss, constant_beside(loss, lengths))
    elif reduction == "none" and not batched:
        return squeeze(loss, 0)
    return reduce_loss(loss, reduction)


def torch_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
                   zero_infinity=False):
    """torch.ctc_loss: reduction as ATen's number, 1 mean, 2 sum, any other none (torch's
    default, whatever its signature shows, reduces nothing)."""
    reduction = {1: "mean", 2: "sum"}.get(reduction, "none")
    return ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction,
                    zero_infinity)


FUNCTIONS = {"ctc_loss": torch_ctc_loss}
NN_FUNCTIONS = ["ctc_loss"]
