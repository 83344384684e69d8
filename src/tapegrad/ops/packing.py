"""Packing padded sequences (nn.utils.rnn.pack_padded_sequence's op): the rows of each time
step that belong to sequences still running, time step after time step, as torch's
_pack_padded_sequence with its PackPaddedSequenceBackward0 node."""
import numpy as np

from .._tensor import Tensor
from ._define import defop


def batch_sizes_of(lengths):
    """How many sequences (lengths sorted decreasing) are still running at each step."""
    steps = np.arange(lengths[0] if len(lengths) else 0)
    return (np.asarray(lengths)[None, :] > steps[:, None]).sum(axis=1)


@defop("PackPaddedSequenceBackward0", save=("batch_first", "lengths"))
def pack_padded_sequence(xp, input: Tensor, lengths, batch_first):
    """The packed data of a padded batch whose sequences have these (sorted) lengths."""
    time_major = xp.swapaxes(input, 0, 1) if batch_first else input
    return xp.concatenate([time_major[t, :size]
                           for t, size in enumerate(batch_sizes_of(lengths))])


def _unpack(ctx):
    """The gradient back in the padded layout, zero in the padding."""
    from .indexing import _index_put
    from .shape import transpose, zeros_of
    lengths, batch_first = ctx.lengths, ctx.batch_first
    shape = ctx.input_shape
    steps = shape[1] if batch_first else shape[0]
    sizes = batch_sizes_of(lengths)
    time = np.repeat(np.arange(len(sizes)), sizes)
    row = np.concatenate([np.arange(size) for size in sizes]) if len(sizes) else time
    time_major = (steps, shape[0]) + tuple(shape[2:]) if batch_first else shape
    padded = _index_put(zeros_of(ctx.grad, time_major), (time, row), ctx.grad)
    return transpose(padded, 0, 1) if batch_first else padded


pack_padded_sequence.derivatives(input=_unpack)
