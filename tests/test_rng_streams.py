"""After manual_seed, the samplers ported to torch's CPU streams (src/tapegrad/_mt.py) draw
exactly torch 2.13's numbers: same bits, for sizes on both sides of the 16-element switch of
normal_, float32 and float64, several seeds (including one above 2**32)."""
import numpy as np
import pytest

import tapegrad

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 42, 2**33 + 7)
SIZES = (1, 3, 15, 16, 17, 40, 1000)
FLOATS = ("float32", "float64")


def _bits(value):
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


def assert_same_stream(draw, seeds=SEEDS):
    """draw(lib) gives bit-identical arrays on torch and tapegrad after manual_seed."""
    for seed in seeds:
        torch.manual_seed(seed)
        want = _bits(draw(torch))
        tapegrad.manual_seed(seed)
        got = _bits(draw(tapegrad))
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), seed


FLOAT_DRAWS = {
    "rand": lambda lib, n, dtype: lib.rand(n, dtype=dtype),
    "randn": lambda lib, n, dtype: lib.randn(n, dtype=dtype),
    "randn twice": lambda lib, n, dtype: (lib.randn(n, dtype=dtype), lib.randn(n, dtype=dtype)),
    "uniform_": lambda lib, n, dtype: lib.empty(n, dtype=dtype).uniform_(-2, 3),
    "normal_": lambda lib, n, dtype: lib.empty(n, dtype=dtype).normal_(0.5, 2.0),
    "random_": lambda lib, n, dtype: lib.empty(n, dtype=dtype).random_(),
    "random_ from to": lambda lib, n, dtype: lib.empty(n, dtype=dtype).random_(-5, 10),
    "rand_like": lambda lib, n, dtype: lib.rand_like(lib.zeros(n, dtype=dtype)),
    "randn_like": lambda lib, n, dtype: lib.randn_like(lib.zeros(n, dtype=dtype)),
    "rand 2-d": lambda lib, n, dtype: lib.rand(n, 3, dtype=dtype),
    "randn 2-d": lambda lib, n, dtype: lib.randn(3, n, dtype=dtype),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", FLOAT_DRAWS)
def test_float_streams(name, n, dtype):
    def draw(lib):
        result = FLOAT_DRAWS[name](lib, n, getattr(lib, dtype))
        return lib.cat(result) if isinstance(result, tuple) else result
    assert_same_stream(draw)


INTEGER_DRAWS = {
    "randint": lambda lib, n: lib.randint(0, 10, (n,)),
    "randint high": lambda lib, n: lib.randint(7, (n, 2)),
    "randint wide": lambda lib, n: lib.randint(-2**40, 2**40, (n,)),
    "randperm": lambda lib, n: lib.randperm(n),
    "random_ int64": lambda lib, n: lib.empty(n, dtype=lib.int64).random_(),
    "random_ int64 full": lambda lib, n: lib.empty(n, dtype=lib.int64).random_(-2**63, None),
    "random_ int32": lambda lib, n: lib.empty(n, dtype=lib.int32).random_(),
    "random_ uint8": lambda lib, n: lib.empty(n, dtype=lib.uint8).random_(),
    "random_ bool": lambda lib, n: lib.empty(n, dtype=lib.bool).random_(),
    "random_ to": lambda lib, n: lib.empty(n, dtype=lib.int16).random_(300),
    "randint_like": lambda lib, n: lib.randint_like(lib.zeros(n), 3, 9),
}


@pytest.mark.parametrize("n", (1, 10, 100))
@pytest.mark.parametrize("name", INTEGER_DRAWS)
def test_integer_streams(name, n):
    assert_same_stream(lambda lib: INTEGER_DRAWS[name](lib, n))


INIT_DRAWS = {
    "kaiming_uniform_": lambda lib, t: lib.nn.init.kaiming_uniform_(t),
    "kaiming_normal_": lambda lib, t: lib.nn.init.kaiming_normal_(t, mode="fan_out"),
    "xavier_uniform_": lambda lib, t: lib.nn.init.xavier_uniform_(t, gain=2.0),
    "xavier_normal_": lambda lib, t: lib.nn.init.xavier_normal_(t),
    "normal_": lambda lib, t: lib.nn.init.normal_(t, 1.0, 0.3),
    "uniform_": lambda lib, t: lib.nn.init.uniform_(t, -0.3, 0.7),
}


@pytest.mark.parametrize("shape", ((2, 3), (3, 2), (64, 32), (10, 7, 3, 3)))
@pytest.mark.parametrize("name", INIT_DRAWS)
def test_init_streams(name, shape):
    assert_same_stream(lambda lib: INIT_DRAWS[name](lib, lib.empty(shape)))


LAYERS = {
    "Linear(3, 2)": lambda nn: nn.Linear(3, 2),
    "Linear(64, 32)": lambda nn: nn.Linear(64, 32),
    "Conv2d(3, 4, 3)": lambda nn: nn.Conv2d(3, 4, 3),
    "Conv1d(2, 5, 4)": lambda nn: nn.Conv1d(2, 5, 4),
    "Embedding(10, 4)": lambda nn: nn.Embedding(10, 4),
    "Bilinear(3, 4, 5)": lambda nn: nn.Bilinear(3, 4, 5),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layer_default_initialisation(name):
    assert_same_stream(lambda lib: lib.cat([p.detach().reshape(-1)
                                            for p in LAYERS[name](lib.nn).parameters()]))


def test_manual_seed_randn_prints_torchs_numbers():
    torch.manual_seed(0)
    tapegrad.manual_seed(0)
    assert repr(tapegrad.randn(3)) == repr(torch.randn(3))


def test_rng_state_is_torchs_bytes():
    for steps in (0, 1, 3, 700):  # 700 scalar normals: past a twist, a cached normal
        torch.manual_seed(5)
        tapegrad.manual_seed(5)
        for _ in range(steps):
            torch.randn(1, dtype=torch.float64)
            tapegrad.randn(1, dtype=tapegrad.float64)
        state = torch.get_rng_state()
        assert np.array_equal(tapegrad.get_rng_state().numpy(), state.numpy())
        tapegrad.set_rng_state(tapegrad.tensor(state.numpy()))
        torch.set_rng_state(state)
        assert np.array_equal(tapegrad.randn(20).numpy(), torch.randn(20).numpy())


def test_generator_objects_draw_torchs_streams():
    want = torch.randn(20, generator=torch.Generator().manual_seed(3))
    got = tapegrad.randn(20, generator=tapegrad.Generator().manual_seed(3))
    assert np.array_equal(got.numpy(), want.numpy())
    generator = tapegrad.Generator().manual_seed(2**40 + 1)
    expected = torch.Generator().manual_seed(2**40 + 1)
    assert np.array_equal(tapegrad.randperm(30, generator=generator).numpy(),
                          torch.randperm(30, generator=expected).numpy())
    assert generator.initial_seed() == expected.initial_seed()
    assert np.array_equal(generator.get_state().numpy(), expected.get_state().numpy())


@pytest.mark.parametrize("state", (5, "state"))
def test_set_rng_state_refuses_what_torch_refuses(state):
    from compare import same_error
    same_error(lambda lib: lib.set_rng_state(state))


def test_set_rng_state_refuses_other_dtypes_and_sizes():
    from compare import same_error
    same_error(lambda lib: lib.set_rng_state(lib.zeros(3)))
    same_error(lambda lib: lib.set_rng_state(lib.zeros(3, dtype=lib.uint8)))


SAMPLE_DRAWS = {
    "bernoulli probabilities": lambda lib, shape, dtype: lib.bernoulli(
        lib.rand(shape, dtype=dtype)),
    "bernoulli p": lambda lib, shape, dtype: lib.bernoulli(lib.zeros(shape, dtype=dtype), 0.3),
    "bernoulli_ p": lambda lib, shape, dtype: lib.zeros(shape, dtype=dtype).bernoulli_(0.6),
    "bernoulli_ tensor": lambda lib, shape, dtype: lib.zeros(shape, dtype=dtype).bernoulli_(
        lib.rand(shape[-1:])),
    "exponential_": lambda lib, shape, dtype: lib.zeros(shape, dtype=dtype).exponential_(2.5),
    "normal tensor float": lambda lib, shape, dtype: lib.normal(
        lib.full(shape, 0.3, dtype=dtype), 2.0),
    "normal float tensor": lambda lib, shape, dtype: lib.normal(
        0.7, lib.full(shape, 1.5, dtype=dtype)),
    "normal tensor tensor": lambda lib, shape, dtype: lib.normal(
        lib.full(shape, 0.3, dtype=dtype), lib.full(shape, 1.5, dtype=dtype)),
    "normal float float": lambda lib, shape, dtype: lib.normal(0.3, 1.7, shape, dtype=dtype),
    "dropout": lambda lib, shape, dtype: lib.nn.functional.dropout(
        lib.ones(shape, dtype=dtype), 0.4),
    "Dropout module": lambda lib, shape, dtype: lib.nn.Dropout(0.2)(lib.ones(shape, dtype=dtype)),
    "feature dropout": lambda lib, shape, dtype: lib.nn.functional.dropout2d(
        lib.ones((2, 3) + shape, dtype=dtype), 0.4),
    "alpha_dropout": lambda lib, shape, dtype: lib.nn.functional.alpha_dropout(
        lib.ones(shape, dtype=dtype), 0.4, True),
}


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", ((5,), (40,), (3, 17)))
@pytest.mark.parametrize("name", SAMPLE_DRAWS)
def test_sampler_streams(name, shape, dtype):
    assert_same_stream(lambda lib: SAMPLE_DRAWS[name](lib, shape, getattr(lib, dtype)))


def test_fork_rng_restores_the_state():
    for lib in (torch, tapegrad):
        lib.manual_seed(3)
        with lib.random.fork_rng():
            lib.randn(5)
        inside = lib.randn(4)
        lib.manual_seed(3)
        assert lib.equal(inside, lib.randn(4))
    tapegrad.manual_seed(3)
    with tapegrad.random.fork_rng(enabled=False):
        tapegrad.randn(5)
    assert tapegrad.random.initial_seed() == 3
    assert tapegrad.random.default_generator is tapegrad.default_generator


def test_default_generator_and_initial_seed_as_torch():
    torch.manual_seed(2**40 + 9)
    tapegrad.manual_seed(2**40 + 9)
    assert tapegrad.initial_seed() == torch.initial_seed()
    assert tapegrad.default_generator.initial_seed() == torch.default_generator.initial_seed()
    assert np.array_equal(tapegrad.default_generator.get_state().numpy(),
                          torch.default_generator.get_state().numpy())


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, num_samples, replacement", (
    ((5,), 3, False), ((5,), 1, False), ((5,), 8, True), ((3, 7), 4, True), ((3, 7), 4, False),
    ((2, 100), 30, True), ((2, 100), 1, True)))
def test_multinomial_streams(shape, num_samples, replacement, dtype):
    weights = np.random.default_rng(0).random(shape)
    weights[..., 1] = 0  # never drawn
    assert_same_stream(lambda lib: lib.multinomial(
        lib.tensor(weights, dtype=getattr(lib, dtype)), num_samples, replacement))


CONTINUOUS_DRAWS = {
    "log_normal_": lambda t: t.log_normal_(0.5, 1.5),
    "cauchy_": lambda t: t.cauchy_(0.5, 1.5),
    "geometric_": lambda t: t.geometric_(0.3),
}


@pytest.mark.parametrize("dtype", FLOATS + ("int64",))
@pytest.mark.parametrize("n", (5, 40))
@pytest.mark.parametrize("name", CONTINUOUS_DRAWS)
def test_scalar_path_samplers(name, n, dtype):
    if dtype == "int64" and name != "geometric_":
        pytest.skip("a continuous distribution")
    assert_same_stream(lambda lib: CONTINUOUS_DRAWS[name](lib.empty(n, dtype=getattr(lib, dtype))))
