"""nn.utils: gradient clipping and parameter/vector conversion, checked against torch and
against values worked out by hand."""
import math
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad import nn
from tapegrad.nn import utils
from compare import error_of, torch_or_skip


SHAPES = [(3, 4), (4,), (), (2, 2, 2)]


def _params_with_grads(lib, dtype, scale=1.0, missing=(1,)):
    """Parameters with the same seeded gradients in either library; some have no gradient."""
    rng = np.random.default_rng(7)
    params = []
    for i, shape in enumerate(SHAPES):
        param = lib.nn.Parameter(lib.tensor(rng.standard_normal(shape)).to(dtype))
        grad = rng.standard_normal(shape) * scale
        if i not in missing:
            param.grad = lib.tensor(grad).to(dtype)
        params.append(param)
    return params


def _grads(params):
    return [None if p.grad is None else p.grad.numpy().copy() for p in params]


def _tolerance(dtype_name):
    return dict(rtol=1e-6, atol=0) if dtype_name == "float32" else dict(rtol=1e-13, atol=0)


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("norm_type", [2.0, 1, float("inf"), 0.5, 3.0, "inf"])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(dtype_name, norm_type, max_norm):
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, getattr(lib, dtype_name))
        total = lib.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        results.append((total, _grads(params)))
    (mine, my_grads), (theirs, their_grads) = results
    assert str(mine.dtype) == str(theirs.dtype) and mine.shape == theirs.shape == ()
    np.testing.assert_allclose(mine.item(), theirs.item(), **_tolerance(dtype_name))
    for a, b in zip(my_grads, their_grads):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, **_tolerance(dtype_name))


def test_clip_grad_norm_known_values():
    param = nn.Parameter(tapegrad.zeros(2, dtype=tapegrad.float64))
    param.grad = tapegrad.tensor([3.0, 4.0], dtype=tapegrad.float64)
    total = utils.clip_grad_norm_(param, 1.0)
    assert total.item() == 5.0
    np.testing.assert_allclose(param.grad.numpy(), [3 / (5 + 1e-6), 4 / (5 + 1e-6)], rtol=1e-15)
    param.grad = tapegrad.tensor([3.0, -4.0], dtype=tapegrad.float64)
    assert utils.clip_grad_norm_([param], 10.0, norm_type="inf").item() == 4.0
    assert param.grad.tolist() == [3.0, -4.0]  # below max_norm: unchanged


def test_clip_grad_norm_accepts_module_parameter_generator():
    module = nn.Module()
    module.w = nn.Parameter(tapegrad.ones(3))
    module.w.grad = tapegrad.full((3,), 2.0)
    total = utils.clip_grad_norm_(module.parameters(), max_norm=1.0)
    np.testing.assert_allclose(total.item(), math.sqrt(12), rtol=1e-6)
    np.testing.assert_allclose(module.w.grad.numpy(), 2 / (math.sqrt(12) + 1e-6), rtol=1e-6)


def test_clip_grad_norm_runs_without_recording_graph():
    param = nn.Parameter(tapegrad.ones(2))
    param.grad = tapegrad.ones(2)
    total = utils.clip_grad_norm_([param], 0.1)
    assert total.grad_fn is None and param.grad.grad_fn is None and not total.requires_grad


def test_clip_grad_norm_nonfinite_error_matches_torch():
    torch = torch_or_skip()
    texts = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, lib.float32)
        params[0].grad[0, 0] = float("nan")
        texts.append(error_of(lambda: lib.nn.utils.clip_grad_norm_(params, 1.0,
                                                                 error_if_nonfinite=True)))
    assert texts[0] == texts[1]


def test_clip_grad_norm_nonfinite_without_error_scales_by_nan_like_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, lib.float64)
        params[2].grad.fill_(float("inf"))
        total = lib.nn.utils.clip_grad_norm_(params, 1.0)
        results.append((total.item(), [None if g is None else np.isnan(g).all()
                                        for g in _grads(params)]))
    assert results[0] == results[1] and results[0][0] == float("inf")


def test_clip_grad_norm_empty_generator_warns_like_torch():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            total = lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)
        seen.append((repr(total), [str(w.message) for w in caught]))
    assert seen[0] == seen[1] and len(seen[0][1]) == 1


def test_clip_grad_norm_no_gradients_returns_zero():
    params = _params_with_grads(tapegrad, tapegrad.float32, missing=range(4))
    assert repr(utils.clip_grad_norm_(params, 1.0)) == "tensor(0.)"


def test_get_total_norm_and_clip_grads_with_norm_match_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, lib.float64)
        total = lib.nn.utils.get_total_norm([p.grad for p in params if p.grad is not None], 3.0)
        lib.nn.utils.clip_grads_with_norm_(params, 0.25, total)
        results.append((total.item(), _grads(params)))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-13)
    for a, b in zip(results[0][1], results[1][1]):
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-13)


@pytest.mark.parametrize("clip_value", [0.3, 1, 5.0])
def test_clip_grad_value_matches_torch(clip_value):
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, lib.float32, scale=2.0)
        assert lib.nn.utils.clip_grad_value_(params, clip_value) is None
        results.append(_grads(params))
    for a, b in zip(*results):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_array_equal(a, b)


def test_clip_grad_value_known_values():
    param = nn.Parameter(tapegrad.zeros(4))
    param.grad = tapegrad.tensor([-3.0, -0.5, 0.5, 3.0])
    utils.clip_grad_value_(param, 1.0)
    assert param.grad.tolist() == [-1.0, -0.5, 0.5, 1.0]


def test_parameters_to_vector_matches_torch_and_is_differentiable():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        params = _params_with_grads(lib, lib.float64)
        vector = lib.nn.utils.parameters_to_vector(params)
        (vector * lib.arange(vector.numel(), dtype=lib.float64)).sum().backward()
        results.append((vector.detach().numpy().copy(), type(vector.grad_fn).__name__,
                        [p.grad.numpy().copy() for p in params]))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    assert results[0][1] == results[1][1]
    for a, b in zip(results[0][2], results[1][2]):
        np.testing.assert_array_equal(a, b)


def test_vector_to_parameters_roundtrip_and_shared_storage():
    params = _params_with_grads(tapegrad, tapegrad.float64)
    vector = tapegrad.arange(sum(p.numel() for p in params), dtype=tapegrad.float64)
    utils.vector_to_parameters(vector, params)
    assert params[0].tolist() == np.arange(12.0).reshape(3, 4).tolist()
    assert params[2].tolist() == 16.0 and params[3].shape == (2, 2, 2)
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in params)
    np.testing.assert_array_equal(utils.parameters_to_vector(params).detach().numpy(),
                                  vector.numpy())
    vector[0] = 100.0  # torch's vector_to_parameters makes the parameters views of vec
    assert params[0][0, 0].item() == 100.0


def test_vector_to_parameters_type_error_matches_torch():
    torch = torch_or_skip()
    texts = [error_of(lambda: lib.nn.utils.vector_to_parameters([1.0], []))
             for lib in (tapegrad, torch)]
    assert texts[0] == texts[1]
