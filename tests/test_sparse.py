"""Sparse COO tensors (tapegrad._sparse), Embedding(sparse=True) gradients and SparseAdam,
against torch: values, coalescing, printing, errors and optimiser steps."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip

INDICES = [[0, 1, 1, 0, 2], [2, 0, 2, 2, 1]]  # (0, 2) twice: uncoalesced
VALUES = [3.0, 4.0, 5.0, -1.5, 0.25]


@pytest.fixture(autouse=True)
def _quiet_torch():
    with warnings.catch_warnings():  # torch warns that it skips its invariant checks
        warnings.simplefilter("ignore")
        yield


def _both(make):
    torch = torch_or_skip()
    return make(torch), make(tapegrad)


def _picture(sparse):
    """What must agree: layout, shape, dims, nnz, coalesced flag, indices, values, dtype."""
    return (str(sparse.layout), sparse.is_sparse, list(sparse.shape), sparse.sparse_dim(),
            sparse.dense_dim(), sparse._nnz(), sparse.is_coalesced(),
            sparse._indices().tolist(), sparse._values().tolist(), str(sparse.dtype),
            sparse.to_dense().tolist())


SPARSE_CASES = {
    "matrix": lambda lib: lib.sparse_coo_tensor(lib.tensor(INDICES), lib.tensor(VALUES), (3, 4)),
    "inferred size": lambda lib: lib.sparse_coo_tensor(INDICES, VALUES),
    "float64": lambda lib: lib.sparse_coo_tensor(INDICES, VALUES, dtype=lib.float64),
    "int64": lambda lib: lib.sparse_coo_tensor([[2, 0, 2]], [1, 2, 3]),
    "dense rows": lambda lib: lib.sparse_coo_tensor([[3, 0, 3]], lib.arange(6.).view(3, 2),
                                                   (5, 2)),
    "one entry": lambda lib: lib.sparse_coo_tensor([[1]], [2.0], (3,)),
    "empty": lambda lib: lib.sparse_coo_tensor(lib.zeros(2, 0, dtype=lib.int64), lib.zeros(0),
                                              (2, 3)),
}


@pytest.mark.parametrize("case", SPARSE_CASES)
def test_sparse_coo_tensor_as_torch(case):
    theirs, mine = _both(SPARSE_CASES[case])
    assert _picture(mine) == _picture(theirs)
    assert _picture(mine.coalesce()) == _picture(theirs.coalesce())
    assert mine.coalesce().indices().tolist() == theirs.coalesce().indices().tolist()
    assert mine.coalesce().values().tolist() == theirs.coalesce().values().tolist()


@pytest.mark.parametrize("case", SPARSE_CASES)
def test_sparse_printing_as_torch(case):
    theirs, mine = _both(SPARSE_CASES[case])
    assert repr(mine) == repr(theirs)
    assert repr(mine.coalesce()) == repr(theirs.coalesce())


def test_layout_of_dense_and_sparse_as_torch():
    theirs, mine = _both(SPARSE_CASES["matrix"])
    assert (str(mine.layout), str(tapegrad.ones(2).layout), mine.is_sparse,
            tapegrad.ones(2).is_sparse) == (str(theirs.layout), "torch.strided", True, False)
    assert mine.layout is tapegrad.sparse_coo


@pytest.mark.parametrize("sparse_dim", [None, 1, 2])
def test_to_sparse_as_torch(sparse_dim):
    def make(lib):
        dense = lib.tensor([[0.0, 1.5, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, -3.0]])
        return dense.to_sparse() if sparse_dim is None else dense.to_sparse(sparse_dim)
    theirs, mine = _both(make)
    assert _picture(mine) == _picture(theirs)


@pytest.mark.parametrize("make", [
    lambda lib: SPARSE_CASES["matrix"](lib).indices(),
    lambda lib: SPARSE_CASES["matrix"](lib).values(),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0, 3.0], (3,)),
    lambda lib: lib.sparse_coo_tensor([[0, 1]], [1.0, 2.0], (3, 2)),
    lambda lib: lib.sparse_coo_tensor([0, 1], [1.0, 2.0]),
    lambda lib: lib.sparse_coo_tensor([[0, 3]], [1.0, 2.0], (3,), check_invariants=True),
    lambda lib: lib.sparse_coo_tensor([[0, -1]], [1.0, 2.0], (3,), check_invariants=True),
    lambda lib: lib.sparse_coo_tensor([[0]], [1.0], (3,)) + lib.sparse_coo_tensor([[0]], [1.0],
                                                                                  (4,)),
])
def test_sparse_errors_as_torch(make):
    same_error(make)


def _embedding_grads(lib, backwards, **options):
    weight = lib.tensor(np.random.default_rng(0).standard_normal((5, 3)), requires_grad=True)
    scale = lib.tensor(np.random.default_rng(1).standard_normal((2, 2, 3)))
    for rows in backwards:
        out = lib.nn.functional.embedding(lib.tensor(rows), weight, sparse=True, **options)
        (out * scale[:len(rows)]).sum().backward()
    return out, weight.grad


@pytest.mark.parametrize("options", [{}, {"padding_idx": 1}, {"padding_idx": -1}])
@pytest.mark.parametrize("backwards", [[[[1, 3], [1, 0]]], [[[1, 3], [1, 0]], [[4, 1]]]])
def test_embedding_sparse_grad_as_torch(options, backwards):
    (their_out, theirs), (my_out, mine) = _both(
        lambda lib: _embedding_grads(lib, backwards, **options))
    assert type(my_out.grad_fn).__name__ == type(their_out.grad_fn).__name__
    assert _picture(mine) == _picture(theirs)


def test_embedding_sparse_grad_is_the_dense_grad():
    """The sparse gradient densifies to the dense one, which has its own gradcheck."""
    dense = _embedding_grads(tapegrad, [[[1, 3], [1, 0]]])[1].to_dense()
    weight = tapegrad.tensor(np.random.default_rng(0).standard_normal((5, 3)),
                             requires_grad=True)
    scale = tapegrad.tensor(np.random.default_rng(1).standard_normal((2, 2, 3)))
    (tapegrad.nn.functional.embedding(tapegrad.tensor([[1, 3], [1, 0]]), weight)
     * scale).sum().backward()
    np.testing.assert_allclose(dense.numpy(), weight.grad.numpy(), rtol=1e-15)


def test_embedding_module_sparse_grad_as_torch():
    def make(lib):
        lib.manual_seed(0)
        embedding = lib.nn.Embedding(4, 2, sparse=True)
        embedding.weight.data = lib.arange(8.0).view(4, 2)
        embedding(lib.tensor([3, 3, 0])).pow(2).sum().backward()
        return embedding.weight.grad
    theirs, mine = _both(make)
    assert _picture(mine) == _picture(theirs)
    assert repr(mine) == repr(theirs)


def test_embedding_sparse_scale_grad_by_freq_error_as_torch():
    def scenario(lib):
        weight = lib.ones(3, 2, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor([0, 0]), weight, sparse=True,
                                    scale_grad_by_freq=True).sum().backward()
    same_error(scenario)


def _sparse_adam_path(lib, kwargs, dtype_name, steps=5):
    rng = np.random.default_rng(2)
    weight = lib.tensor(rng.standard_normal((6, 2)), dtype=getattr(lib, dtype_name),
                        requires_grad=True)
    target = lib.tensor(rng.standard_normal((5, 2)), dtype=weight.dtype)
    rows = lib.tensor([4, 0, 4, 5, 1])
    optimizer = lib.optim.SparseAdam([weight], **kwargs)
    path = []
    for _ in range(steps):
        optimizer.zero_grad()
        ((lib.nn.functional.embedding(rows, weight, sparse=True) - target) ** 2).sum().backward()
        optimizer.step()
        path.append(weight.detach().double().numpy().copy())
    return path, optimizer.state_dict()


@pytest.mark.parametrize("kwargs", [{}, {"lr": 0.1, "betas": (0.5, 0.9)},
                                    {"maximize": True, "eps": 1e-3}])
@pytest.mark.parametrize("dtype_name", ["float64", "float32"])
def test_sparse_adam_steps_as_torch(kwargs, dtype_name):
    (want, want_state), (got, got_state) = _both(
        lambda lib: _sparse_adam_path(lib, kwargs, dtype_name))
    tolerance = 1e-12 if dtype_name == "float64" else 1e-6
    for want_step, got_step in zip(want, got):
        np.testing.assert_allclose(got_step, want_step, rtol=tolerance, atol=tolerance)
    for key in ("exp_avg", "exp_avg_sq"):
        np.testing.assert_allclose(got_state["state"][0][key].double().numpy(),
                                   want_state["state"][0][key].double().numpy(),
                                   rtol=tolerance, atol=tolerance)
    assert got_state["state"][0]["step"] == want_state["state"][0]["step"]
    assert got_state["param_groups"] == want_state["param_groups"]


@pytest.mark.parametrize("make", [
    lambda lib, w: lib.optim.SparseAdam([w], lr=0.0),
    lambda lib, w: lib.optim.SparseAdam([w], eps=0.0),
    lambda lib, w: lib.optim.SparseAdam([w], betas=(1.0, 0.5)),
    lambda lib, w: lib.optim.SparseAdam([w], betas=(0.5, -0.1)),
    lambda lib, w: lib.optim.SparseAdam([w, lib.sparse_coo_tensor([[0]], [1.0], (3,))]),
    lambda lib, w: lib.optim.SparseAdam([lib.zeros(2, dtype=lib.complex64)]),
])
def test_sparse_adam_constructor_errors_as_torch(make):
    same_error(lambda lib: make(lib, lib.zeros(3, 2, requires_grad=True)))


@pytest.mark.parametrize("name,sparse_grad", [("SparseAdam", False), ("Adam", True),
                                              ("AdamW", True), ("Muon", True)])
def test_optimizer_gradient_layout_errors_as_torch(name, sparse_grad):
    def scenario(lib):
        weight = lib.zeros(3, 2, requires_grad=True)
        weight.grad = (lib.sparse_coo_tensor([[0]], [[1.0, 2.0]], (3, 2)) if sparse_grad
                       else lib.ones(3, 2))
        getattr(lib.optim, name)([weight]).step()
    same_error(scenario)


@pytest.mark.parametrize("name,kwargs", [("SGD", {"lr": 0.1}), ("Adagrad", {})])
def test_sgd_and_adagrad_step_on_sparse_grads_as_torch(name, kwargs):
    def make(lib):
        weight = lib.arange(6.0).view(3, 2).requires_grad_()
        weight.grad = lib.sparse_coo_tensor([[2, 0, 2]], [[1.0, 2.0], [0.5, 0.5], [3, 4]],
                                            (3, 2))
        getattr(lib.optim, name)([weight], **kwargs).step()
        return weight.detach().tolist()
    theirs, mine = _both(make)
    np.testing.assert_allclose(mine, theirs, rtol=1e-6)


@pytest.mark.parametrize("first,second", [("uncoalesced", "coalesced"),
                                          ("coalesced", "uncoalesced"),
                                          ("uncoalesced", "uncoalesced"),
                                          ("coalesced", "coalesced")])
def test_sparse_add_merges_in_stored_order_as_torch(first, second):
    """torch merges the two entry lists as stored, summing equal indices when they meet."""
    def make(lib):
        made = {"uncoalesced": lib.sparse_coo_tensor([[1, 3, 1, 0]], [1.0, 2, 3, 4], (5,)),
                "coalesced": lib.sparse_coo_tensor([[0, 1]], [10.0, 20], (5,)).coalesce()}
        return made[first] + made[second]
    theirs, mine = _both(make)
    assert _picture(mine) == _picture(theirs)


def test_zero_grad_keeps_a_sparse_gradient_empty_as_torch():
    def make(lib):
        weight = lib.ones(4, 2, requires_grad=True)
        lib.nn.functional.embedding(lib.tensor([1, 1, 3]), weight, sparse=True).sum().backward()
        lib.optim.SGD([weight], lr=0.1).zero_grad(set_to_none=False)
        return weight.grad
    theirs, mine = _both(make)
    assert _picture(mine) == _picture(theirs)


def test_sgd_momentum_on_sparse_grads_as_torch():
    def make(lib):
        weight = lib.arange(6.0).view(3, 2).requires_grad_()
        optimizer = lib.optim.SGD([weight], lr=0.1, momentum=0.9)
        for rows in ([2, 0, 2], [1, 1]):
            optimizer.zero_grad()
            lib.nn.functional.embedding(lib.tensor(rows), weight, sparse=True).pow(2).sum() \
                .backward()
            optimizer.step()
        return weight.detach().tolist(), weight.grad.detach().is_sparse
    theirs, mine = _both(make)
    np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-6)
    assert mine[1] == theirs[1]


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "ASGD", "NAdam", "RAdam", "RMSprop",
                                  "Rprop", "Adafactor", "Adam", "AdamW"])
def test_optimizers_that_refuse_sparse_gradients_say_so_as_torch(name):
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (torch, tapegrad):
        weight = lib.nn.Parameter(lib.ones(4, 2))
        lib.nn.functional.embedding(lib.tensor([0, 1]), weight, sparse=True).sum().backward()
        with pytest.raises(RuntimeError) as caught:
            getattr(lib.optim, name)([weight], lr=0.1).step()
        errors.append(str(caught.value))
        assert weight.tolist() == [[1.0, 1.0]] * 4  # nothing moved
    assert errors[0] == errors[1]


def test_adagrad_refuses_weight_decay_with_sparse_gradients():
    weight = tapegrad.nn.Parameter(tapegrad.ones(4, 2))
    tapegrad.nn.functional.embedding(tapegrad.tensor([0, 1]), weight, sparse=True).sum().backward()
    with pytest.raises(RuntimeError, match="weight_decay option is not compatible with sparse "
                                           "gradients"):
        tapegrad.optim.Adagrad([weight], lr=0.1, weight_decay=0.1).step()
