"""tapegrad.sparse (torch.sparse) against torch: mm, addmm and sum with a sparse operand,
values, gradients of the dense operands and of the sparse values, node names."""
import warnings

import pytest

import tapegrad
import tapegrad.sparse
from compare import torch_or_skip

CASES = {
    "mm": lambda lib, s, d, m: lib.sparse.mm(s, d),
    "addmm": lambda lib, s, d, m: lib.sparse.addmm(m, s, d, beta=0.5, alpha=2.0),
    "sum": lambda lib, s, d, m: lib.sparse.sum(s) * d,
}


def _inputs(lib, dtype):
    values = lib.tensor([1.0, 2.0, -3.0], dtype=dtype, requires_grad=True)
    dense = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=dtype, requires_grad=True)
    mat = lib.tensor([[0.5, -1.0], [2.0, 1.0]], dtype=dtype, requires_grad=True)
    return values, dense, mat


def _run(lib, case, values, dense, mat):
    sparse = lib.sparse_coo_tensor([[0, 1, 0], [1, 0, 1]], values, (2, 2))
    return CASES[case](lib, sparse, dense, mat)


@pytest.mark.parametrize("case", CASES)
def test_sparse_products_as_torch(case):
    torch = torch_or_skip()
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for lib in (torch, tapegrad):
            leaves = _inputs(lib, lib.float32)
            out = _run(lib, case, *leaves)
            (out * lib.tensor([[1.0, -2.0], [0.5, 3.0]])).sum().backward()
            results.append((out.tolist(), out.grad_fn.name(),
                            [None if leaf.grad is None else leaf.grad.tolist()
                             for leaf in leaves]))
    assert results[1] == results[0]


@pytest.mark.parametrize("case", CASES)
def test_sparse_products_pass_gradcheck(case):
    leaves = _inputs(tapegrad, tapegrad.float64)
    assert tapegrad.autograd.gradcheck(lambda *xs: _run(tapegrad, case, *xs), leaves)
