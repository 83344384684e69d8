"""default_collate and default_convert: turning samples into batches the way torch does."""
import collections.abc
import copy
from collections.abc import Sequence
from typing import Any

import numpy as np

import tapegrad

COLLATE_ERROR = ("default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                 "lists; found {}")


def _is_text_array(array):
    # Byte strings, unicode and object arrays have no tensor counterpart: torch passes them on.
    return array.dtype.kind in "SaUO"


def _rebuild_mapping(mapping, values):
    """A mapping like `mapping` holding `values` (a dict), keeping its type where it can."""
    try:
        if isinstance(mapping, collections.abc.MutableMapping):
            clone = copy.copy(mapping)  # keeps whatever extra state the mapping type has
            clone.update(values)
            return clone
        return type(mapping)(values)
    except TypeError:
        return values


def _rebuild_sequence(sequence, values):
    """A sequence like `sequence` holding `values` (a list), keeping its type where it can."""
    try:
        if isinstance(sequence, collections.abc.MutableSequence):
            clone = copy.copy(sequence)
            for i, value in enumerate(values):
                clone[i] = value
            return clone
        return type(sequence)(values)
    except TypeError:
        return values


def default_convert(data: Any) -> Any:
    """Turn NumPy arrays and numbers inside data into tensors, leaving the structure as is."""
    if isinstance(data, tapegrad.Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)) and not isinstance(data, (np.str_, np.bytes_)):
        if isinstance(data, np.ndarray) and _is_text_array(data):
            return data
        return tapegrad.as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_mapping(data, {key: default_convert(data[key]) for key in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):  # a namedtuple
        return type(data)(*(default_convert(item) for item in data))
    if isinstance(data, tuple):
        return [default_convert(item) for item in data]  # torch turns tuples into lists
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_sequence(data, [default_convert(item) for item in data])
    return data


def _collate_leaves(batch):
    """A batch of tensors, arrays or numbers as one tensor; None when batch[0] is none of them."""
    first = batch[0]
    if isinstance(first, tapegrad.Tensor):
        return tapegrad.stack(batch, 0)
    if isinstance(first, np.ndarray):
        if _is_text_array(first):
            raise TypeError(COLLATE_ERROR.format(first.dtype))
        return tapegrad.stack([tapegrad.as_tensor(item) for item in batch], 0)
    if isinstance(first, (np.bool_, np.number, np.object_)):
        return tapegrad.as_tensor(np.array(batch))
    if isinstance(first, float):
        return tapegrad.tensor(batch, dtype=tapegrad.float64)
    if isinstance(first, int):  # bool too: a batch of bools becomes a bool tensor
        return tapegrad.tensor(batch)
    return None


def default_collate(batch: Sequence[Any]) -> Any:
    """Stack a list of samples into a batch: tensors gain a leading dimension, containers recurse.

    Numbers become float64/int64/bool tensors, strings stay lists, tuples become lists.
    """
    first = batch[0]
    if isinstance(first, (str, bytes)):
        return batch
    leaves = _collate_leaves(batch)
    if leaves is not None:
        return leaves
    if isinstance(first, collections.abc.Mapping):
        return _rebuild_mapping(first, {key: default_collate([sample[key] for sample in batch])
                                        for key in first})
    if isinstance(first, tuple) and hasattr(first, "_fields"):  # a namedtuple
        return type(first)(*(default_collate(list(items)) for items in zip(*batch)))
    if isinstance(first, collections.abc.Sequence):
        if any(len(sample) != len(first) for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [default_collate(list(items)) for items in zip(*batch)]
        return columns if isinstance(first, tuple) else _rebuild_sequence(first, columns)
    raise TypeError(COLLATE_ERROR.format(type(first)))
