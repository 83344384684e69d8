"""torch.sparse: products and reductions with a sparse COO operand.

Only mm, addmm and the full sum so far; the others torch.sparse has (softmax, log_softmax,
sum over dims, sampled_addmm, spdiags) are not here yet.
"""
from __future__ import annotations

from ._sparse import SparseTensor, _recorded, sparse_mask
from ._tensor import Tensor

__all__ = ["addmm", "mm", "sum"]


def addmm(mat: Tensor, mat1: SparseTensor, mat2: Tensor, *, beta: float = 1,
          alpha: float = 1) -> Tensor:
    """beta * mat + alpha * (mat1 @ mat2), mat1 sparse: mat1's gradient has mat1's entries
    only, as torch's SparseAddmmBackward0 gives it."""
    if not isinstance(mat1, SparseTensor):
        raise RuntimeError("sparse.addmm: mat1 must be a sparse COO tensor")
    dense1, right, start = mat1.to_dense().detach(), mat2.detach(), mat.detach()
    result = Tensor._make((start * beta + (dense1 @ right) * alpha)._data)
    mask = mat1.detach().coalesce()  # each entry once: its gradient is not summed twice
    return _recorded(result, "SparseAddmmBackward0", (mat, mat1, mat2), lambda grad: (
        grad * beta, sparse_mask(grad @ right.mT * alpha, mask), dense1.mT @ grad * alpha))


def mm(mat1: SparseTensor, mat2: Tensor) -> Tensor:
    """mat1 @ mat2 with mat1 sparse (addmm of a zero matrix, as torch records it)."""
    from ._creation import zeros
    start = zeros(mat1.shape[0], mat2.shape[-1], dtype=mat2.dtype, device=mat2.device)
    return addmm(start, mat1, mat2, beta=0)


def sum(input: SparseTensor, dim: int | None = None, dtype=None) -> Tensor:
    """The sum of every entry (a dense 0-d tensor); sums over some dims are not here yet."""
    if dim is not None:
        raise NotImplementedError("tapegrad.sparse.sum: only the sum of every entry (dim=None)")
    total = input.to_dense().sum()
    return total if dtype is None else total.to(dtype)
