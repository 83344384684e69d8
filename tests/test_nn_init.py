"""nn.init: distributions checked against their analytic moments; gains, fans, defaults and
error texts checked against torch. Random streams differ from torch's by design, so values are
compared by statistics over large samples (with fixed seeds), never element by element."""
import math
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad import nn
from tapegrad.nn import init
from compare import same_error, torch_or_skip


def _sample(fill, shape=(1000, 1000), dtype=tapegrad.float64):
    tapegrad.manual_seed(0)
    return fill(tapegrad.empty(shape, dtype=dtype)).numpy()


def _check_moments(values, mean, std, samples=10**6):
    # 6 standard errors: a fixed-seed check that still catches a wrong scale or offset
    assert abs(values.mean() - mean) < 6 * std / math.sqrt(samples)
    assert abs(values.std() - std) < 6 * std / math.sqrt(2 * samples)


# ---- gains and fans ---------------------------------------------------------------------------

@pytest.mark.parametrize("nonlinearity,param", [
    ("linear", None), ("conv1d", None), ("conv_transpose3d", None), ("sigmoid", None),
    ("tanh", None), ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2),
    ("leaky_relu", 1), ("selu", None)])
def test_calculate_gain_matches_torch(nonlinearity, param):
    torch = torch_or_skip()
    mine = init.calculate_gain(nonlinearity, param)
    assert mine == torch.nn.init.calculate_gain(nonlinearity, param)
    assert type(mine) is type(torch.nn.init.calculate_gain(nonlinearity, param))


def test_calculate_gain_known_values():
    assert init.calculate_gain("relu") == math.sqrt(2.0)
    assert init.calculate_gain("tanh") == 5.0 / 3
    assert init.calculate_gain("leaky_relu", 0.5) == math.sqrt(2.0 / 1.25)


@pytest.mark.parametrize("call", ["calculate_gain('foo')", "calculate_gain('leaky_relu', True)",
                                  "calculate_gain('leaky_relu', 'x')"])
def test_calculate_gain_errors_match_torch(call):
    same_error(lambda lib: eval("lib.nn.init." + call))


