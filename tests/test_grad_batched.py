"""autograd.grad(..., is_grads_batched=True): one vector-Jacobian product per grad_output row."""
import functools

import numpy as np
import pytest

import tapegrad

X3 = np.array([0.3, -1.2, 2.0])
Y2 = np.array([0.5, 1.5])


def _torch():
    return pytest.importorskip("torch")


def _leaf(lib, array):
    return lib.tensor(array, dtype=lib.float64, requires_grad=True)


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def _as_numpy(result):
    if isinstance(result, tuple):
        return tuple(_as_numpy(item) for item in result)
    if result is None:
        return None
    return result.detach().numpy(), str(result.dtype), result.requires_grad


def _assert_same(ours, theirs):
    """Same structure, dtypes, requires_grad and values (float64: to 1e-12)."""
    ours, theirs = _as_numpy(ours), _as_numpy(theirs)
    assert len(ours) == len(theirs)
    for our, their in zip(ours, theirs):
        if their is None:
            assert our is None
            continue
        assert our[1:] == their[1:] and our[0].shape == their[0].shape
        np.testing.assert_allclose(our[0], their[0], rtol=1e-12, atol=1e-14)


# ---- values: analytic, per-row loops, torch ---------------------------------------------------

def test_grad_batched_rows_are_vector_jacobian_products():
    x = _leaf(tapegrad, X3)
    vectors = np.arange(12.0).reshape(4, 3) - 5
    (result,) = tapegrad.autograd.grad(x.sin() * 2, x, tapegrad.tensor(vectors),
                                       is_grads_batched=True)
    assert result.shape == (4, 3) and result.dtype == tapegrad.float64
    np.testing.assert_allclose(result.numpy(), vectors * 2 * np.cos(X3), rtol=1e-14)


def test_grad_batched_equals_loop_over_rows():
    x, y = _leaf(tapegrad, X3), _leaf(tapegrad, Y2)
    outputs = ((x[:, None] * y).exp(), x.sum() * y)
    rng = np.random.default_rng(0)
    batched = (tapegrad.tensor(rng.standard_normal((5, 3, 2))),
               tapegrad.tensor(rng.standard_normal((5, 2))))
    result = tapegrad.autograd.grad(outputs, (x, y), batched, retain_graph=True,
                                    is_grads_batched=True)
    assert [r.shape for r in result] == [(5, 3), (5, 2)]
    for row in range(5):
        expected = tapegrad.autograd.grad(outputs, (x, y), tuple(v[row] for v in batched),
                                          retain_graph=True)
        for ours, theirs in zip(result, expected):
            np.testing.assert_array_equal(ours[row].numpy(), theirs.numpy())


def test_grad_batched_leaves_dot_grad_untouched():
    x = _leaf(tapegrad, X3)
    tapegrad.autograd.grad(x * x, x, tapegrad.eye(3, dtype=tapegrad.float64),
                           is_grads_batched=True)
    assert x.grad is None


def test_grad_batched_casts_grad_outputs_to_output_dtype():
    x = _leaf(tapegrad, X3)
    (result,) = tapegrad.autograd.grad(x * 3, x, tapegrad.eye(3), is_grads_batched=True)
    assert result.dtype == tapegrad.float64
    np.testing.assert_array_equal(result.numpy(), 3 * np.eye(3))


def _value_cases(lib):
    grad = functools.partial(lib.autograd.grad, retain_graph=True, is_grads_batched=True)
    x, y = _leaf(lib, X3), _leaf(lib, Y2)
    eye = lib.eye(3, dtype=lib.float64)
    batch = lib.arange(18.0, dtype=lib.float64).reshape(2, 3, 3)
    doubled = x * 2
    return [
        lambda: grad(x.sin() * 2, x, eye),
        lambda: grad(x.exp() * x[:, None], x, batch),
        lambda: grad([x.sin(), y * 3], [x, y], (eye, lib.ones(3, 2, dtype=lib.float64) * 2)),
        lambda: grad(x.sum(), x, lib.tensor([1.0, 2.0], dtype=lib.float64)),
        lambda: grad(x.sin(), [x, y], eye, allow_unused=True),
        lambda: grad(x.sin(), [x, y], eye, materialize_grads=True),
        lambda: grad(x.exp(), [x, y], eye, create_graph=True, materialize_grads=True),
        lambda: grad(x.sin(), x, lib.eye(3)),
        lambda: grad(doubled.exp(), doubled, batch[:, 0]),  # a non-leaf input
    ]


@pytest.mark.parametrize("case", range(len(_value_cases(tapegrad))))
def test_grad_batched_values_match_torch(case):
    torch = _torch()
    _assert_same(_value_cases(tapegrad)[case](), _value_cases(torch)[case]())


def test_grad_batched_materialized_zeros_are_unbatched():
    # torch fills an unused input with zeros of the input's shape, without the batch dimension
    x, y = _leaf(tapegrad, X3), _leaf(tapegrad, Y2)
    eye = tapegrad.eye(3, dtype=tapegrad.float64)
    _, zeros = tapegrad.autograd.grad(x.exp(), [x, y], eye, is_grads_batched=True,
                                      create_graph=True, materialize_grads=True)
    assert zeros.shape == (2,) and zeros.requires_grad and zeros.grad_fn is None
    assert zeros.tolist() == [0.0, 0.0]


