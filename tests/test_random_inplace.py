"""In-place samplers (Tensor.uniform_, normal_, bernoulli_, exponential_, random_) and
Tensor.is_complex: distributions over 1e6 samples, seeding, versions, autograd, torch's errors."""
import math
import warnings

import numpy as np
import pytest

import tapegrad

N = 10 ** 6
FLOATS = [tapegrad.float16, tapegrad.float32, tapegrad.float64]


def _torch():
    return pytest.importorskip("torch")


def _samples(dtype, fill, seed=0):
    tapegrad.manual_seed(seed)
    return fill(tapegrad.empty(N, dtype=dtype)).numpy().astype(np.float64)


def _assert_moments(values, mean, variance, fourth_central_moment):
    """Sample mean and variance within 5 standard errors of the distribution's."""
    mean_error = math.sqrt(variance / N)
    variance_error = math.sqrt((fourth_central_moment - variance ** 2) / N)
    assert abs(values.mean() - mean) < 5 * mean_error
    assert abs(values.var() - variance) < 5 * variance_error


# ---- distributions -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", FLOATS)
def test_uniform_moments_and_half_open_range(dtype):
    values = _samples(dtype, lambda x: x.uniform_(-2.0, 3.0))
    width = 5.0
    # float16 rounds each sample to ~1e-3; the moments' errors stay far below 5 SE
    _assert_moments(values, 0.5, width ** 2 / 12, width ** 4 / 80)
    assert values.min() >= -2.0 and values.max() < 3.0


def test_uniform_defaults_and_equal_bounds():
    values = _samples(tapegrad.float64, lambda x: x.uniform_())
    _assert_moments(values, 0.5, 1 / 12, 1 / 80)
    assert tapegrad.empty(4).uniform_(2, 2).tolist() == [2.0] * 4


def test_uniform_stays_below_an_unrepresentable_bound():
    values = _samples(tapegrad.float16, lambda x: x.uniform_(0.0, 0.1))
    assert values.max() < 0.1


@pytest.mark.parametrize("dtype", FLOATS)
def test_normal_moments(dtype):
    values = _samples(dtype, lambda x: x.normal_(1.5, 2.0))
    _assert_moments(values, 1.5, 4.0, 3 * 16.0)


def test_normal_with_zero_std_is_the_mean():
    assert tapegrad.empty(3).normal_(mean=2.5, std=0).tolist() == [2.5] * 3


@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential_moments_and_positivity(dtype):
    rate = 4.0
    values = _samples(dtype, lambda x: x.exponential_(rate))
    _assert_moments(values, 1 / rate, 1 / rate ** 2, 9 / rate ** 4)
    if dtype is not tapegrad.float16:  # float16 flushes samples below 6e-8 to zero
        assert values.min() > 0


@pytest.mark.parametrize("dtype", FLOATS + [tapegrad.int64, tapegrad.uint8, tapegrad.bool])
def test_bernoulli_frequency(dtype):
    values = _samples(dtype, lambda x: x.bernoulli_(0.3))
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert abs(values.mean() - 0.3) < 5 * math.sqrt(0.3 * 0.7 / N)


