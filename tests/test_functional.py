"""tapegrad.autograd.functional against finite differences and, when importable, torch."""
import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import functional
from test_autograd import _same_error, _torch


def _to_lib(lib, arrays):
    """numpy arrays (or tuples of them) as lib float64 tensors."""
    if isinstance(arrays, tuple):
        return tuple(_to_lib(lib, array) for array in arrays)
    return lib.tensor(arrays, dtype=lib.float64)


def _assert_same(ours, theirs, requires_grad=None):
    """Same nesting of tuples, shapes and values (and requires_grad, if given)."""
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for our, their in zip(ours, theirs):
            _assert_same(our, their, requires_grad)
        return
    assert isinstance(ours, tapegrad.Tensor)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10,
                               atol=1e-12)
    assert ours.requires_grad == theirs.requires_grad
    if requires_grad is not None:
        assert ours.requires_grad == requires_grad


rng = np.random.default_rng(0)
X3 = rng.standard_normal(3)
Y2 = rng.standard_normal(2)
M23 = rng.standard_normal((2, 3))


def _vector(x):
    return x.exp() * x.sum() + x.sin()


def _two_in_two_out(x, y):
    return (x * y.sum()).tanh(), (x.sum() * y * y)[None]


def _scalar(x):
    return (x.exp() * x.sin()).sum()


def _scalar_of_two(x, y):
    return (x.sin() * y.sum() ** 2).sum() + (y ** 3).sum()


# ---- torch comparison: values, shapes, tuple structure, create_graph -------------------------

JACOBIAN_CASES = [
    (_vector, X3),
    (_two_in_two_out, (X3, Y2)),
    (lambda x: (x * 2, x.sum()), X3),            # tuple output, single input
    (lambda x, y: (x * y).sum(), (M23, M23)),    # single scalar output, tuple input
    (lambda x: x @ x.T, M23),                    # matrix output of matrix input
]


HESSIAN_CASES = [
    (_scalar, X3),
    (_scalar_of_two, (X3, Y2)),
    (lambda x: (x ** 3).sum(), M23),
    (lambda x: (x ** 4).sum().reshape(1, 1), X3),  # one element, not 0-d
]


@pytest.mark.parametrize("vectorize", [False, True])
@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,case", [("jacobian", i) for i in range(len(JACOBIAN_CASES))]
                         + [("hessian", i) for i in range(len(HESSIAN_CASES))])
def test_jacobian_and_hessian_match_torch(name, case, create_graph, vectorize):
    torch = _torch()
    func, arrays = (JACOBIAN_CASES if name == "jacobian" else HESSIAN_CASES)[case]

    def run(lib):
        transform = getattr(lib.autograd.functional, name)
        return transform(func, _to_lib(lib, arrays), create_graph=create_graph,
                         vectorize=vectorize)

    _assert_same(run(tapegrad), run(torch), requires_grad=False if not create_graph else None)


PRODUCT_CASES = {
    # name: (func, inputs, v)
    "vjp": [(_vector, X3, X3[::-1].copy()), (_two_in_two_out, (X3, Y2), (X3, Y2[None])),
            (_scalar, X3, None)],
    "jvp": [(_vector, X3, X3[::-1].copy()), (_two_in_two_out, (X3, Y2), (X3 * 2, Y2)),
            (lambda x: x.exp() * 3, np.array(0.5), None)],
    "vhp": [(_scalar, X3, X3[::-1].copy()), (_scalar_of_two, (X3, Y2), (X3 * 2, Y2)),
            (lambda x: x.exp().sum() * x.sum(), np.array([0.5]), None)],
    "hvp": [(_scalar, X3, X3[::-1].copy()), (_scalar_of_two, (X3, Y2), (X3 * 2, Y2)),
            (lambda x: x.exp().sum() * x.sum(), np.array([0.5]), None)],
}


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,case", [(name, i) for name, cases in PRODUCT_CASES.items()
                                       for i in range(len(cases))])