# ---- retain_graph / create_graph ----------------------------------------------------------------

def test_grad_batched_frees_graph_unless_retained():
    x = _leaf(tapegrad, X3)
    output = x.exp()
    eye = tapegrad.eye(3, dtype=tapegrad.float64)
    tapegrad.autograd.grad(output, x, eye, is_grads_batched=True, retain_graph=True)
    tapegrad.autograd.grad(output, x, eye, is_grads_batched=True)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second"):
        tapegrad.autograd.grad(output, x, eye, is_grads_batched=True)


def test_grad_batched_create_graph_is_differentiable_in_inputs_and_vectors():
    x = _leaf(tapegrad, X3)
    vectors = tapegrad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    (result,) = tapegrad.autograd.grad(x.exp(), x, vectors, is_grads_batched=True,
                                       create_graph=True)
    assert result.requires_grad
    grad_x, grad_vectors = tapegrad.autograd.grad(result.sum(), [x, vectors])
    # result[b, i] = v[b, i] * exp(x[i])
    np.testing.assert_allclose(grad_x.numpy(), np.arange(6.0).reshape(2, 3).sum(0)
                               * np.exp(X3), rtol=1e-14)
    np.testing.assert_allclose(grad_vectors.numpy(), np.tile(np.exp(X3), (2, 1)), rtol=1e-14)


def test_grad_batched_create_graph_matches_torch():
    torch = _torch()

    def run(lib):
        x = _leaf(lib, X3)
        vectors = lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float64,
                             requires_grad=True)
        (result,) = lib.autograd.grad((x * x.sum()).tanh(), x, vectors, is_grads_batched=True,
                                      create_graph=True)
        return lib.autograd.grad((result ** 2).sum(), [x, vectors])

    _assert_same(run(tapegrad), run(torch))


# ---- errors: torch's types and texts ------------------------------------------------------------

def _error_cases(lib):
    grad = functools.partial(lib.autograd.grad, retain_graph=True, is_grads_batched=True)
    x, y = _leaf(lib, X3), _leaf(lib, Y2)
    constant = lib.tensor(X3, dtype=lib.float64)
    eye = lib.eye(3, dtype=lib.float64)
    ones = functools.partial(lib.ones, dtype=lib.float64)
    return [
        lambda: grad(x.sin(), [x, y], eye),                                 # unused input
        lambda: grad([x.sin(), y * 3], [x, y], (eye, ones(4, 2))),          # batch sizes differ
        lambda: grad(x.sum(), x, None),                                     # implicit 0-d seed
        lambda: grad(x.sum(), x, ones(())),                                 # 0-d grad_output
        lambda: grad([x.sum(), y * 3], [x, y], [None, ones(4, 2)]),
        lambda: grad(x.sum().reshape(1), x, None),                          # implicit (1,) seed
        lambda: grad([x * 2, x.sum().reshape(1)], x, [ones(2, 3), None]),
        lambda: grad([x * 2, constant], x, [ones(2, 3), None]),             # None grad_output
        lambda: grad([x * 2, constant], x, [ones(2, 3), ones(2, 3)]),       # output without grad
        lambda: grad(x.sin(), x, lib.zeros(0, 3, dtype=lib.float64)),       # empty batch
        lambda: grad(x.sin(), x, eye[None]),                                # no batch dimension
        lambda: grad(x.sin(), x, [[1.0, 2.0, 3.0]]),
        lambda: grad(x * 2, x),                                             # non-scalar, None
        lambda: grad(x.sin(), x, eye, allow_unused=False, materialize_grads=True),
        lambda: grad(x.sin(), [], eye),
    ]


@pytest.mark.parametrize("case", range(len(_error_cases(tapegrad))))
def test_grad_batched_errors_match_torch(case):
    torch = _torch()
    assert _error(_error_cases(tapegrad)[case]) == _error(_error_cases(torch)[case])


def test_grad_batched_shape_mismatch_message():
    x = _leaf(tapegrad, X3)
    with pytest.raises(RuntimeError) as info:
        tapegrad.autograd.grad(x * 2, x, tapegrad.ones(2, 4), is_grads_batched=True)
    message = str(info.value)
    assert message.startswith("If `is_grads_batched=True`, we interpret the first dimension")
    # torch strips the batch dimension twice when it reports the grad_output's shape
    assert "grad_output[0] has a shape of torch.Size([]) and output[0] has a shape of " \
           "torch.Size([3])." in message


def test_grad_batched_batch_size_mismatch_is_a_value_error():
    x, y = _leaf(tapegrad, X3), _leaf(tapegrad, Y2)
    with pytest.raises(ValueError, match=r"got sizes \[3, 4\] for the mapped dimension"):
        tapegrad.autograd.grad([x * 2, y * 2], [x, y], (tapegrad.ones(3, 3),
                               tapegrad.ones(4, 2)), is_grads_batched=True)
