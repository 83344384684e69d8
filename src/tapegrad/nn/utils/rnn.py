"""Variable-length sequences, as torch.nn.utils.rnn: a PackedSequence holds the time steps of
a batch of sequences sorted by length, each step only the sequences still running (the
recurrent layers take it as input and give it as output); padding and packing convert."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import tapegrad
from ..._tensor import Tensor

from ...ops.packing import batch_sizes_of, pack_padded_sequence as _pack

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pack_sequence",
           "pad_packed_sequence", "pad_sequence", "unpack_sequence", "unpad_sequence"]


class _PackedSequenceFields(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedSequenceFields):
    """(data, batch_sizes, sorted_indices, unsorted_indices): data holds the steps one after
    another, batch_sizes how many sequences each step has; the indices put the batch back in
    its original order (None when it was sorted already)."""

    def __new__(cls, data: Tensor | tuple[Tensor, Tensor], batch_sizes: Tensor | None = None,
                sorted_indices: Tensor | None = None,
                unsorted_indices: Tensor | None = None) -> PackedSequence:
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # torch's (data, batch_sizes) tuple as one argument
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes,  # type: ignore[arg-type]  # a Tensor now
                               sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """data moved or cast; the indices moved, never cast."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        device = data.device
        indices = [None if i is None else i.to(device) for i in
                   (self.sorted_indices, self.unsorted_indices)]
        return type(self)(data, self.batch_sizes, *indices)

    def double(self) -> PackedSequence:
        return self.to(dtype=tapegrad.float64)

    def float(self) -> PackedSequence:
        return self.to(dtype=tapegrad.float32)

    def half(self) -> PackedSequence:
        return self.to(dtype=tapegrad.float16)

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    @property
    def is_cuda(self) -> bool:
        return self.data.is_cuda

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The permutation that undoes this one (None for None)."""
    if permutation is None:
        return None
    inverse = tapegrad.empty_like(permutation)
    inverse[permutation] = tapegrad.arange(permutation.numel(), dtype=permutation.dtype)
    return inverse


def pack_padded_sequence(input: Tensor, lengths: Tensor | list[int], batch_first: bool = False,
                         enforce_sorted: bool = True) -> PackedSequence:
    """Pack a padded batch (time-major unless batch_first) of sequences of these lengths."""
    lengths = (lengths.to(tapegrad.int64) if isinstance(lengths, tapegrad.Tensor)
               else tapegrad.tensor(lengths, dtype=tapegrad.int64))
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = tapegrad.sort(lengths, descending=True)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    batch = input.size(0 if batch_first else 1)
    values = lengths.tolist()
    if len(values) != batch:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(values)} (batch_size={batch})")
    if values and values[-1] <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if any(a < b for a, b in zip(values, values[1:])):
        raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                           "`enforce_sorted` is True. You can pass `enforce_sorted=False` to "
                           "pack_padded_sequence and/or pack_sequence to sidestep this "
                           "requirement if you do not need ONNX exportability.")
    steps = input.size(1 if batch_first else 0)
    if values and values[0] > steps:  # torch reads past the input here
        raise RuntimeError(f"the longest length {values[0]} is more than the input's "
                           f"{steps} time steps")
    data = _pack(input, values, batch_first)
    return PackedSequence(data, tapegrad.tensor(batch_sizes_of(values)), sorted_indices,
                          None)


def pad_packed_sequence(sequence: PackedSequence, batch_first: bool = False,
                        padding_value: float = 0.0,
                        total_length: int | None = None) -> tuple[Tensor, Tensor]:
    """(padded batch, lengths): the inverse of pack_padded_sequence, the batch in its original
    order, padded with padding_value to the longest length or total_length."""
    sizes = sequence.batch_sizes.tolist()
    longest = len(sizes)
    if total_length is not None:
        if total_length < longest:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {longest}")
        longest = total_length
    data = sequence.data
    batch = sizes[0] if sizes else 0
    padded = data.new_full((longest, batch, *data.shape[1:]), padding_value)
    start = 0
    for step, size in enumerate(sizes):  # written step by step, as torch's CopySlices
        padded[step, :size] = data[start:start + size]
        start += size
    lengths = tapegrad.tensor([sum(size > row for size in sizes) for row in range(batch)],
                              dtype=tapegrad.int64)
    if batch_first:
        padded = padded.transpose(0, 1)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(0 if batch_first else 1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices]
    return padded, lengths


def pad_sequence(sequences: Tensor | Sequence[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """Stack sequences of different lengths (dim 0) into one padded batch."""
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                           f"{padding_side}.")
    if isinstance(sequences, tapegrad.Tensor):
        sequences = sequences.unbind(0)
    longest = max(sequence.size(0) for sequence in sequences)
    first = sequences[0]
    shape = (len(sequences), longest) if batch_first else (longest, len(sequences))
    padded = first.new_full(shape + tuple(first.shape[1:]), padding_value)
    for index, sequence in enumerate(sequences):
        length = sequence.size(0)
        rows = slice(longest - length, longest) if padding_side == "left" else slice(0, length)
        padded[(index, rows) if batch_first else (rows, index)] = sequence
    return padded


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor,
                   batch_first: bool = False) -> list[Tensor]:
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [sequence[:length] for sequence, length in zip(padded_sequences, lengths.tolist())]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of sequences of different lengths."""
    lengths = tapegrad.tensor([sequence.size(0) for sequence in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