def test_vector_products_match_torch(name, case, create_graph):
    torch = _torch()
    func, arrays, v = PRODUCT_CASES[name][case]

    def run(lib):
        vector = None if v is None else _to_lib(lib, v)
        return getattr(lib.autograd.functional, name)(func, _to_lib(lib, arrays), vector,
                                                      create_graph=create_graph)

    ours, theirs = run(tapegrad), run(torch)
    assert isinstance(ours, tuple) and len(ours) == 2
    _assert_same(ours, theirs, requires_grad=False if not create_graph else None)


def test_create_graph_result_is_differentiable_wrt_caller_inputs():
    torch = _torch()

    def run(lib):
        x = lib.tensor(X3, dtype=lib.float64, requires_grad=True)
        _, product = lib.autograd.functional.vjp(_vector, x, x * 1.5, create_graph=True)
        return lib.autograd.grad(product.sum(), x)

    _assert_same(run(tapegrad), run(torch))


def test_inputs_are_detached_without_create_graph():
    x = tapegrad.tensor(X3, requires_grad=True)
    output, product = functional.vjp(_vector, x, tapegrad.ones(3, dtype=tapegrad.float64))
    assert not output.requires_grad and not product.requires_grad
    assert output.grad_fn is None and x.grad is None


def test_forward_mode_strategy_is_not_implemented():
    x = tapegrad.tensor(X3)
    with pytest.raises(NotImplementedError, match='strategy="forward-mode" yet'):
        functional.jacobian(_vector, x, strategy="forward-mode", vectorize=True)
    with pytest.raises(NotImplementedError, match="only implemented for `vectorize=True`"):
        functional.hessian(_scalar, x, outer_jacobian_strategy="forward-mode")


# ---- torch comparison: errors ------------------------------------------------------------------

def _independent(x, y):
    return x * 2


def _constant_output(x):
    return x.detach() * 2


def _linear(x):
    return (x * 3).sum()


