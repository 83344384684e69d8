"""torch.bernoulli, normal, poisson, multinomial and Tensor.cauchy_, geometric_, log_normal_:
distributions over many samples, seeding, dtypes, nodes and gradients, torch's errors."""
import math

import numpy as np
import pytest

import tapegrad
from compare import same, same_error, torch_or_skip

N = 10 ** 6


def _within(values, mean, variance, n=None):
    """The sample mean within 5 standard errors of the distribution's mean."""
    n = n or values.size
    assert abs(values.mean() - mean) < 5 * math.sqrt(variance / n)


# ---- distributions -------------------------------------------------------------------------

def test_bernoulli_of_probabilities_matches_them():
    tapegrad.manual_seed(0)
    p = tapegrad.tensor([0.0, 0.2, 0.9, 1.0], dtype=tapegrad.float64).expand(N // 4, 4)
    values = tapegrad.bernoulli(p).numpy()
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert values[:, 0].max() == 0 and values[:, 3].min() == 1
    for column, q in ((1, 0.2), (2, 0.9)):
        _within(values[:, column], q, q * (1 - q))


@pytest.mark.parametrize("dtype", [tapegrad.float32, tapegrad.int64, tapegrad.bool])
def test_bernoulli_with_a_number_keeps_input_dtype(dtype):
    tapegrad.manual_seed(0)
    values = tapegrad.bernoulli(tapegrad.zeros(N, dtype=dtype), 0.3)
    assert values.dtype is dtype
    _within(values.numpy().astype(np.float64), 0.3, 0.21)
    assert tapegrad.zeros(4).bernoulli(p=0.0).tolist() == [0.0] * 4


@pytest.mark.parametrize("overload", ["tensor-float", "float-tensor", "tensor-tensor", "size"])
def test_normal_overloads_have_the_moments(overload):
    tapegrad.manual_seed(0)
    mean, std = tapegrad.full((N,), 1.5, dtype=tapegrad.float64), tapegrad.full((N,), 2.0)
    values = {"tensor-float": lambda: tapegrad.normal(mean, 2.0),
              "float-tensor": lambda: tapegrad.normal(1.5, std),
              "tensor-tensor": lambda: tapegrad.normal(mean, std),
              "size": lambda: tapegrad.normal(1.5, 2.0, (N,))}[overload]().numpy()
    _within(values, 1.5, 4.0)
    assert abs(values.var() - 4.0) < 5 * math.sqrt(2 * 16.0 / N)


def test_normal_broadcasts_mean_and_std():
    tapegrad.manual_seed(0)
    mean = tapegrad.tensor([[-10.0], [10.0]], dtype=tapegrad.float64)
    std = tapegrad.tensor([0.0, 1.0, 1e-3], dtype=tapegrad.float64)
    values = tapegrad.normal(mean, std).numpy()
    assert values.shape == (2, 3)
    assert values[:, 0].tolist() == [-10.0, 10.0]
    assert np.all(np.abs(values - mean.numpy()) < 6)


def test_normal_of_a_complex_mean_adds_it_to_both_parts():
    tapegrad.manual_seed(0)
    values = tapegrad.normal(tapegrad.full((N,), 3.0 + 1.0j), 2.0).numpy()
    for part, mean in ((values.real, 3.0), (values.imag, 1.0)):
        _within(part.astype(np.float64), mean, 2.0)


def test_poisson_has_the_rates_as_mean_and_variance():
    tapegrad.manual_seed(0)
    rates = tapegrad.tensor([0.0, 0.5, 4.0, 1e6], dtype=tapegrad.float64).expand(N // 4, 4)
    values = tapegrad.poisson(rates).numpy()
    assert values[:, 0].max() == 0 and np.all(values == np.round(values))
    for column, rate in ((1, 0.5), (2, 4.0), (3, 1e6)):
        _within(values[:, column], rate, rate)
    huge = tapegrad.poisson(tapegrad.tensor([1e18, 1e19, float("inf")], dtype=tapegrad.float64))
    # torch's kernel samples an int64: past 2**63 (and for an infinite rate) it overflows
    assert abs(huge[0].item() / 1e18 - 1) < 1e-6 and huge[1:].tolist() == [-2.0 ** 63] * 2


def test_multinomial_with_replacement_follows_the_weights():
    tapegrad.manual_seed(0)
    weights = tapegrad.tensor([1.0, 0.0, 3.0])
    values = tapegrad.multinomial(weights, N, replacement=True).numpy()
    assert values.dtype == np.int64 and set(np.unique(values)) == {0, 2}
    _within(values == 2, 0.75, 0.75 * 0.25)


def test_multinomial_without_replacement_never_repeats():
    tapegrad.manual_seed(0)
    weights = tapegrad.tensor([[1.0, 2.0, 3.0, 4.0]]).expand(20000, 4)
    values = tapegrad.multinomial(weights, 4).numpy()
    assert values.shape == (20000, 4)
    assert np.all(np.sort(values, axis=1) == np.arange(4))
    # the first draw is category k with probability w_k / sum(w)
    _within(values[:, 0] == 3, 0.4, 0.24)
    # zero weights come last, once the positive ones are used up (as in torch)
    assert tapegrad.multinomial(tapegrad.tensor([0.0, 1.0, 0.0]), 3).tolist()[0] == 1


def test_multinomial_method_and_rows():
    tapegrad.manual_seed(0)
    rows = tapegrad.tensor([[0.0, 1.0], [1.0, 0.0]])
    assert rows.multinomial(3, True).tolist() == [[1, 1, 1], [0, 0, 0]]
    assert tapegrad.multinomial(tapegrad.zeros(0, 3), 2).shape == (0, 2)


def test_cauchy_quartiles():
    tapegrad.manual_seed(0)
    values = tapegrad.empty(N, dtype=tapegrad.float64).cauchy_(median=1.0, sigma=2.0).numpy()
    # the quartiles of Cauchy(m, s) are m -+ s; a sample quantile's error is ~ 1 / sqrt(N)
    quartiles = np.quantile(values, [0.25, 0.5, 0.75])
    np.testing.assert_allclose(quartiles, [-1.0, 1.0, 3.0], atol=0.02)


@pytest.mark.parametrize("dtype", [tapegrad.float32, tapegrad.float64, tapegrad.int64,
                                   tapegrad.uint8])
def test_geometric_counts_trials(dtype):
    tapegrad.manual_seed(0)
    p = 0.3
    values = tapegrad.empty(N, dtype=dtype).geometric_(p).numpy().astype(np.float64)
    assert values.min() == 1 and np.all(values == np.round(values))
    _within(values, 1 / p, (1 - p) / p ** 2)
    _within(values == 1, p, p * (1 - p))


def test_log_normal_is_exp_of_normal():
    tapegrad.manual_seed(0)
    values = tapegrad.empty(N, dtype=tapegrad.float64).log_normal_(0.5, 0.25).numpy()
    assert values.min() > 0
    _within(np.log(values), 0.5, 0.0625)
    defaults = np.log(tapegrad.empty(N, dtype=tapegrad.float64).log_normal_().numpy())
    _within(defaults, 1.0, 4.0)  # torch's defaults: mean 1, std 2


# ---- seeding --------------------------------------------------------------------------------

DRAWS = {
    "bernoulli": lambda **kw: tapegrad.bernoulli(tapegrad.full((50,), 0.5), **kw),
    "bernoulli-p": lambda **kw: tapegrad.bernoulli(tapegrad.zeros(50), 0.5, **kw),
    "normal": lambda **kw: tapegrad.normal(tapegrad.zeros(50), 1.0, **kw),
    "normal-tensors": lambda **kw: tapegrad.normal(tapegrad.zeros(50), tapegrad.ones(50), **kw),
    "normal-size": lambda **kw: tapegrad.normal(0.0, 1.0, (50,), **kw),
    "poisson": lambda **kw: tapegrad.poisson(tapegrad.full((50,), 3.0), **kw),
    "multinomial": lambda **kw: tapegrad.multinomial(tapegrad.ones(50), 10, **kw),
    "multinomial-replacement": lambda **kw: tapegrad.multinomial(tapegrad.ones(5), 50, True,
                                                                 **kw),
    "cauchy_": lambda **kw: tapegrad.empty(50).cauchy_(**kw),
    "geometric_": lambda **kw: tapegrad.empty(50).geometric_(0.2, **kw),
    "log_normal_": lambda **kw: tapegrad.empty(50).log_normal_(**kw),
}


@pytest.mark.parametrize("name", DRAWS)
def test_manual_seed_reproduces_draws(name):
    tapegrad.manual_seed(5)
    first, second = DRAWS[name]().tolist(), DRAWS[name]().tolist()
    tapegrad.manual_seed(5)
    assert DRAWS[name]().tolist() == first and first != second


@pytest.mark.parametrize("name", DRAWS)
def test_generator_keyword_leaves_the_default_generator_alone(name):
    expected = DRAWS[name](generator=tapegrad.Generator().manual_seed(3)).tolist()
    state = tapegrad.get_rng_state()
    assert DRAWS[name](generator=tapegrad.Generator().manual_seed(3)).tolist() == expected
    assert tapegrad.equal(tapegrad.get_rng_state(), state)


# ---- dtypes, nodes and gradients against torch ----------------------------------------------

def _shape_and_dtype(tensor):
    return tuple(tensor.shape), str(tensor.dtype), tensor.requires_grad


DTYPE_CASES = {
    "normal f32 mean f64 std": lambda L: L.normal(L.zeros(3), L.ones(3, dtype=L.float64)),
    "normal f64 mean f32 std": lambda L: L.normal(L.zeros(3, dtype=L.float64), L.ones(3)),
    "normal float mean half std": lambda L: L.normal(1.0, L.ones(3, dtype=L.float16)),
    "normal bool std": lambda L: L.normal(L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.bool)),
    "normal 0-d tensors": lambda L: L.normal(L.tensor(1.0), L.tensor(2.0)),
    "normal size dtype": lambda L: L.normal(2, 3, [2, 3], dtype=L.float16),
    "normal size complex": lambda L: L.normal(2, 3, (2,), dtype=L.complex64),
    "normal size requires_grad": lambda L: L.normal(2.0, 3.0, L.Size([2, 1]), requires_grad=True),
    "normal empty": lambda L: L.normal(L.zeros(0), 1.0),
    "bernoulli int": lambda L: L.bernoulli(L.zeros(3, dtype=L.int64), 0.5),
    "bernoulli half": lambda L: L.bernoulli(L.full((2,), 0.5, dtype=L.float16)),
    "bernoulli empty": lambda L: L.bernoulli(L.zeros(0, 3)),
    "poisson half": lambda L: L.poisson(L.ones(3, dtype=L.float16)),
    "multinomial 2-d": lambda L: L.multinomial(L.ones(2, 5), 3),
    "geometric int32": lambda L: L.zeros(3, dtype=L.int32).geometric_(0.5),
    "cauchy half": lambda L: L.zeros(3, dtype=L.float16).cauchy_(),
}


@pytest.mark.parametrize("case", DTYPE_CASES)
def test_result_shape_and_dtype_match_torch(case):
    same(lambda lib: _shape_and_dtype(DTYPE_CASES[case](lib)))


def _leaf(lib, *shape):
    return lib.rand(*shape, dtype=lib.float64).requires_grad_()


GRAPH_CASES = {
    "bernoulli": lambda L, x: L.bernoulli(x),
    "bernoulli method": lambda L, x: x.bernoulli(),
    "bernoulli p": lambda L, x: L.bernoulli(x, 0.5),
    "normal tensor float": lambda L, x: L.normal(x, 1.0),
    "normal float tensor": lambda L, x: L.normal(1.0, x),
    "normal tensor tensor": lambda L, x: L.normal(x, x),
    "normal broadcast": lambda L, x: L.normal(x, _leaf(L, 2, 1)),
    "poisson": lambda L, x: L.poisson(x),
    "cauchy_": lambda L, x: (x * 1).cauchy_(),
    "geometric_": lambda L, x: (x * 1).geometric_(0.5),
    "log_normal_": lambda L, x: (x * 1).log_normal_(),
    "random_ to": lambda L, x: (x * 1).random_(5),
    "random_ from to": lambda L, x: (x * 1).random_(1, 5),
    "bernoulli_ tensor": lambda L, x: (x * 1).bernoulli_(x.detach()),
    "bernoulli_ p requires grad": lambda L, x: (x.detach() * 1).bernoulli_(x),
}


@pytest.mark.parametrize("case", GRAPH_CASES)
def test_nodes_and_zero_gradients_match_torch(case):
    def scenario(lib):
        lib.manual_seed(0)
        x = _leaf(lib, 3)
        result = GRAPH_CASES[case](lib, x)
        node = result.grad_fn
        structure = (type(node).__name__, [type(n).__name__ if n else None
                                           for n, _ in node.next_functions])
        if structure[0] == "NotImplemented":
            return structure
        grads = lib.autograd.grad(result.sum(), x, allow_unused=True, materialize_grads=True)
        return structure, grads[0].tolist(), str(grads[0].dtype)
    same(scenario)


def test_bernoulli_with_p_has_no_derivative_like_torch():
    same_error(lambda lib: lib.bernoulli(_leaf(lib, 3), 0.5).sum().backward())


def test_normal_gradient_reaches_std_of_another_dtype():
    def scenario(lib):
        mean, std = _leaf(lib, 3).float(), _leaf(lib, 3)
        grads = lib.autograd.grad(lib.normal(mean, std).sum(), (mean, std))
        return [(g.tolist(), str(g.dtype)) for g in grads]
    same(scenario)


RANDINT_LIKE_CASES = {
    "high": lambda L, x: L.randint_like(x, 10),
    "low high": lambda L, x: L.randint_like(x, 2, 10),
    "high keyword": lambda L, x: L.randint_like(x, high=10),
    "low and high keyword": lambda L, x: L.randint_like(x, 2, high=5),
    "input keyword": lambda L, x: L.randint_like(input=x, high=5),
    "tensor high": lambda L, x: L.randint_like(x, L.tensor(10.0)),
    "dtype": lambda L, x: L.randint_like(x, 10, dtype=L.int32),
    "bool": lambda L, x: L.randint_like(x, 2, dtype=L.bool),
    "requires_grad": lambda L, x: L.randint_like(x, 10, requires_grad=True),
    "generator": lambda L, x: L.randint_like(x, 10, generator=L.Generator()),
    "memory_format": lambda L, x: L.randint_like(x, 10, memory_format=L.contiguous_format),
    "channels_last input": lambda L, x: L.randint_like(
        L.zeros(2, 3, 2, 2).contiguous(memory_format=L.channels_last), 4),
}


@pytest.mark.parametrize("case", RANDINT_LIKE_CASES)
def test_randint_like_matches_torch(case):
    def scenario(lib):
        result = RANDINT_LIKE_CASES[case](lib, lib.zeros(2, 3, dtype=lib.float64))
        return _shape_and_dtype(result), result.stride()
    same(scenario)


def test_randint_like_is_uniform_on_its_range():
    tapegrad.manual_seed(0)
    values = tapegrad.randint_like(tapegrad.zeros(N, dtype=tapegrad.int64), -3, 7).numpy()
    assert set(np.unique(values)) == set(range(-3, 7))
    _within(values, 1.5, (10 ** 2 - 1) / 12)
    first = tapegrad.randint_like(tapegrad.zeros(50), 100, generator=tapegrad.Generator()
                                  .manual_seed(1)).tolist()
    again = tapegrad.randint_like(tapegrad.zeros(50), 100, generator=tapegrad.Generator()
                                  .manual_seed(1)).tolist()
    assert first == again


# ---- torch's errors --------------------------------------------------------------------------

def _x(lib, dtype="float64", n=3):
    return lib.rand(n, dtype=lib.float64).to(getattr(lib, dtype))


ERRORS = {
    # normal
    "normal no arguments": lambda L: L.normal(),
    "normal two floats": lambda L: L.normal(2.0, 3.0),
    "normal size with tensor": lambda L: L.normal(_x(L), 1.0, (3,)),
    "normal str std": lambda L: L.normal(_x(L), "a"),
    "normal int size": lambda L: L.normal(1.0, 1.0, 2),
    "normal float size": lambda L: L.normal(1.0, 1.0, [2.0]),
    "normal negative size": lambda L: L.normal(1.0, 1.0, (-1,)),
    "normal dtype with tensor": lambda L: L.normal(_x(L), 1.0, dtype=L.float32),
    "normal unknown keyword": lambda L: L.normal(_x(L), _x(L), foo=1),
    "normal generator int": lambda L: L.normal(_x(L), _x(L), generator=3),
    "normal negative std": lambda L: L.normal(_x(L), -1.0),
    "normal nan std": lambda L: L.normal(_x(L), float("nan")),
    "normal negative std tensor": lambda L: L.normal(_x(L), -_x(L)),
    "normal float mean negative std": lambda L: L.normal(1.0, -_x(L)),
    "normal size negative std": lambda L: L.normal(1.0, -1.0, (2,)),
    "normal std before dtype": lambda L: L.normal(_x(L, "int64"), -1.0),
    "normal int mean": lambda L: L.normal(_x(L, "int64"), 1.0),
    "normal int std": lambda L: L.normal(1.0, _x(L, "int64")),
    "normal bool std for float mean": lambda L: L.normal(1.0, _x(L, "bool")),
    "normal size int dtype": lambda L: L.normal(2.0, 3.0, [2, 3], dtype=L.int64),
    "normal complex std": lambda L: L.normal(_x(L), _x(L).to(L.complex64)),
    "normal broadcast": lambda L: L.normal(_x(L), _x(L, n=2)),
    "normal complex grad": lambda L: L.normal(_x(L).to(L.complex64).requires_grad_(), 1.0),
    "normal None std": lambda L: L.normal(_x(L), None),
    "normal pinned": lambda L: L.normal(1.0, 1.0, (2,), pin_memory=True),
    "normal cuda": lambda L: L.normal(1.0, 1.0, (2,), device="cuda"),
    # bernoulli
    "bernoulli no arguments": lambda L: L.bernoulli(),
    "bernoulli number input": lambda L: L.bernoulli(0.5),
    "bernoulli tensor p keyword": lambda L: L.bernoulli(_x(L), p=_x(L)),
    "bernoulli str p": lambda L: L.bernoulli(_x(L), "a"),
    "bernoulli generator int": lambda L: L.bernoulli(_x(L), generator=1),
    "bernoulli int probabilities": lambda L: L.bernoulli(_x(L, "int64")),
    "bernoulli complex probabilities": lambda L: L.bernoulli(_x(L, "complex64")),
    "bernoulli complex with p": lambda L: L.bernoulli(_x(L, "complex64"), 0.5),
    "bernoulli probabilities above 1": lambda L: L.bernoulli(_x(L) * 2 + 1),
    "bernoulli nan probability": lambda L: L.bernoulli(L.tensor([float("nan")])),
    "bernoulli p above 1": lambda L: L.bernoulli(_x(L), 1.5),
    "bernoulli method tensor p": lambda L: _x(L).bernoulli(_x(L)),
    "bernoulli method keyword": lambda L: _x(L).bernoulli(foo=1),
    "bernoulli method p twice": lambda L: _x(L).bernoulli(0.5, p=0.5),
    "bernoulli p twice": lambda L: L.bernoulli(_x(L), 0.5, p=0.5),
    "bernoulli_ p twice": lambda L: _x(L).bernoulli_(0.5, p=0.5),
    # poisson
    "poisson negative rate": lambda L: L.poisson(-_x(L) - 1),
    "poisson nan rate": lambda L: L.poisson(L.tensor([float("nan")])),
    "poisson int": lambda L: L.poisson(_x(L, "int64")),
    "poisson complex": lambda L: L.poisson(_x(L, "complex64")),
    "poisson generator int": lambda L: L.poisson(_x(L), 3),
    "poisson number": lambda L: L.poisson(3.0),
    # multinomial
    "multinomial missing num_samples": lambda L: L.multinomial(_x(L)),
    "multinomial too many": lambda L: L.multinomial(_x(L), 4),
    "multinomial zero": lambda L: L.multinomial(_x(L), 0),
    "multinomial negative": lambda L: L.multinomial(_x(L), -1),
    "multinomial float count": lambda L: L.multinomial(_x(L), 2.0),
    "multinomial bool count": lambda L: L.multinomial(_x(L), True),
    "multinomial int replacement": lambda L: L.multinomial(_x(L), 2, 1),
    "multinomial None replacement": lambda L: L.multinomial(_x(L), 2, replacement=None),
    "multinomial four positional": lambda L: L.multinomial(_x(L), 2, True, None),
    "multinomial unknown keyword": lambda L: L.multinomial(_x(L), num_samples=2, foo=1),
    "multinomial generator int": lambda L: L.multinomial(_x(L), 2, generator=2),
    "multinomial number input": lambda L: L.multinomial(2, 2),
    "multinomial method three positional": lambda L: _x(L).multinomial(2, True, None),
    "multinomial method float count": lambda L: _x(L).multinomial(2.0),
    "multinomial method int replacement": lambda L: _x(L).multinomial(2, 1),
    "multinomial method input keyword": lambda L: _x(L).multinomial(input=_x(L), num_samples=2),
    "multinomial int input": lambda L: L.multinomial(_x(L, "int64"), 2),
    "multinomial complex input": lambda L: L.multinomial(_x(L, "complex64"), 2),
    "multinomial 0-d": lambda L: L.multinomial(L.tensor(1.0), 1),
    "multinomial 0-d int": lambda L: L.multinomial(L.tensor(1), 1),
    "multinomial 3-d": lambda L: L.multinomial(L.rand(2, 3, 4), 1),
    "multinomial negative weight": lambda L: L.multinomial(L.tensor([1.0, -1.0]), 1),
    "multinomial inf weight": lambda L: L.multinomial(L.tensor([1.0, float("inf")]), 2),
    "multinomial all zero": lambda L: L.multinomial(L.zeros(3), 2),
    "multinomial zero row": lambda L: L.multinomial(L.tensor([[1.0, 0], [0, 0]]), 1),
    "multinomial no categories": lambda L: L.multinomial(L.rand(2, 0), 1),
    "multinomial replacement negative": lambda L: L.multinomial(L.tensor([1.0, -1]), 3, True),
    "multinomial replacement nan": lambda L: L.multinomial(L.tensor([1.0, float("nan")]), 3,
                                                           True),
    "multinomial replacement inf": lambda L: L.multinomial(L.tensor([1.0, float("inf")]), 3,
                                                           True),
    "multinomial replacement zero": lambda L: L.multinomial(L.zeros(2), 3, True),
    "multinomial replacement rows": lambda L: L.multinomial(L.tensor([[1.0, 1], [0, -1]]), 3,
                                                            True),
    "multinomial replacement empty": lambda L: L.multinomial(L.rand(2, 0), 1, True),
    # cauchy_, geometric_, log_normal_, exponential_
    "cauchy zero sigma": lambda L: _x(L).cauchy_(0, 0),
    "cauchy negative sigma": lambda L: _x(L).cauchy_(0, -1),
    "cauchy nan sigma": lambda L: _x(L).cauchy_(0, float("nan")),
    "cauchy str": lambda L: _x(L).cauchy_("a"),
    "cauchy three": lambda L: _x(L).cauchy_(1, 2, 3),
    "cauchy unknown keyword": lambda L: _x(L).cauchy_(mean=1),
    "cauchy int64": lambda L: _x(L, "int64").cauchy_(),
    "cauchy int8": lambda L: _x(L, "int8").cauchy_(),
    "cauchy bool": lambda L: _x(L, "bool").cauchy_(),
    "cauchy complex128": lambda L: _x(L, "complex128").cauchy_(),
    "cauchy sigma before dtype": lambda L: _x(L, "int64").cauchy_(0, 0),
    "geometric missing p": lambda L: _x(L).geometric_(),
    "geometric p 0": lambda L: _x(L).geometric_(0),
    "geometric p 1": lambda L: _x(L).geometric_(1),
    "geometric p nan": lambda L: _x(L).geometric_(float("nan")),
    "geometric two": lambda L: _x(L).geometric_(0.5, 1),
    "geometric p twice": lambda L: _x(L).geometric_(0.5, p=0.5),
    "geometric str": lambda L: _x(L).geometric_("a"),
    "geometric generator int": lambda L: _x(L).geometric_(0.3, generator=1),
    "geometric bool": lambda L: _x(L, "bool").geometric_(0.5),
    "geometric complex": lambda L: _x(L, "complex64").geometric_(0.5),
    "log_normal zero std": lambda L: _x(L).log_normal_(0, 0),
    "log_normal three": lambda L: _x(L).log_normal_(0, 1, 2),
    "log_normal str": lambda L: _x(L).log_normal_("a"),
    "log_normal generator int": lambda L: _x(L).log_normal_(generator=3),
    "log_normal int": lambda L: _x(L, "int32").log_normal_(),
    "log_normal uint8": lambda L: _x(L, "uint8").log_normal_(),
    "exponential int32": lambda L: _x(L, "int32").exponential_(),
    # randint_like
    "randint_like bool out of bounds": lambda L: L.randint_like(_x(L), 10, dtype=L.bool),
    "randint_like int requires grad": lambda L: L.randint_like(_x(L), 10, dtype=L.long,
                                                               requires_grad=True),
    "randint_like float high": lambda L: L.randint_like(_x(L), 10.0),
    "randint_like no bounds": lambda L: L.randint_like(_x(L)),
    "randint_like bool high": lambda L: L.randint_like(_x(L), True),
    "randint_like low alone": lambda L: L.randint_like(_x(L), low=2),
    "randint_like four": lambda L: L.randint_like(_x(L), 2, 5, 6),
    "randint_like low above high": lambda L: L.randint_like(_x(L), 10, 2),
    "randint_like uint8 high": lambda L: L.randint_like(_x(L), 300, dtype=L.uint8),
    "randint_like uint8 low": lambda L: L.randint_like(_x(L), -1, 3, dtype=L.uint8),
    "randint_like unknown keyword": lambda L: L.randint_like(_x(L), 10, foo=1),
    "randint_like number input": lambda L: L.randint_like(3, 10),
    "randint_like complex": lambda L: L.randint_like(_x(L, "complex64"), 10),
    "randint_like generator int": lambda L: L.randint_like(_x(L), 10, generator=1),
    "cauchy on a leaf": lambda L: _x(L).requires_grad_().cauchy_(),
    "geometric on a leaf": lambda L: _x(L).requires_grad_().geometric_(0.5),
}


@pytest.mark.parametrize("case", ERRORS)
def test_errors_match_torch(case):
    same_error(ERRORS[case])


def test_accepted_arguments_match_torch():
    torch = torch_or_skip()
    calls = [
        lambda L: L.zeros(3).cauchy_(median=1, sigma=2, generator=None).shape,
        lambda L: L.zeros(3).geometric_(p=1 - 1e-12).tolist(),
        lambda L: L.zeros(3).log_normal_(std=1, generator=L.Generator()).shape,
        lambda L: L.zeros(3).cauchy_(float("nan")).isnan().tolist(),
        lambda L: L.normal(mean=L.zeros(2), std=0.0).tolist(),
        lambda L: L.normal(L.zeros(2), generator=None).shape,
        lambda L: L.normal(1.5, 0.0, size=(2,), device="cpu", pin_memory=False).tolist(),
        lambda L: L.bernoulli(input=L.ones(2)).tolist(),
        lambda L: L.multinomial(input=L.tensor([0.0, 1.0]), num_samples=2, replacement=True)
        .tolist(),
        lambda L: L.poisson(L.zeros(2), L.Generator()).tolist(),
    ]
    for call in calls:
        assert call(tapegrad) == call(torch)


BINOMIAL_CASES = {
    "vectors": lambda lib, g: lib.binomial(lib.tensor([10.0, 20.0, 5.0, 0.0, 7.0]),
                                           lib.tensor([0.3, 0.5, 0.9, 0.5, 1.0])),
    "large counts": lambda lib, g: lib.binomial(lib.full((6,), 1e4, dtype=lib.float64),
                                                lib.tensor([0.01, 0.2, 0.5, 0.7, 0.99, 0.0],
                                                           dtype=lib.float64)),
    "generator": lambda lib, g: lib.binomial(lib.tensor([10.0, 20.0]), lib.tensor([0.3, 0.5]),
                                             generator=g),
    "broadcast prob": lambda lib, g: lib.binomial(lib.full((2, 3), 8.0), lib.tensor([0.25])),
}


@pytest.mark.parametrize("case", BINOMIAL_CASES.values(), ids=BINOMIAL_CASES)
def test_binomial_draws_torchs_numbers(case):
    same(lambda lib: (lib.manual_seed(3), case(lib, lib.Generator().manual_seed(5)))[1].tolist())


@pytest.mark.parametrize("call", [
    lambda lib: lib.binomial(lib.ones(3), 0.5),
    lambda lib: lib.binomial(lib.ones(2, dtype=lib.int64), lib.ones(2)),
    lambda lib: lib.binomial(lib.ones(2, dtype=lib.float64), lib.ones(2)),
    lambda lib: lib.binomial(lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.float16)),
    lambda lib: lib.binomial(lib.ones(2), lib.ones(2), generator=1),
    lambda lib: lib.binomial(lib.ones(2), lib.ones(2, requires_grad=True)).sum().backward(),
], ids=["number prob", "integer count", "mixed dtypes", "half", "bad generator", "backward"])
def test_binomial_errors_match_torch(call):
    same_error(call)


def test_binomial_records_torchs_node_and_warns_on_broadcast_count():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        drawn = lib.binomial(lib.ones(2) * 4, lib.tensor([0.5, 0.5], requires_grad=True))
        with pytest.warns(UserWarning) as caught:
            lib.binomial(lib.ones(3, 1), lib.ones(2) * 0.5)
        message = str(caught[0].message).split(" (Triggered internally")[0]
        seen.append((drawn.grad_fn.name(), message, hasattr(lib.Tensor, "binomial")))
    assert seen[0] == seen[1]
