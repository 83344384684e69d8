"""After manual_seed, the samplers ported to torch's CPU streams (src/tapegrad/_mt.py) draw
exactly torch 2.13's numbers: same bits, for sizes on both sides of the 16-element switch of
normal_, float32, float64, float16, bfloat16 and complex, contiguous or not, several seeds
(including one above 2**32); and every layer's default initialisation is torch's."""
import numpy as np
import pytest

import tapegrad

torch = pytest.importorskip("torch")

SEEDS = (0, 1, 42, 2**33 + 7)
SIZES = (1, 3, 15, 16, 17, 40, 1000)
FLOATS = ("float32", "float64")
REDUCED = ("float16", "bfloat16")  # drawn in float by torch (Note [Reduced precision draws])


def _bits(value):
    """value's bytes as an array (bfloat16 as int16: NumPy has no bfloat16), and its dtype."""
    if isinstance(value, torch.Tensor):
        value = value.detach()
        return (value.view(torch.int16) if value.dtype == torch.bfloat16 else value).numpy(), \
            str(value.dtype)
    if hasattr(value, "detach"):
        return np.ascontiguousarray(value.detach().numpy()), str(value.dtype)
    return np.asarray(value), "array"


def assert_same_stream(draw, seeds=SEEDS):
    """draw(lib) gives bit-identical arrays on torch and tapegrad after manual_seed."""
    for seed in seeds:
        torch.manual_seed(seed)
        want, want_dtype = _bits(draw(torch))
        tapegrad.manual_seed(seed)
        got, got_dtype = _bits(draw(tapegrad))
        want = np.ascontiguousarray(want)
        assert got_dtype == want_dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8)), seed


def _dtype_of(lib, name):
    if lib is tapegrad and name == "bfloat16":
        pytest.importorskip("ml_dtypes")
    return getattr(lib, name)


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


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("name", FLOAT_DRAWS)
def test_float_streams(name, n, dtype):
    def draw(lib):
        result = FLOAT_DRAWS[name](lib, n, _dtype_of(lib, dtype))
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
    "trunc_normal_ redrawing": lambda lib, t: lib.nn.init.trunc_normal_(t, 0.2, 1.0, -1.0, 1.5),
    "trunc_normal_ uniform proposals": lambda lib, t: lib.nn.init.trunc_normal_(
        t, 0.0, 1.0, 1.5, 3.0),
}


@pytest.mark.parametrize("shape", ((2, 3), (3, 2), (64, 32), (10, 7, 3, 3)))
@pytest.mark.parametrize("name", INIT_DRAWS)
def test_init_streams(name, shape):
    assert_same_stream(lambda lib: INIT_DRAWS[name](lib, lib.empty(shape)))


LAYERS = {
    "Linear(3, 2)": lambda nn: nn.Linear(3, 2),
    "Linear(64, 32)": lambda nn: nn.Linear(64, 32),
    "Linear no bias": lambda nn: nn.Linear(5, 3, bias=False),
    "Bilinear(3, 4, 5)": lambda nn: nn.Bilinear(3, 4, 5),
    "Conv1d(2, 5, 4)": lambda nn: nn.Conv1d(2, 5, 4),
    "Conv2d(3, 4, 3)": lambda nn: nn.Conv2d(3, 4, 3),
    "Conv2d groups": lambda nn: nn.Conv2d(4, 6, 3, groups=2),
    "ConvTranspose1d": lambda nn: nn.ConvTranspose1d(3, 2, 3),
    "ConvTranspose2d": lambda nn: nn.ConvTranspose2d(3, 4, 2),
    "Embedding(10, 4)": lambda nn: nn.Embedding(10, 4),
    "Embedding padding_idx": lambda nn: nn.Embedding(10, 4, padding_idx=2),
    "RNN": lambda nn: nn.RNN(3, 4, 2),
    "LSTM bidirectional": lambda nn: nn.LSTM(3, 4, bidirectional=True),
    "LSTM proj_size": lambda nn: nn.LSTM(3, 6, proj_size=2),
    "GRU": lambda nn: nn.GRU(3, 5),
    "RNNCell": lambda nn: nn.RNNCell(3, 4),
    "LSTMCell": lambda nn: nn.LSTMCell(3, 4),
    "GRUCell": lambda nn: nn.GRUCell(3, 4),
    "BatchNorm1d": lambda nn: nn.BatchNorm1d(4),
    "BatchNorm2d": lambda nn: nn.BatchNorm2d(3),
    "LayerNorm": lambda nn: nn.LayerNorm(5),
    "GroupNorm": lambda nn: nn.GroupNorm(2, 4),
    "InstanceNorm1d affine": lambda nn: nn.InstanceNorm1d(3, affine=True),
    "PReLU": lambda nn: nn.PReLU(3),
    "MultiheadAttention": lambda nn: nn.MultiheadAttention(8, 2),
    "MultiheadAttention kdim vdim": lambda nn: nn.MultiheadAttention(8, 2, kdim=3, vdim=5),
    "MultiheadAttention bias_kv": lambda nn: nn.MultiheadAttention(8, 2, add_bias_kv=True),
    "TransformerEncoderLayer": lambda nn: nn.TransformerEncoderLayer(8, 2, 16),
}