ERROR_CASES = [
    lambda lib: lib.autograd.functional.jacobian(_independent, _to_lib(lib, (X3, X3)),
                                                 strict=True),
    lambda lib: lib.autograd.functional.jacobian(_constant_output, _to_lib(lib, X3), strict=True),
    lambda lib: lib.autograd.functional.jacobian(lambda x: x.detach() + x.sum(),
                                                 _to_lib(lib, X3), strict=True, create_graph=True),
    lambda lib: lib.autograd.functional.vjp(_independent, _to_lib(lib, (X3, X3)),
                                            _to_lib(lib, X3), strict=True),
    lambda lib: lib.autograd.functional.vjp(_vector, _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.vjp(_vector, _to_lib(lib, X3), _to_lib(lib, Y2)),
    lambda lib: lib.autograd.functional.vjp(_two_in_two_out, _to_lib(lib, (X3, Y2)),
                                            _to_lib(lib, (X3,))),
    lambda lib: lib.autograd.functional.vjp(_two_in_two_out, _to_lib(lib, (X3, Y2)),
                                            _to_lib(lib, (X3, Y2))),
    lambda lib: lib.autograd.functional.vjp(_vector, [_to_lib(lib, X3)], _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.vjp(_vector, (_to_lib(lib, X3), 3), _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.jvp(_vector, _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.jvp(_independent, _to_lib(lib, (X3, X3)),
                                            _to_lib(lib, (X3, X3)), strict=True),
    lambda lib: lib.autograd.functional.jvp(_constant_output, _to_lib(lib, X3),
                                            _to_lib(lib, X3), strict=True),
    lambda lib: lib.autograd.functional.hessian(_vector, _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.hessian(lambda x: (x.sum(), x.sum()), _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.hessian(_linear, _to_lib(lib, X3), strict=True),
    lambda lib: lib.autograd.functional.hessian(lambda x, y: (x ** 2).sum(),
                                                _to_lib(lib, (X3, X3)), strict=True),
    lambda lib: lib.autograd.functional.vhp(_vector, _to_lib(lib, X3), _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.vhp(_linear, _to_lib(lib, X3), _to_lib(lib, X3),
                                            strict=True),
    lambda lib: lib.autograd.functional.vhp(_scalar, _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.hvp(lambda x: (x.sum(), x.sum()), _to_lib(lib, X3),
                                            _to_lib(lib, X3)),
    lambda lib: lib.autograd.functional.hvp(_linear, _to_lib(lib, X3), _to_lib(lib, X3),
                                            strict=True),
    lambda lib: lib.autograd.functional.hvp(_scalar, _to_lib(lib, X3), _to_lib(lib, Y2)),
    lambda lib: lib.autograd.functional.jacobian(_vector, _to_lib(lib, X3), strategy="sideways"),
]


@pytest.mark.parametrize("case", range(len(ERROR_CASES)))
def test_errors_match_torch(case):
    _same_error(ERROR_CASES[case])


def test_strict_independent_output_message():
    x, y = tapegrad.tensor(X3), tapegrad.tensor(X3)
    with pytest.raises(RuntimeError, match="The output of the user-provided function is "
                       "independent of input 1. This is not allowed in strict mode."):
        functional.vjp(_independent, (x, y), tapegrad.tensor(X3), strict=True)


def test_non_strict_independent_input_gives_zeros():
    x, y = tapegrad.tensor(X3), tapegrad.tensor(Y2)
    jacobian = functional.jacobian(lambda x, y: x * 2, (x, y))
    np.testing.assert_array_equal(jacobian[1].numpy(), np.zeros((3, 2)))
    _, product = functional.vjp(lambda x, y: x * 2, (x, y), tapegrad.ones(3, dtype=x.dtype))
    np.testing.assert_array_equal(product[1].numpy(), np.zeros(2))


# ---- without torch: finite differences and an MLP Hessian -----------------------------------

def _finite_difference_jacobian(func, x, eps=1e-6):
    columns = []
    for i in range(x.size):
        step = np.zeros_like(x)
        step[i] = eps
        plus = func(tapegrad.tensor(x + step)).numpy()
        minus = func(tapegrad.tensor(x - step)).numpy()
        columns.append((plus - minus) / (2 * eps))
    return np.stack(columns, axis=-1)


def test_jacobian_matches_finite_differences():
    x = rng.standard_normal(4)
    jacobian = functional.jacobian(_vector, tapegrad.tensor(x))
    assert jacobian.shape == (4, 4) and jacobian.dtype == tapegrad.float64
    np.testing.assert_allclose(jacobian.numpy(), _finite_difference_jacobian(_vector, x),
                               rtol=1e-6, atol=1e-7)


def test_jvp_and_vjp_agree_with_jacobian():
    x, v = tapegrad.tensor(X3), tapegrad.tensor(rng.standard_normal(3))
    jacobian = functional.jacobian(_vector, x).numpy()
    np.testing.assert_allclose(functional.jvp(_vector, x, v)[1].numpy(), jacobian @ v.numpy())
    np.testing.assert_allclose(functional.vjp(_vector, x, v)[1].numpy(), v.numpy() @ jacobian)


def _mlp_loss(w1, b1, w2, b2):
    """Squared error of a 2-3-1 tanh MLP on a fixed batch."""
    lib = tapegrad if isinstance(w1, tapegrad.Tensor) else _torch()
    inputs = lib.tensor([[0.5, -1.0], [1.5, 0.25], [-0.75, 2.0]], dtype=lib.float64)
    targets = lib.tensor([[0.3], [-0.2], [0.9]], dtype=lib.float64)
    hidden = (inputs @ w1.T + b1).tanh()
    return ((hidden @ w2.T + b2 - targets) ** 2).mean()


MLP_PARAMETERS = (rng.standard_normal((3, 2)), rng.standard_normal(3),
                  rng.standard_normal((1, 3)), rng.standard_normal(1))


def test_mlp_hessian_is_symmetric_and_matches_finite_differences():
    parameters = _to_lib(tapegrad, MLP_PARAMETERS)
    hessian = functional.hessian(_mlp_loss, parameters)
    sizes = [p.numel() for p in parameters]
    assert len(hessian) == 4 and all(len(row) == 4 for row in hessian)
    for i, row in enumerate(hessian):
        for j, block in enumerate(row):
            assert block.shape == parameters[i].shape + parameters[j].shape
    full = np.block([[block.numpy().reshape(sizes[i], sizes[j]) for j, block in enumerate(row)]
                     for i, row in enumerate(hessian)])
    np.testing.assert_allclose(full, full.T, rtol=1e-10, atol=1e-12)

    # The Hessian is the Jacobian of the gradient; check it against finite differences of it.
    flat = np.concatenate([p.ravel() for p in MLP_PARAMETERS])
    offsets = np.cumsum([0] + sizes)

    def gradient(flat_tensor):
        split = tuple(tapegrad.tensor(flat_tensor.numpy()[offsets[k]:offsets[k + 1]]
                                      .reshape(MLP_PARAMETERS[k].shape)) for k in range(4))
        _, grads = functional.vjp(_mlp_loss, split)
        return tapegrad.tensor(np.concatenate([g.numpy().ravel() for g in grads]))

    np.testing.assert_allclose(full, _finite_difference_jacobian(gradient, flat),
                               rtol=1e-5, atol=1e-7)


def test_mlp_hessian_matches_torch():
    torch = _torch()
    ours = functional.hessian(_mlp_loss, _to_lib(tapegrad, MLP_PARAMETERS))
    theirs = torch.autograd.functional.hessian(_mlp_loss, _to_lib(torch, MLP_PARAMETERS))
    _assert_same(ours, theirs, requires_grad=False)


def test_mlp_hvp_matches_hessian_product():
    parameters = _to_lib(tapegrad, MLP_PARAMETERS)
    vector = tuple(tapegrad.tensor(rng.standard_normal(p.shape)) for p in MLP_PARAMETERS)
    hessian = functional.hessian(_mlp_loss, parameters)
    _, products = functional.hvp(_mlp_loss, parameters, vector)
    _, left_products = functional.vhp(_mlp_loss, parameters, vector)
    for i, row in enumerate(hessian):
        expected = sum(np.tensordot(block.numpy(), vector[j].numpy(), axes=vector[j].ndim)
                       for j, block in enumerate(row))
        np.testing.assert_allclose(products[i].numpy(), expected, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(left_products[i].numpy(), expected, rtol=1e-10, atol=1e-12)


def test_create_graph_results_require_grad():
    x, v = tapegrad.tensor(X3), tapegrad.tensor(X3[::-1].copy())
    assert functional.jacobian(_vector, x, create_graph=True).requires_grad
    assert functional.hessian(_scalar, x, create_graph=True).requires_grad
    for transform in (functional.vjp, functional.jvp, functional.vhp, functional.hvp):
        func = _vector if transform in (functional.vjp, functional.jvp) else _scalar
        output, product = transform(func, x, v, create_graph=True)
        assert output.requires_grad and product.requires_grad


# ---- vectorize=True: one batched grad call ----------------------------------------------------

def _flatten(result):
    if isinstance(result, tapegrad.Tensor):
        return [result]
    return [tensor for inner in result for tensor in _flatten(inner)]


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name,case", [("jacobian", i) for i in range(len(JACOBIAN_CASES))]
                         + [("hessian", i) for i in range(len(HESSIAN_CASES))])
def test_vectorize_equals_row_loop(name, case, create_graph):
    func, arrays = (JACOBIAN_CASES if name == "jacobian" else HESSIAN_CASES)[case]
    transform = getattr(functional, name)
    looped = transform(func, _to_lib(tapegrad, arrays), create_graph=create_graph)
    vectorized = transform(func, _to_lib(tapegrad, arrays), create_graph=create_graph,
                           vectorize=True)
    assert type(vectorized) is type(looped)
    assert len(_flatten(vectorized)) == len(_flatten(looped))
    for ours, expected in zip(_flatten(vectorized), _flatten(looped)):
        assert ours.shape == expected.shape and ours.dtype == expected.dtype
        assert ours.requires_grad == expected.requires_grad
        # the same products of the same numbers, so equal to the last bit
        np.testing.assert_array_equal(ours.detach().numpy(), expected.detach().numpy())


def test_vectorized_jacobian_of_unused_input_and_constant_output_is_zero():
    x, y = tapegrad.tensor(X3), tapegrad.tensor(Y2, dtype=tapegrad.float32)
    constant, total = functional.jacobian(lambda x, y: (x.detach() * 2, x.sum()), (x, y),
                                          vectorize=True)
    np.testing.assert_array_equal(constant[0].numpy(), np.zeros((3, 3)))
    np.testing.assert_array_equal(constant[1].numpy(), np.zeros((3, 2), np.float32))
    np.testing.assert_array_equal(total[0].numpy(), np.ones(3))
    assert total[1].shape == (2,) and total[1].dtype == tapegrad.float32


def test_vectorized_jacobian_is_the_finite_difference_jacobian():
    x = rng.standard_normal(4)
    jacobian = functional.jacobian(_vector, tapegrad.tensor(x), vectorize=True)
    np.testing.assert_allclose(jacobian.numpy(), _finite_difference_jacobian(_vector, x),
                               rtol=1e-6, atol=1e-7)


def test_vectorized_mlp_hessian_matches_loop_and_torch():
    parameters = _to_lib(tapegrad, MLP_PARAMETERS)
    vectorized = functional.hessian(_mlp_loss, parameters, vectorize=True)
    for ours, expected in zip(_flatten(vectorized),
                              _flatten(functional.hessian(_mlp_loss, parameters))):
        np.testing.assert_array_equal(ours.numpy(), expected.numpy())
    torch = _torch()
    theirs = torch.autograd.functional.hessian(_mlp_loss, _to_lib(torch, MLP_PARAMETERS),
                                               vectorize=True)
    _assert_same(vectorized, theirs, requires_grad=False)


def test_vectorized_jacobian_create_graph_is_differentiable():
    torch = _torch()

    def run(lib):
        x = lib.tensor(X3, dtype=lib.float64, requires_grad=True)
        jacobian = lib.autograd.functional.jacobian(_vector, x, create_graph=True,
                                                    vectorize=True)
        return lib.autograd.grad((jacobian ** 2).sum(), x)

    _assert_same(run(tapegrad), run(torch))


VECTORIZE_ERROR_CASES = [
    lambda lib: lib.autograd.functional.jacobian(_vector, _to_lib(lib, X3), strict=True,
                                                 vectorize=True),
    lambda lib: lib.autograd.functional.jacobian(_constant_output, _to_lib(lib, X3), strict=True,
                                                 vectorize=True),
    lambda lib: lib.autograd.functional.hessian(_scalar, _to_lib(lib, X3), strict=True,
                                                vectorize=True),
    lambda lib: lib.autograd.functional.jacobian(lambda x: x[:0], _to_lib(lib, X3),
                                                 vectorize=True),
    lambda lib: lib.autograd.functional.jacobian(_vector, _to_lib(lib, X3),
                                                 strategy="forward-mode"),
    lambda lib: lib.autograd.functional.jacobian(_vector, _to_lib(lib, X3),
                                                 strategy="forward-mode", strict=True),
    lambda lib: lib.autograd.functional.jacobian(_vector, _to_lib(lib, X3), create_graph=True,
                                                 strategy="forward-mode", strict=True),
    lambda lib: lib.autograd.functional.hessian(_scalar, _to_lib(lib, X3),
                                                outer_jacobian_strategy="forward-mode"),
]


@pytest.mark.parametrize("case", range(len(VECTORIZE_ERROR_CASES)))
def test_vectorize_and_strategy_errors_match_torch(case):
    _same_error(VECTORIZE_ERROR_CASES[case])


def test_vectorize_with_strict_is_refused():
    with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not "
                       "supported together"):
        functional.jacobian(_vector, tapegrad.tensor(X3), strict=True, vectorize=True)