@pytest.mark.parametrize("shape", [(3, 5), (4, 2, 3), (8, 3, 5, 5), (2, 1, 2, 3, 4)])
def test_fan_in_and_fan_out_match_torch(shape):
    torch = torch_or_skip()
    assert init._calculate_fan_in_and_fan_out(tapegrad.empty(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_fan_in_and_fan_out_known_values():
    assert init._calculate_fan_in_and_fan_out(tapegrad.empty(8, 3, 5, 5)) == (75, 200)


# ---- distributions ----------------------------------------------------------------------------

def test_uniform_bounds_and_moments():
    values = _sample(lambda t: init.uniform_(t, -2.0, 3.0))
    assert values.min() >= -2.0 and values.max() < 3.0
    _check_moments(values, 0.5, 5 / math.sqrt(12))


def test_normal_moments():
    _check_moments(_sample(lambda t: init.normal_(t, 1.5, 0.25)), 1.5, 0.25)


def test_xavier_uniform_uses_torch_bound():
    values = _sample(lambda t: init.xavier_uniform_(t, gain=2.0), shape=(1000, 1000))
    bound = 2.0 * math.sqrt(6.0 / 2000)
    assert values.min() >= -bound and values.max() <= bound
    assert values.max() > 0.999 * bound and values.min() < -0.999 * bound
    _check_moments(values, 0.0, bound / math.sqrt(3))


def test_xavier_normal_std():
    _check_moments(_sample(lambda t: init.xavier_normal_(t, gain=0.5), shape=(500, 2000)), 0.0,
                   0.5 * math.sqrt(2.0 / 2500))


@pytest.mark.parametrize("mode,fan", [("fan_in", 250), ("fan_out", 100000)])
def test_kaiming_uniform_defaults_and_modes(mode, fan):
    values = _sample(lambda t: init.kaiming_uniform_(t, mode=mode), shape=(4000, 10, 5, 5))
    bound = math.sqrt(6.0 / fan)  # default: leaky_relu with a=0, gain sqrt(2)
    assert values.min() >= -bound and values.max() <= bound and values.max() > 0.999 * bound
    _check_moments(values, 0.0, bound / math.sqrt(3))


def test_kaiming_normal_with_slope_and_relu():
    _check_moments(_sample(lambda t: init.kaiming_normal_(t, a=0.5)), 0.0,
                   math.sqrt(2.0 / 1.25) / math.sqrt(1000))
    _check_moments(_sample(lambda t: init.kaiming_normal_(t, nonlinearity="relu",
                                                          mode="FAN_OUT")),
                   0.0, math.sqrt(2.0) / math.sqrt(1000))


def _truncated_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    z = cdf(beta) - cdf(alpha)
    shift = (pdf(alpha) - pdf(beta)) / z
    variance = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - shift ** 2
    return mean + std * shift, std * math.sqrt(variance)


@pytest.mark.parametrize("mean,std,a,b", [
    (0.0, 1.0, -2.0, 2.0),     # most mass inside: redraws out-of-range normals
    (0.5, 2.0, -1.0, 4.0),
    (0.0, 1.0, 1.5, 3.0),      # a thin tail slice: uniform proposals with acceptance
    (0.0, 0.1, -0.05, 0.01)])
def test_trunc_normal_bounds_and_moments(mean, std, a, b):
    values = _sample(lambda t: init.trunc_normal_(t, mean, std, a, b))
    assert values.min() >= a and values.max() <= b
    _check_moments(values, *_truncated_moments(mean, std, a, b))


def test_trunc_normal_far_mean_warns_like_torch():
    torch = torch_or_skip()
    texts = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = lib.nn.init.trunc_normal_(lib.empty(100), mean=10.0)
        assert float(result.min()) >= -2.0 and float(result.max()) <= 2.0
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] and len(texts[0]) == 1


@pytest.mark.parametrize("shape,gain", [((6, 4), 1.0), ((3, 7), 2.0), ((4, 2, 3), 0.5)])
def test_orthogonal_rows_or_columns_are_orthonormal(shape, gain):
    tapegrad.manual_seed(3)
    matrix = init.orthogonal_(tapegrad.empty(shape, dtype=tapegrad.float64),
                              gain=gain).numpy().reshape(shape[0], -1) / gain
    gram = matrix.T @ matrix if matrix.shape[0] >= matrix.shape[1] else matrix @ matrix.T
    np.testing.assert_allclose(gram, np.eye(len(gram)), atol=1e-12)


def test_orthogonal_float32_is_orthonormal():
    tapegrad.manual_seed(3)
    matrix = init.orthogonal_(tapegrad.empty(5, 5)).numpy()
    assert matrix.dtype == np.float32
    np.testing.assert_allclose(matrix.T @ matrix, np.eye(5), atol=1e-6)


# ---- deterministic fills and the in-place contract --------------------------------------------

def test_constant_ones_zeros_eye_match_torch():
    torch = torch_or_skip()
    for name, args in [("constant_", (2.5,)), ("ones_", ()), ("zeros_", ()), ("eye_", ())]:
        for shape in [(3, 4), (4, 3)]:
            mine = getattr(init, name)(tapegrad.empty(shape), *args)
            theirs = getattr(torch.nn.init, name)(torch.empty(shape), *args)
            np.testing.assert_array_equal(mine.numpy(), theirs.numpy())
    mine = init.constant_(tapegrad.zeros(2, dtype=tapegrad.int64), 2.7)
    assert mine.tolist() == torch.nn.init.constant_(torch.zeros(2, dtype=torch.long), 2.7).tolist()


@pytest.mark.parametrize("fill", [
    lambda t: init.uniform_(t), lambda t: init.normal_(t), lambda t: init.constant_(t, 0.3),
    lambda t: init.ones_(t), lambda t: init.zeros_(t), lambda t: init.eye_(t),
    lambda t: init.xavier_uniform_(t), lambda t: init.xavier_normal_(t),
    lambda t: init.kaiming_uniform_(t), lambda t: init.kaiming_normal_(t),
    lambda t: init.orthogonal_(t), lambda t: init.trunc_normal_(t)])
def test_init_fills_parameter_in_place_without_graph(fill):
    param = nn.Parameter(tapegrad.full((3, 4), 7.0))
    pointer, version = param.data_ptr(), param._version
    result = fill(param)
    assert result is param and param.data_ptr() == pointer and param._version > version
    assert param.requires_grad and param.grad_fn is None and param.dtype == tapegrad.float32
    assert not (param == 7.0).all()
    (param * 2).sum().backward()  # still an ordinary leaf
    assert param.grad.tolist() == [[2.0] * 4] * 3


def test_init_reproducible_with_manual_seed_and_generator():
    def draw(seed, generator=None):
        tapegrad.manual_seed(seed)
        return init.kaiming_uniform_(tapegrad.empty(5, 5), generator=generator).tolist()
    assert draw(1) == draw(1) and draw(1) != draw(2)
    generator = tapegrad.Generator().manual_seed(4)
    first = draw(1, generator)
    assert first == draw(2, tapegrad.Generator().manual_seed(4)) != draw(1)


def test_init_keeps_float64():
    tensor = init.xavier_uniform_(tapegrad.empty(3, 3, dtype=tapegrad.float64))
    assert tensor.dtype == tapegrad.float64


def test_kaiming_on_empty_tensor_warns_like_torch():
    torch = torch_or_skip()
    texts = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert lib.nn.init.kaiming_uniform_(lib.empty(0, 3)).shape == (0, 3)
            lib.nn.init.kaiming_normal_(lib.empty(0, 3))
        texts.append([str(w.message) for w in caught])
    assert texts[0] == texts[1] == ["Initializing zero-element tensors is a no-op"] * 2


@pytest.mark.parametrize("call", [
    "xavier_uniform_(lib.ones(2))", "xavier_normal_(lib.ones(2))",
    "kaiming_uniform_(lib.ones(2, 2), mode='fan')", "kaiming_normal_(lib.ones(3))",
    "eye_(lib.ones(2, 2, 2))", "orthogonal_(lib.ones(2))",
    "uniform_(lib.ones(2), 1.0, 0.0)", "normal_(lib.ones(2), 0.0, -1.0)",
    "uniform_(lib.ones(2, dtype=lib.long))", "normal_(lib.ones(2, dtype=lib.long))",
    "kaiming_uniform_(lib.ones(2, 2), nonlinearity='foo')"])
def test_init_errors_match_torch(call):
    same_error(lambda lib: eval("lib.nn.init." + call))