@pytest.mark.parametrize("name", LAYERS)
def test_layer_default_initialisation(name):
    def parameters_and_buffers(lib):
        module = LAYERS[name](lib.nn)
        values = [*module.parameters(), *module.buffers()]
        return lib.cat([value.detach().reshape(-1).double() for value in values])
    assert_same_stream(parameters_and_buffers)


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
    "native_dropout": lambda lib, shape, dtype: lib.cat([value.reshape(-1).to(dtype) for value
                                                         in lib.native_dropout(lib.full(
                                                             shape, 1.7, dtype=dtype), 0.3,
                                                             True)]),
}


@pytest.mark.filterwarnings("ignore:dropout2d")
@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("shape", ((5,), (40,), (3, 17)))
@pytest.mark.parametrize("name", SAMPLE_DRAWS)
def test_sampler_streams(name, shape, dtype):
    assert_same_stream(lambda lib: SAMPLE_DRAWS[name](lib, shape, _dtype_of(lib, dtype)))


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


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("shape, num_samples, replacement", (
    ((5,), 3, False), ((5,), 1, False), ((5,), 8, True), ((3, 7), 4, True), ((3, 7), 4, False),
    ((2, 100), 30, True), ((2, 100), 1, True)))
def test_multinomial_streams(shape, num_samples, replacement, dtype):
    weights = np.random.default_rng(0).random(shape)
    weights[..., 1] = 0  # never drawn
    assert_same_stream(lambda lib: lib.multinomial(
        lib.tensor(weights, dtype=_dtype_of(lib, dtype)), num_samples, replacement))


CONTINUOUS_DRAWS = {
    "log_normal_": lambda t: t.log_normal_(0.5, 1.5),
    "cauchy_": lambda t: t.cauchy_(0.5, 1.5),
    "geometric_": lambda t: t.geometric_(0.3),
}


@pytest.mark.parametrize("dtype", FLOATS + REDUCED + ("int64",))
@pytest.mark.parametrize("n", (5, 40))
@pytest.mark.parametrize("name", CONTINUOUS_DRAWS)
def test_scalar_path_samplers(name, n, dtype):
    if dtype == "int64" and name != "geometric_":
        pytest.skip("a continuous distribution")
    assert_same_stream(lambda lib: CONTINUOUS_DRAWS[name](
        lib.empty(n, dtype=_dtype_of(lib, dtype))))


def test_orthogonal_init_draws_torchs_normals_and_matches_to_rounding():
    """orthogonal_ takes torch's normals; its QR runs in NumPy's LAPACK, not torch's MKL, whose
    Householder steps round differently (a reference geqr2/org2r port does not match MKL
    either), so Q agrees to a few ulps of 1, with torch's sign convention."""
    for shape in ((3, 5), (5, 3), (64, 32), (10, 7, 3, 3)):
        for dtype, atol in (("float32", 1e-6), ("float64", 2e-15)):
            torch.manual_seed(0)
            want = torch.nn.init.orthogonal_(torch.empty(shape, dtype=getattr(torch, dtype)))
            state = torch.get_rng_state().numpy()
            tapegrad.manual_seed(0)
            got = tapegrad.nn.init.orthogonal_(tapegrad.empty(shape, dtype=getattr(tapegrad,
                                                                                   dtype)))
            assert np.array_equal(tapegrad.get_rng_state().numpy(), state)
            np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=0, atol=atol)


