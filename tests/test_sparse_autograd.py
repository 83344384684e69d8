"""Autograd through sparse COO tensors, against torch: node names, gradients of values, of
dense tensors made sparse and of sparse leaves, printing with a grad_fn, and gradchecks."""
import warnings

import pytest

import tapegrad
from compare import torch_or_skip

INDICES = [[0, 1, 0], [1, 0, 1]]  # (0, 1) twice: uncoalesced
WEIGHTS = [[1.0, 2.0], [3.0, 4.0]]


@pytest.fixture(autouse=True)
def _quiet_torch():
    with warnings.catch_warnings():  # torch warns that it skips its invariant checks
        warnings.simplefilter("ignore")
        yield


def _sparse_of_values(lib, values):
    return lib.sparse_coo_tensor(INDICES, values, (2, 2))


CASES = {  # lib, a leaf -> the output summed for backward
    "to_dense": lambda lib, v: _sparse_of_values(lib, v).to_dense() * lib.tensor(WEIGHTS),
    "coalesce values": lambda lib, v: _sparse_of_values(lib, v).coalesce().values() ** 2,
    "negated": lambda lib, v: (-_sparse_of_values(lib, v)).to_dense() * lib.tensor(WEIGHTS),
    "sparse sum": lambda lib, v: (_sparse_of_values(lib, v) + _sparse_of_values(lib, v * 2))
    .to_dense() * lib.tensor(WEIGHTS),
}


def _nodes(tensor):
    """The node names of the graph below tensor, depth first."""
    names, stack = [], [tensor.grad_fn]
    while stack:
        node = stack.pop()
        if node is not None:
            names.append(node.name())
            stack.extend(edge[0] for edge in node.next_functions)
    return names


@pytest.mark.parametrize("case", CASES)
def test_gradients_of_values_as_torch(case):
    torch = torch_or_skip()
    results = []
    for lib in (torch, tapegrad):
        values = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        out = CASES[case](lib, values)
        out.sum().backward()
        results.append((out.tolist(), values.grad.tolist(), _nodes(out)))
    assert results[1] == results[0]


@pytest.mark.parametrize("case", CASES)
def test_gradients_of_values_pass_gradcheck(case):
    values = tapegrad.tensor([1.0, -2.0, 3.0], dtype=tapegrad.float64, requires_grad=True)
    assert tapegrad.autograd.gradcheck(lambda v: CASES[case](tapegrad, v), (values,))


def test_a_sparse_leaf_gets_a_sparse_gradient_as_torch():
    torch = torch_or_skip()
    results = []
    for lib in (torch, tapegrad):
        leaf = lib.sparse_coo_tensor([[0, 1, 0]], [1.0, 2.0, 3.0], (3,), requires_grad=True)
        printed = repr(leaf)
        leaf.to_dense().sum().backward()
        first = repr(leaf.grad)
        leaf.coalesce().values().sum().backward()
        results.append((printed, leaf.is_leaf, first, repr(leaf.grad)))
    assert results[1] == results[0]


@pytest.mark.parametrize("sparse_dim", [None, 1])
def test_to_sparse_gradient_as_torch(sparse_dim):
    torch = torch_or_skip()
    results = []
    for lib in (torch, tapegrad):
        dense = lib.tensor([[1.0, 0.0], [0.0, 2.0]], requires_grad=True)
        sparse = dense.to_sparse() if sparse_dim is None else dense.to_sparse(sparse_dim)
        (sparse.to_dense() * lib.tensor(WEIGHTS)).sum().backward()
        results.append((sparse.grad_fn.name(), dense.grad.tolist()))
    assert results[1] == results[0]


def test_printing_with_a_grad_fn_and_sparse_mask_as_torch():
    torch = torch_or_skip()
    results = []
    for lib in (torch, tapegrad):
        sparse = _sparse_of_values(lib, lib.tensor([1.0, 2.0, 3.0], requires_grad=True))
        masked = lib.arange(4.0).view(2, 2).sparse_mask(sparse)
        results.append((repr(sparse), repr(sparse.coalesce()), repr(masked)))
    assert results[1] == results[0]


def test_only_floating_sparse_tensors_require_grad_as_torch():
    torch = torch_or_skip()
    errors = []
    for lib in (torch, tapegrad):
        with pytest.raises(RuntimeError) as error:
            lib.sparse_coo_tensor([[0]], [1], (2,), requires_grad=True)
        errors.append(str(error.value))
    assert errors[1] == errors[0]
