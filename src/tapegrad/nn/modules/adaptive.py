"""AdaptiveLogSoftmaxWithLoss, as torch.nn's: a head over the frequent classes and one
cluster per tail, each tail a low-rank projection (Grave et al., "Efficient softmax
approximation for GPUs")."""
from __future__ import annotations

import collections
import itertools
from collections.abc import Sequence
from typing import Any

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from ..common_types import DeviceLikeType
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = collections.namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """log p(target | input) for each row (output) and the mean negative (loss); the head
    scores the shortlist and the clusters, cluster i's projection the classes between
    cutoffs i and i + 1."""

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int],
                 div_value: float = 4.0, head_bias: bool = False,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0 or max(cutoffs) > n_classes - 1
                or len(set(cutoffs)) != len(cutoffs) or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        factory: dict[str, Any] = {"device": device, "dtype": dtype}
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, **factory),
                Linear(hidden, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **factory)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for layer in self.tail.modules():  # each cluster's two Linears, in order
            if isinstance(layer, Linear):
                layer.reset_parameters()

    def forward(self, input_: Tensor, target_: Tensor) -> _ASMoutput:
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.size()}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        output = input.new_zeros(target.size(0))
        head_index = target.new_empty(target.size(0))  # the head's class for each row
        used = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_range = (target >= low) & (target < high)
            rows = in_range.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, rows, target[in_range])
            else:
                cluster = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                local = cluster.gather(1, (target[in_range] - low).unsqueeze(1))
                output.index_copy_(0, rows, local.squeeze(1))
            used += rows.numel()
        if used != target.size(0):
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{target.min().item()}, "
                               f"{target.max().item()}] were found. ")
        head = F.log_softmax(self.head(input), dim=1)
        output += head.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input: Tensor, head_output: Tensor) -> Tensor:
        out = input.new_empty((head_output.size(0), self.n_classes))
        head = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster = F.log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster + head[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input: Tensor) -> Tensor:
        """log p(class | input) for every class."""
        return self._full_log_prob(input, self.head(input))

    def predict(self, input: Tensor) -> Tensor:
        """The most likely class of each row (the full distribution only where the head's
        best is a cluster)."""
        head_output = self.head(input)
        output = tapegrad.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return tapegrad.argmax(self._full_log_prob(input, head_output), dim=1)
        output[outside] = tapegrad.argmax(
            self._full_log_prob(input[outside], head_output[outside]), dim=1)
        return output