COMPLEX = ("complex64", "complex128")
COMPLEX_DRAWS = {
    "randn": lambda lib, n, dtype: lib.randn(n, dtype=dtype),
    "rand": lambda lib, n, dtype: lib.rand(n, dtype=dtype),
    "normal_": lambda lib, n, dtype: lib.empty(n, dtype=dtype).normal_(1.0, 2.0),
    "uniform_": lambda lib, n, dtype: lib.empty(n, dtype=dtype).uniform_(-1, 2),
    "normal_ transposed": lambda lib, n, dtype: lib.empty(n, 2, dtype=dtype).t().normal_(),
    "uniform_ unfolded": lambda lib, n, dtype: lib.zeros(n + 4, dtype=dtype).unfold(
        0, 4, 2).uniform_(),
    "normal tensor float": lambda lib, n, dtype: lib.normal(lib.zeros(n, dtype=dtype), 2.0),
    "randn_like": lambda lib, n, dtype: lib.randn_like(lib.zeros(n, dtype=dtype)),
}


@pytest.mark.parametrize("dtype", COMPLEX)
@pytest.mark.parametrize("n", (3, 8, 9, 40))
@pytest.mark.parametrize("name", COMPLEX_DRAWS)
def test_complex_streams_are_their_real_views(name, n, dtype):
    assert_same_stream(lambda lib: COMPLEX_DRAWS[name](lib, n, getattr(lib, dtype)))


VIEWS = {  # targets torch's kernels do not visit in C order, or whose elements share memory
    "t()": lambda lib, dtype: lib.zeros(5, 7, dtype=dtype).t(),
    "[:, ::2]": lambda lib, dtype: lib.zeros(4, 10, dtype=dtype)[:, ::2],
    "permute": lambda lib, dtype: lib.zeros(2, 3, 6, dtype=dtype).permute(2, 0, 1),
    "channels_last": lambda lib, dtype: lib.zeros(2, 3, 4, 4, dtype=dtype).to(
        memory_format=lib.channels_last),
    "diagonal": lambda lib, dtype: lib.zeros(20, 20, dtype=dtype).diagonal(),
    "unfold (overlapping)": lambda lib, dtype: lib.zeros(20, dtype=dtype).unfold(0, 4, 2),
}
VIEW_FILLS = {
    "normal_": lambda t: t.normal_(0.5, 2.0),
    "uniform_": lambda t: t.uniform_(-1, 2),
    "exponential_": lambda t: t.exponential_(),
    "random_": lambda t: t.random_(0, 100),
    "bernoulli_": lambda t: t.bernoulli_(0.3),
    "cauchy_": lambda t: t.cauchy_(),
}


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("fill", VIEW_FILLS)
@pytest.mark.parametrize("view", VIEWS)
def test_non_contiguous_targets_are_filled_in_torchs_order(view, fill, dtype):
    def draw(lib):
        target = VIEWS[view](lib, _dtype_of(lib, dtype))
        VIEW_FILLS[fill](target)
        return target
    assert_same_stream(draw)


@pytest.mark.parametrize("make", (
    lambda lib: lib.zeros(6, 5).t().bernoulli_(lib.rand(5, 1)),
    lambda lib: lib.zeros(6, 5).bernoulli_(lib.rand(5, 6).t()),
    lambda lib: lib.randn_like(lib.zeros(5, 7).t()),
    lambda lib: lib.rand_like(lib.zeros(2, 3, 4, 4).to(memory_format=lib.channels_last)),
), ids=("bernoulli_ into t()", "bernoulli_ with p.t()", "randn_like(t())",
        "rand_like(channels_last)"))
def test_layouts_that_decide_the_order(make):
    assert_same_stream(make)


def test_uniform_never_returns_to_and_gives_from_instead():
    for dtype, low in (("float32", 1.99), ("float64", 2 - 1e-10), ("float16", 1.9),
                       ("bfloat16", 1.5)):
        assert_same_stream(lambda lib: lib.empty(300000, dtype=_dtype_of(lib, dtype)).uniform_(
            low, 2.0), seeds=(0,))


def test_a_refused_write_draws_nothing():
    def draw(lib):
        with pytest.raises(RuntimeError, match="more than one element"):
            lib.zeros(3, 1).expand(3, 4).normal_()
        return lib.rand(3)
    assert_same_stream(draw)


POISSON_RATES = {
    "below 10 (products)": [0.0, 0.5, 3.0, 9.99],
    "10 and above (rejection)": [10.0, 50.0, 1000.5, 1e6],
    "huge and infinite": [1e18, 1e19, float("inf"), 1e30, 12.0],
}