def test_bernoulli_with_tensor_probabilities():
    tapegrad.manual_seed(0)
    p = tapegrad.tensor([0.0, 0.25, 1.0], dtype=tapegrad.float64)
    values = tapegrad.empty(N // 4, 3).bernoulli_(p).numpy()
    assert values[:, 0].max() == 0 and values[:, 2].min() == 1
    assert abs(values[:, 1].mean() - 0.25) < 5 * math.sqrt(0.25 * 0.75 / (N // 4))


@pytest.mark.parametrize("dtype", FLOATS + [tapegrad.int64, tapegrad.int8])
def test_random_from_to_is_discrete_uniform(dtype):
    values = _samples(dtype, lambda x: x.random_(-3, 7))
    assert set(np.unique(values)) == set(range(-3, 7))
    count = 10
    _assert_moments(values, 1.5, (count ** 2 - 1) / 12,
                    np.mean((np.arange(-3, 7) - 1.5) ** 4))


def test_random_to_only_starts_at_zero():
    values = _samples(tapegrad.int64, lambda x: x.random_(5))
    assert set(np.unique(values)) == {0, 1, 2, 3, 4}
    assert set(np.unique(_samples(tapegrad.int64, lambda x: x.random_(to=2)))) == {0, 1}


@pytest.mark.parametrize("dtype,top", [(tapegrad.float16, 2 ** 11), (tapegrad.float32, 2 ** 24),
                                       (tapegrad.float64, 2 ** 53), (tapegrad.uint8, 255),
                                       (tapegrad.int8, 127), (tapegrad.int32, 2 ** 31 - 1),
                                       (tapegrad.bool, 1)])
def test_random_default_range_is_the_dtype_top(dtype, top):
    tapegrad.manual_seed(0)
    values = tapegrad.empty(N, dtype=dtype).random_().numpy().astype(np.float64)
    assert values.min() >= 0 and values.max() <= top
    # a uniform draw on [0, top]: mean top / 2 within 5 standard errors
    assert abs(values.mean() - top / 2) < 5 * top / math.sqrt(12 * N)


def test_random_from_without_to_reaches_int64_top():
    values = tapegrad.empty(1000, dtype=tapegrad.int64).random_(2 ** 62, None).numpy()
    assert values.min() >= 2 ** 62 and values.max() > 2 ** 62 + 2 ** 61


@pytest.mark.parametrize("dtype", [tapegrad.complex64, tapegrad.complex128])
def test_complex_parts_are_independent_samples(dtype):
    tapegrad.manual_seed(0)
    uniform = tapegrad.empty(N, dtype=dtype).uniform_(1.0, 2.0).numpy()
    for part in (uniform.real, uniform.imag):
        _assert_moments(part.astype(np.float64), 1.5, 1 / 12, 1 / 80)
    normal = tapegrad.empty(N, dtype=dtype).normal_(3.0, 2.0).numpy()
    # the variance std**2 is split between the two parts, as torch does
    for part in (normal.real, normal.imag):
        _assert_moments(part.astype(np.float64), 3.0, 2.0, 3 * 4.0)
    assert abs(np.corrcoef(normal.real, normal.imag)[0, 1]) < 5 / math.sqrt(N)


# ---- seeding -------------------------------------------------------------------------------

SAMPLERS = {
    "uniform_": lambda x, **kw: x.uniform_(-1, 1, **kw),
    "normal_": lambda x, **kw: x.normal_(**kw),
    "bernoulli_": lambda x, **kw: x.bernoulli_(0.5, **kw),
    "exponential_": lambda x, **kw: x.exponential_(**kw),
    "random_": lambda x, **kw: x.random_(0, 100, **kw),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_manual_seed_reproduces_samples(name):
    fill = SAMPLERS[name]
    tapegrad.manual_seed(123)
    first = fill(tapegrad.empty(50)).tolist()
    second = fill(tapegrad.empty(50)).tolist()
    tapegrad.manual_seed(123)
    assert fill(tapegrad.empty(50)).tolist() == first
    assert first != second


@pytest.mark.parametrize("name", SAMPLERS)
def test_generator_argument_is_independent_of_the_global_seed(name):
    fill = SAMPLERS[name]
    expected = fill(tapegrad.empty(50), generator=tapegrad.Generator().manual_seed(7)).tolist()
    tapegrad.manual_seed(0)
    generator = tapegrad.Generator().manual_seed(7)
    assert fill(tapegrad.empty(50), generator=generator).tolist() == expected
    state = tapegrad.get_rng_state()
    fill(tapegrad.empty(50), generator=generator)
    assert tapegrad.equal(tapegrad.get_rng_state(), state)  # the default generator did not move


# ---- in-place semantics ----------------------------------------------------------------------

@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_returns_self_and_bumps_version_once(name):
    base = tapegrad.zeros(4, 3)
    view = base[1:]
    result = SAMPLERS[name](view)
    assert result is view
    assert base._version == view._version == 1
    SAMPLERS[name](base)
    assert base._version == view._version == 2


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_on_leaf_requiring_grad(name):
    leaf = tapegrad.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="^a leaf Variable that requires grad is being used in "
                       "an in-place operation.$"):
        SAMPLERS[name](leaf)
    with pytest.raises(RuntimeError, match="^a view of a leaf Variable that requires grad is "
                       "being used in an in-place operation.$"):
        SAMPLERS[name](leaf[1:])
    with tapegrad.no_grad():
        SAMPLERS[name](leaf)
    assert leaf._version == 1 and leaf.requires_grad and leaf.grad_fn is None


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_on_non_leaf_gives_zero_gradient(name):
    leaf = tapegrad.ones(3, requires_grad=True)
    hidden = leaf * 2
    SAMPLERS[name](hidden)
    assert hidden.requires_grad and hidden.grad_fn is not None
    (hidden * 3).sum().backward()
    assert leaf.grad.tolist() == [0.0, 0.0, 0.0]


def test_sampler_invalidates_saved_tensor():
    leaf = tapegrad.ones(3, requires_grad=True)
    hidden = leaf * 2
    output = (hidden * hidden).sum()
    hidden.normal_()
    with pytest.raises(RuntimeError, match="has been modified by an inplace operation"):
        output.backward()


@pytest.mark.parametrize("name", SAMPLERS)
def test_sampler_node_name_matches_torch(name):
    torch = _torch()
    names = []
    for lib in (tapegrad, torch):
        hidden = lib.ones(3, requires_grad=True) * 2
        SAMPLERS[name](hidden)
        names.append(hidden.grad_fn.name())
    assert names[0] == names[1]


def test_is_complex():
    assert tapegrad.zeros(2, dtype=tapegrad.complex64).is_complex()
    assert not tapegrad.zeros(2).is_complex()
    assert not tapegrad.zeros(2, dtype=tapegrad.int64).is_complex()


# ---- torch's errors and warnings -------------------------------------------------------------

def _zeros(lib, dtype, n=3):
    return lib.zeros(n, dtype=getattr(lib, dtype))


ERROR_CASES = {
    "uniform int64": lambda L: _zeros(L, "int64").uniform_(),
    "uniform bool": lambda L: _zeros(L, "bool").uniform_(),
    "uniform from > to": lambda L: _zeros(L, "float32").uniform_(1, 0),
    "uniform inf": lambda L: _zeros(L, "float32").uniform_(0, float("inf")),
    "uniform nan": lambda L: _zeros(L, "float32").uniform_(float("nan"), 1),
    "uniform too wide": lambda L: _zeros(L, "float32").uniform_(-3e38, 3e38),
    "uniform half too wide": lambda L: _zeros(L, "float16").uniform_(-6e4, 6e4),
    "uniform complex bound": lambda L: _zeros(L, "complex64").uniform_(float("inf"), 1),
    "uniform empty": lambda L: L.zeros(0).uniform_(1, 0),
    "normal int64": lambda L: _zeros(L, "int64").normal_(),
    "normal negative std": lambda L: _zeros(L, "float32").normal_(0, -1),
    "normal nan std": lambda L: _zeros(L, "float32").normal_(0, float("nan")),
    "normal std before dtype": lambda L: _zeros(L, "int64").normal_(0, -1),
    "bernoulli p > 1": lambda L: _zeros(L, "float32").bernoulli_(1.5),
    "bernoulli p nan": lambda L: _zeros(L, "float32").bernoulli_(float("nan")),
    "bernoulli complex": lambda L: _zeros(L, "complex64").bernoulli_(0.5),
    "bernoulli tensor p out": lambda L: _zeros(L, "float32").bernoulli_(L.tensor([0.5, 1.5, 0.2])),
    "bernoulli tensor p shape": lambda L: _zeros(L, "float32").bernoulli_(L.tensor([0.5, 0.5])),
    "bernoulli tensor p ndim": lambda L: _zeros(L, "float32").bernoulli_(L.tensor([[0., 1, 1]])),
    "bernoulli int p": lambda L: _zeros(L, "float32").bernoulli_(L.tensor([1, 0, 1])),
    "bernoulli complex self": lambda L: _zeros(L, "complex64", 2).bernoulli_(L.tensor([0.2, 0.3])),
    "exponential int64": lambda L: _zeros(L, "int64").exponential_(),
    "exponential zero rate": lambda L: _zeros(L, "float32").exponential_(0),
    "exponential negative rate": lambda L: _zeros(L, "float32").exponential_(-1),
    "exponential complex": lambda L: _zeros(L, "complex64").exponential_(),
    "random from == to": lambda L: _zeros(L, "int64").random_(5, 5),
    "random to 0": lambda L: _zeros(L, "int64").random_(0),
    "random bool to 3": lambda L: _zeros(L, "bool").random_(3),
    "random uint8 negative": lambda L: _zeros(L, "uint8").random_(-1, 5),
    "random int16 too big": lambda L: _zeros(L, "int16").random_(0, 2 ** 40),
    "random half too big": lambda L: _zeros(L, "float16").random_(0, 2 ** 40),
    "random complex": lambda L: _zeros(L, "complex64").random_(),
    "random complex to": lambda L: _zeros(L, "complex64").random_(5),
    "random complex from": lambda L: _zeros(L, "complex64").random_(1, None),
    "random float": lambda L: _zeros(L, "int64").random_(2.5),
    "random bool argument": lambda L: _zeros(L, "int64").random_(True),
    "random from alone": lambda L: _zeros(L, "int64").random_(**{"from": 3}),
    "random to None alone": lambda L: _zeros(L, "int64").random_(to=None),
    "random three": lambda L: _zeros(L, "int64").random_(1, 2, 3),
    "uniform str": lambda L: _zeros(L, "float32").uniform_("a"),
    "uniform str keyword": lambda L: _zeros(L, "float32").uniform_(to="b"),
    "uniform unknown keyword": lambda L: _zeros(L, "float32").uniform_(foo=1),
    "uniform three": lambda L: _zeros(L, "float32").uniform_(1, 2, 3),
    "normal three": lambda L: _zeros(L, "float32").normal_(1, 2, 3),
    "exponential two": lambda L: _zeros(L, "float32").exponential_(1, 2),
    "bernoulli two": lambda L: _zeros(L, "float32").bernoulli_(0.5, 2),
    "bernoulli str": lambda L: _zeros(L, "float32").bernoulli_("a"),
    "uniform generator": lambda L: _zeros(L, "float32").uniform_(generator=3),
    "bernoulli generator": lambda L: _zeros(L, "float32").bernoulli_(L.tensor(0.5), generator=5),
    "uniform on a leaf": lambda L: L.ones(3, requires_grad=True).uniform_(),
}


@pytest.mark.parametrize("case", ERROR_CASES)
def test_errors_match_torch(case):
    torch = _torch()
    errors = []
    for lib in (tapegrad, torch):
        with pytest.raises(Exception) as info:
            ERROR_CASES[case](lib)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


def test_integer_uniform_error_text():
    with pytest.raises(NotImplementedError, match="^\"check_uniform_bounds\" not implemented for "
                       "'Long'$"):
        tapegrad.zeros(3, dtype=tapegrad.int64).uniform_()


def test_random_float_range_warning_matches_torch():
    torch = _torch()
    messages = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.zeros(3).random_(-2 ** 30, 2 ** 25)
        # torch appends where in its C++ source the warning was raised
        messages.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
    assert messages[0] == messages[1] and len(messages[0]) == 2
    assert messages[0][0].startswith("from is out of bounds [-(2^24), 2^24].")


@pytest.mark.parametrize("case", ["uniform", "normal", "bernoulli", "exponential", "random"])
def test_accepted_arguments_match_torch(case):
    torch = _torch()
    calls = {
        "uniform": lambda x, L: x.uniform_(**{"from": 2, "to": 2}),
        "normal": lambda x, L: x.normal_(L.tensor(1.5), std=0),
        "bernoulli": lambda x, L: x.bernoulli_(p=L.tensor(1.0, dtype=L.float64)),
        "exponential": lambda x, L: x.exponential_(lambd=float("inf")),
        "random": lambda x, L: x.random_(4, to=5),
    }
    values = [calls[case](lib.zeros(3), lib).tolist() for lib in (tapegrad, torch)]
    assert values[0] == values[1]