@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
@pytest.mark.parametrize("rates", POISSON_RATES)
def test_poisson_streams(rates, dtype):
    rates = [rate for rate in POISSON_RATES[rates] if dtype not in REDUCED or rate < 6e4]
    assert_same_stream(lambda lib: lib.poisson(lib.tensor(
        rates * 8, dtype=_dtype_of(lib, dtype)).reshape(8, -1).t()))


def test_poisson_stops_drawing_at_an_invalid_rate():
    def draw(lib):
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            lib.poisson(lib.tensor([1.0, 20.0, float("nan"), 2.0]))
        return lib.rand(3)
    assert_same_stream(draw)


@pytest.mark.parametrize("dtype", REDUCED)
@pytest.mark.parametrize("shape, num_samples", (((16,), 3), ((2, 100), 40), ((3, 1000), 10),
                                                ((4, 9), 1)))
def test_multinomial_orders_tied_keys_as_torch(shape, num_samples, dtype):
    """16-bit keys tie often: torch's topk leaves them in libstdc++'s selection order."""
    assert_same_stream(lambda lib: lib.multinomial(
        lib.rand(shape, dtype=_dtype_of(lib, dtype)), num_samples))


@pytest.mark.parametrize("n, k", ((2, 1), (5, 3), (16, 3), (17, 16), (100, 1), (200, 3),
                                  (1000, 40), (5000, 70)))
def test_topk_order_of_ties_is_libstdcxx(n, k):
    from tapegrad.ops._cpu_order import topk
    values = np.random.default_rng(n + k).integers(0, max(2, n // 3), n).astype(np.float32)
    ours = topk((-values).tolist(), k, True)
    assert ours == torch.topk(torch.tensor(values), k).indices.tolist()


@pytest.mark.parametrize("n", (1000, 5000))
def test_randperm_long_streams(n):
    assert_same_stream(lambda lib: lib.randperm(n), seeds=(0, 2**33 + 7))


WIDE_RANGES = {"float16": 60000, "bfloat16": 2**40, "float32": 2**40, "float64": 2**60}


@pytest.mark.filterwarnings("ignore:from is out of bounds", "ignore:to - 1 is out of bounds")
@pytest.mark.parametrize("dtype", FLOATS + REDUCED)
def test_random_bounds_move_inside_what_the_dtype_rounds(dtype):
    """torch moves a bound inward where its neighbour would round out of [from, to)."""
    top = WIDE_RANGES[dtype]
    for low, high in ((-top, top), (-top - 3, top + 5), (0, top - 7), (3, None)):
        assert_same_stream(lambda lib: lib.empty(50, dtype=_dtype_of(lib, dtype)).random_(
            low, high).double(), seeds=(0, 5))


@pytest.mark.parametrize("dtype, low, high", (
    ("float16", 60001, 60010), ("float32", 2**30 + 1, 2**30 + 2), ("float16", 100000, 100010)))
def test_random_bounds_that_meet_after_the_cast_are_refused(dtype, low, high):
    from compare import same_error
    same_error(lambda lib: lib.empty(5, dtype=getattr(lib, dtype)).random_(low, high))


@pytest.mark.parametrize("seeded", (False, True))
def test_sparse_init_streams(seeded):
    """normal_ from `generator`, then a randperm of the rows per column from the default one."""
    assert_same_stream(lambda lib: lib.nn.init.sparse_(
        lib.empty(10, 6), 0.3, generator=lib.Generator().manual_seed(3) if seeded else None))


@pytest.mark.parametrize("shape, groups", (((4, 4, 3), 1), ((6, 2, 3, 3), 2), ((4, 6, 3, 3, 3), 2),
                                           ((2, 3, 4), 1)))
def test_dirac_init_is_torchs(shape, groups):
    assert_same_stream(lambda lib: lib.nn.init.dirac_(lib.empty(shape), groups), seeds=(0,))


@pytest.mark.parametrize("call", ("dirac_(lib.empty(3, 3))", "dirac_(lib.empty(3, 2, 2), 2)",
                                  "sparse_(lib.empty(3), 0.5)"))
def test_dirac_and_sparse_refuse_what_torch_refuses(call):
    from compare import same_error
    same_error(lambda lib: eval("lib.nn.init." + call))
