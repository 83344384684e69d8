"""torch.fft and stft/istft beyond the op database's samples: every transform with n/s padding
and trimming, dims and the three norms, on real and complex inputs in both precisions, against
torch (values, dtypes, grad_fn names, gradients) and NumPy; float64 gradcheck and
gradgradcheck through real views; empty and batched inputs; torch's error texts."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip

F = tapegrad.fft
RNG = np.random.default_rng(13)

C2C = "fft ifft fft2 ifft2 fftn ifftn".split()
R2C = "rfft ihfft rfft2 ihfft2 rfftn ihfftn".split()  # real inputs only
C2R = "irfft hfft irfft2 hfft2 irfftn hfftn".split()
ONE_DIM = {"fft", "ifft", "rfft", "irfft", "hfft", "ihfft"}


def signal(shape, complex_=False, dtype=np.float64):
    values = RNG.standard_normal(shape)
    if complex_:
        values = values + 1j * RNG.standard_normal(shape)
        return values.astype(np.result_type(dtype, np.complex64))
    return values.astype(dtype)


def cotangent_like(array):
    values = RNG.uniform(-1, 1, array.shape)
    if np.iscomplexobj(array):
        values = values + 1j * RNG.uniform(-1, 1, array.shape)
    return values.astype(array.dtype)


def as_array(tensor):
    return tensor.detach().resolve_conj().numpy()


def run(lib, fn, arrays, cotangent=None):
    """fn(lib, *tensors) on leaves made from arrays: (result, gradients for cotangent)."""
    leaves = [lib.tensor(a, requires_grad=True) for a in arrays]
    result = fn(lib, *leaves)
    if cotangent is None:
        return result, None
    grads = lib.autograd.grad(result, leaves, lib.tensor(cotangent))
    return result, [as_array(g) for g in grads]


def assert_close(ours, theirs, dtype):
    tolerance = 1e-5 if dtype in (np.float32, np.complex64) else 1e-10
    scale = max(1.0, float(np.abs(theirs).max())) if theirs.size else 1.0
    np.testing.assert_allclose(ours, theirs, rtol=tolerance, atol=tolerance * scale)


def assert_like_torch(fn, *arrays):
    """fn on both libraries: dtype, shape, grad_fn name, values and the gradients of a random
    cotangent (complex for a complex result) agree."""
    torch = torch_or_skip()
    expected, _ = run(torch, fn, arrays)
    cotangent = cotangent_like(as_array(expected))
    expected, expected_grads = run(torch, fn, arrays, cotangent)
    result, grads = run(tapegrad, fn, arrays, cotangent)
    assert str(result.dtype) == str(expected.dtype)
    assert tuple(result.shape) == tuple(expected.shape)
    assert type(result.grad_fn).__name__ == type(expected.grad_fn).__name__
    want = as_array(expected)
    assert_close(as_array(result), want, want.dtype)
    for mine, theirs in zip(grads, expected_grads):
        assert mine.dtype == theirs.dtype
        assert_close(mine, theirs, theirs.dtype)


# ---- values and gradients against torch --------------------------------------------------------

ONE_DIM_ARGS = [{}, {"n": 3}, {"n": 11}, {"n": 1}, {"dim": 0}, {"dim": -2, "n": 6},
                {"norm": "ortho"}, {"norm": "forward", "n": 9}, {"norm": "backward"}]
N_DIM_ARGS = [{}, {"s": (3, 9)}, {"s": (-1, 4)}, {"dim": 0}, {"dim": (0, 2)},
              {"s": (5, 2), "dim": (2, 0)}, {"norm": "ortho"}, {"norm": "forward", "s": (7, 3)},
              {"dim": (-1,), "s": (1,)}]


def _cases(names):
    return [(name, kwargs) for name in names
            for kwargs in (ONE_DIM_ARGS if name in ONE_DIM else N_DIM_ARGS)]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,kwargs", _cases(C2C + R2C + C2R))
def test_fft_real_input_like_torch(name, kwargs, dtype):
    assert_like_torch(lambda lib, x: getattr(lib.fft, name)(x, **kwargs),
                      signal((4, 6, 5), dtype=dtype))


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,kwargs", _cases(C2C + C2R))
def test_fft_complex_input_like_torch(name, kwargs, dtype):
    assert_like_torch(lambda lib, z: getattr(lib.fft, name)(z, **kwargs),
                      signal((4, 6, 5), True, dtype))


@pytest.mark.parametrize("name", C2C + R2C + C2R)
def test_fft_integer_input_is_default_float(name):
    torch = torch_or_skip()
    values = RNG.integers(-5, 5, (3, 4))
    for dtype in ("int64", "bool"):
        ours = getattr(F, name)(tapegrad.tensor(values.astype(dtype)))
        theirs = getattr(torch.fft, name)(torch.tensor(values.astype(dtype)))
        assert str(ours.dtype) == str(theirs.dtype)
        assert_close(as_array(ours), as_array(theirs), np.float32)


@pytest.mark.parametrize("name", C2C + R2C + C2R)
def test_fft_noncontiguous_input(name):
    base = signal((6, 8))
    assert_like_torch(lambda lib, x: getattr(lib.fft, name)(x.t()[::2]), base)


def test_fft_values_against_numpy():
    x = signal((3, 8))
    z = signal((3, 8), True)
    checks = [(F.fft(tapegrad.tensor(z), norm="ortho"), np.fft.fft(z, norm="ortho")),
              (F.ifft(tapegrad.tensor(x), n=5), np.fft.ifft(x, n=5)),
              (F.rfft(tapegrad.tensor(x), n=12, norm="forward"),
               np.fft.rfft(x, n=12, norm="forward")),
              (F.irfft(tapegrad.tensor(z), n=7), np.fft.irfft(z, n=7)),
              (F.hfft(tapegrad.tensor(z), norm="ortho"), np.fft.hfft(z, norm="ortho")),
              (F.ihfft(tapegrad.tensor(x)), np.fft.ihfft(x)),
              (F.fftn(tapegrad.tensor(z), s=(2, 9)), np.fft.fftn(z, s=(2, 9), axes=(0, 1))),
              (F.irfftn(tapegrad.tensor(z), s=(4, 6)), np.fft.irfftn(z, s=(4, 6), axes=(0, 1))),
              (F.rfft2(tapegrad.tensor(x)), np.fft.rfft2(x))]
    for ours, expected in checks:
        assert ours.numpy().dtype == expected.dtype
        np.testing.assert_allclose(ours.numpy(), expected, rtol=1e-12, atol=1e-12)


def test_fft_float32_stays_single_precision():
    x = tapegrad.tensor(signal(8, dtype=np.float32))
    assert F.fft(x).dtype is tapegrad.complex64
    assert F.rfftn(x).dtype is tapegrad.complex64
    assert F.irfft(F.rfft(x)).dtype is tapegrad.float32
    assert F.hfft(F.ifft(x)).dtype is tapegrad.float32
    np.testing.assert_allclose(F.irfft(F.rfft(x), n=8).numpy(), x.numpy(), atol=1e-6)


def test_fft_round_trips_in_every_norm():
    x = tapegrad.tensor(signal((3, 10)))
    z = tapegrad.tensor(signal((3, 10), True))
    for norm in ("backward", "ortho", "forward", None):
        np.testing.assert_allclose(F.ifft(F.fft(z, norm=norm), norm=norm).numpy(), z.numpy(),
                                   atol=1e-12)
        np.testing.assert_allclose(F.irfft(F.rfft(x, norm=norm), 10, norm=norm).numpy(),
                                   x.numpy(), atol=1e-12)
        np.testing.assert_allclose(F.ihfft(F.hfft(z, 7, norm=norm), norm=norm).numpy()[:, 1:3],
                                   z.numpy()[:, 1:3], atol=1e-12)
        np.testing.assert_allclose(F.ifftn(F.fftn(z, norm=norm), norm=norm).numpy(), z.numpy(),
                                   atol=1e-12)


def test_fft_ortho_keeps_the_norm():
    z = tapegrad.tensor(signal((16,), True))
    energy = (z.abs() ** 2).sum()
    assert float(((F.fft(z, norm="ortho").abs()) ** 2).sum()) == pytest.approx(float(energy))


# ---- numerical gradients, through real views ---------------------------------------------------

def _complex_in(lib, pairs):
    return lib.view_as_complex(pairs)


def _pairs(result):
    """A complex result as real (real, imag) pairs (ifft of a real input is conjugated)."""
    return tapegrad.view_as_real(result.resolve_conj())


def _gradcheck_cases():
    """(name, function of one real float64 tensor with a real result, input shape)."""
    cases = []
    for name in C2C:
        cases.append((name + "_real", lambda x, name=name: _pairs(
            getattr(F, name)(x, norm="ortho")), (3, 4)))
        cases.append((name + "_complex", lambda x, name=name: _pairs(
            getattr(F, name)(_complex_in(tapegrad, x))), (3, 4, 2)))
    for name in R2C:
        cases.append((name, lambda x, name=name: _pairs(getattr(F, name)(x)), (3, 5)))
    for name in C2R:
        cases.append((name, lambda x, name=name: getattr(F, name)(
            _complex_in(tapegrad, x), norm="forward"), (3, 4, 2)))
        cases.append((name + "_odd", lambda x, name=name: getattr(F, name)(
            _complex_in(tapegrad, x), 5 if name in ONE_DIM else (3, 5)), (3, 4, 2)))
        cases.append((name + "_real_input", lambda x, name=name: getattr(F, name)(x), (3, 4)))
    cases.append(("fft_padded", lambda x: _pairs(F.fft(x, n=7)), (2, 4)))
    cases.append(("rfft_trimmed", lambda x: F.rfft(x, n=3).abs(), (2, 6)))
    cases.append(("fftshift", lambda x: F.fftshift(x) * F.ifftshift(x, dim=0), (3, 4)))
    return cases


@pytest.mark.parametrize("name,fn,shape", _gradcheck_cases(), ids=lambda v: v if isinstance(
    v, str) else "")
def test_fft_gradcheck(name, fn, shape):
    x = tapegrad.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert tapegrad.autograd.gradcheck(fn, (x,))


@pytest.mark.parametrize("name,fn,shape", [
    ("fft_abs", lambda x: F.fft(x).abs() ** 2, (2, 5)),
    ("rfft_abs", lambda x: F.rfft(x, n=7).abs() ** 2, (2, 5)),
    ("irfft_square", lambda x: F.irfft(_complex_in(tapegrad, x)) ** 2, (2, 4, 2)),
    ("hfftn_square", lambda x: F.hfftn(_complex_in(tapegrad, x), s=(3, 5)) ** 2, (2, 4, 2)),
    ("ifft2_product", lambda x: _pairs(F.ifft2(_complex_in(tapegrad, x)) ** 2),
     (2, 3, 2)),
    ("ihfftn_square", lambda x: _pairs(F.ihfftn(x) ** 2), (3, 4)),
])
def test_fft_gradgradcheck(name, fn, shape):
    x = tapegrad.tensor(RNG.standard_normal(shape), requires_grad=True)
    assert tapegrad.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "hfft", "fftn", "ihfftn"])
def test_fft_second_derivative_like_torch(name):
    torch = torch_or_skip()
    array = signal((3, 6))
    weights = signal((3, 6))

    def hessian_vector(lib):
        x = lib.tensor(array, requires_grad=True)
        result = getattr(lib.fft, name)(x)
        loss = (result.abs() ** 3).sum()
        grad, = lib.autograd.grad(loss, x, create_graph=True)
        second, = lib.autograd.grad((grad * lib.tensor(weights)).sum(), x)
        return grad.detach().numpy(), second.numpy()

    for ours, theirs in zip(hessian_vector(tapegrad), hessian_vector(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


# ---- empty and batched inputs --------------------------------------------------------------------

def test_fft_empty_batch():
    """An empty batch gives an empty result (torch's MKL build refuses it; NumPy's and torch's
    pocketfft kernels do not)."""
    x = tapegrad.randn(0, 6, dtype=tapegrad.float64, requires_grad=True)
    for name, shape in (("fft", (0, 6)), ("rfft", (0, 4)), ("irfft", (0, 10)),
                        ("hfft", (0, 10)), ("ihfft", (0, 4))):
        result = getattr(F, name)(x)
        assert tuple(result.shape) == shape
        grad, = tapegrad.autograd.grad(result.abs().sum() if result.is_complex()
                                       else result.sum(), x)
        assert tuple(grad.shape) == (0, 6) and grad.dtype is tapegrad.float64
    assert tuple(F.fftn(x, dim=1).shape) == (0, 6)


def test_fft_batched_matches_one_by_one():
    z = tapegrad.tensor(signal((2, 3, 8), True))
    whole = F.fft(z, dim=-1)
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(whole[i, j].numpy(), F.fft(z[i, j]).numpy(),
                                       atol=1e-12)
    batched = F.irfft2(z, s=(3, 6))
    np.testing.assert_allclose(batched[1].numpy(), F.irfft2(z[1], s=(3, 6)).numpy(),
                               atol=1e-12)


def test_fft_sizes_as_integer_tensors_and_positional():
    torch = torch_or_skip()
    x = signal((4, 5))
    for lib in (tapegrad, torch):
        assert tuple(lib.fft.fft(lib.tensor(x), n=lib.tensor(3)).shape) == (4, 3)
        assert tuple(lib.fft.fft2(lib.tensor(x), (2,), 1).shape) == (4, 2)
        assert lib.fft.fftfreq(lib.tensor(4), True).tolist() == [0.0, 0.25, -0.5, -0.25]


def test_fftn_of_a_scalar_and_over_no_dims():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        scalar = lib.fft.fftn(lib.tensor(2.5))
        assert scalar.shape == () and str(scalar.dtype) == "torch.complex64"
    x = signal((2, 3))
    ours = F.fftn(tapegrad.tensor(x), dim=())
    assert ours.dtype is tapegrad.complex128
    np.testing.assert_array_equal(ours.numpy(), x.astype(np.complex128))


# ---- errors -----------------------------------------------------------------------------------

@pytest.mark.parametrize("call", [
    lambda lib, x, z: lib.fft.fft(x, norm="bad"),
    lambda lib, x, z: lib.fft.ifftn(x, norm="Ortho"),
    lambda lib, x, z: lib.fft.fft(x, n=0),
    lambda lib, x, z: lib.fft.rfft(x, n=-1),
    lambda lib, x, z: lib.fft.irfft(z, n=0),
    lambda lib, x, z: lib.fft.irfft(z[:, :1]),
    lambda lib, x, z: lib.fft.hfft(z[:, :1]),
    lambda lib, x, z: lib.fft.fft(x, dim=2),
    lambda lib, x, z: lib.fft.fft(x[0, 0]),
    lambda lib, x, z: lib.fft.fft2(x[0]),
    lambda lib, x, z: lib.fft.fftn(x, s=(3, 3, 3)),
    lambda lib, x, z: lib.fft.fftn(x, s=(3,), dim=(0, 1)),
    lambda lib, x, z: lib.fft.fftn(x, dim=(0, -2)),
    lambda lib, x, z: lib.fft.fftn(x, s=(0, 2)),
    lambda lib, x, z: lib.fft.rfftn(x, dim=()),
    lambda lib, x, z: lib.fft.irfftn(z, dim=()),
    lambda lib, x, z: lib.fft.hfftn(z, dim=()),
    lambda lib, x, z: lib.fft.ihfftn(x, dim=()),
    lambda lib, x, z: lib.fft.rfft(z),
    lambda lib, x, z: lib.fft.ihfft(z),
    lambda lib, x, z: lib.fft.rfft2(z),
    lambda lib, x, z: lib.fft.ihfft2(z),
    lambda lib, x, z: lib.fft.fft(x.half()),
    lambda lib, x, z: lib.fft.fftshift(x[0, 0]),
    lambda lib, x, z: lib.fft.fftshift(x, dim=3),
    lambda lib, x, z: lib.fft.fftfreq(3, dtype=lib.int64),
    lambda lib, x, z: lib.fft.rfftfreq(4, dtype=lib.bool),
    lambda lib, x, z: lib.fft.fftfreq(-1),
    lambda lib, x, z: lib.fft.fftfreq(4, dtype=lib.complex64),
    lambda lib, x, z: lib.fft.fft(x, n=2.5),
    lambda lib, x, z: lib.fft.ifft(x, 2.5),
    lambda lib, x, z: lib.fft.rfft(x, dim=1.5),
    lambda lib, x, z: lib.fft.hfft(z, n=True),
    lambda lib, x, z: lib.fft.fft(x, norm=1),
    lambda lib, x, z: lib.fft.fft2(x, s=2.5),
    lambda lib, x, z: lib.fft.fftn(x, dim=[1.5]),
    lambda lib, x, z: lib.fft.irfftn(z, [2, 2.5]),
    lambda lib, x, z: lib.fft.ihfftn(x, None, [0.5]),
    lambda lib, x, z: lib.fft.rfft2(x, dim=1.5),
    lambda lib, x, z: lib.fft.fftshift(x, dim=1.5),
    lambda lib, x, z: lib.fft.fftfreq(2.5),
    lambda lib, x, z: lib.fft.rfftfreq(4, d="a"),
    lambda lib, x, z: lib.fft.fft([1.0, 2.0]),
    lambda lib, x, z: lib.fft.irfft2(None),
])
def test_fft_errors_like_torch(call):
    same_error(lambda lib: call(lib, lib.tensor(signal((2, 3))),
                                lib.tensor(signal((2, 3), True))))


# ---- frequencies and shifts ----------------------------------------------------------------------

@pytest.mark.parametrize("n", [0, 1, 4, 5, 10])
@pytest.mark.parametrize("kwargs", [{}, {"d": 0.1}, {"d": 3, "dtype": "float64"},
                                    {"d": -0.5, "dtype": "float32"}, {"requires_grad": True}])
def test_fftfreq_like_torch(n, kwargs):
    torch = torch_or_skip()
    for name in ("fftfreq", "rfftfreq"):
        results = []
        for lib in (tapegrad, torch):
            given = dict(kwargs)
            if "dtype" in given:
                given["dtype"] = getattr(lib, given["dtype"])
            results.append(getattr(lib.fft, name)(n, **given))
        ours, theirs = results
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.requires_grad == theirs.requires_grad and ours.is_leaf
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())


@pytest.mark.parametrize("shape,dim", [((9, 10), None), ((7,), 0), ((5, 11), (1,)),
                                       ((5, 6, 3), (0, 2)), ((4, 5), -1), ((0, 3), None)])
def test_fftshift_like_torch(shape, dim):
    torch = torch_or_skip()
    for name in ("fftshift", "ifftshift"):
        array = signal(shape)
        ours = getattr(F, name)(tapegrad.tensor(array), dim=dim)
        theirs = getattr(torch.fft, name)(torch.tensor(array), dim=dim)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
        np.testing.assert_array_equal(ours.numpy(), getattr(np.fft, name)(array, axes=dim))
    assert_like_torch(lambda lib, x: lib.fft.ifftshift(lib.fft.fftshift(x, dim=dim), dim=dim),
                      signal(shape, True))


# ---- stft and istft ------------------------------------------------------------------------------

def _window(lib, length):
    """A raised Hann window: never zero, so that every overlap-add envelope is positive."""
    return lib.tensor(np.hanning(length + 1)[:-1]) * 0.5 + 0.5


STFT_CASES = [
    dict(n_fft=10),
    dict(n_fft=16, hop_length=4, center=False),
    dict(n_fft=16, hop_length=3, win_length=10, window=10),
    dict(n_fft=16, window=16, normalized=True, onesided=False),
    dict(n_fft=12, window=12, pad_mode="constant"),
    dict(n_fft=12, window=12, pad_mode="replicate", hop_length=5),
    dict(n_fft=12, hop_length=2, win_length=8, window=8, center=False, align_to_window=True),
]


def _stft(lib, x, case, return_complex=True):
    kwargs = dict(case)
    if "window" in kwargs:
        kwargs["window"] = _window(lib, kwargs["window"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return lib.stft(x, return_complex=return_complex, **kwargs)


@pytest.mark.parametrize("case", STFT_CASES)
@pytest.mark.parametrize("shape", [(60,), (3, 50)])
def test_stft_like_torch(case, shape):
    assert_like_torch(lambda lib, x: _stft(lib, x, case), signal(shape))
    assert_like_torch(lambda lib, x: _stft(lib, x, case, False), signal(shape))
    two_sided = {**case, "onesided": False}  # a complex input has no onesided spectrum
    assert_like_torch(lambda lib, z: _stft(lib, z, two_sided), signal(shape, True))


def test_stft_window_gradient_like_torch():
    def with_window(lib, x, window):
        return lib.stft(x, 8, hop_length=3, window=window, return_complex=True)
    assert_like_torch(with_window, signal((2, 40)), signal(8))
    assert_like_torch(with_window, signal((2, 40)), signal(8, True))


@pytest.mark.parametrize("fn", [
    lambda lib, x: lib.stft(x[:, 2], 8, hop_length=5, center=False, return_complex=True),
    lambda lib, x: lib.stft(x.t()[1:3], 8, center=False, return_complex=True),
    lambda lib, x: lib.stft(x.t()[1:, 3:], 8, return_complex=True),
])
def test_stft_strided_input_like_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_like_torch(fn, signal((40, 4)))


def test_istft_window_gradient_like_torch():
    def inverse(lib, spectrum, window):
        return lib.istft(spectrum, 10, hop_length=2, win_length=8, window=window,
                         return_complex=window.is_complex(), onesided=False)
    window = 1 + RNG.uniform(0, 1, 8)
    assert_like_torch(inverse, signal((3, 10, 12), True), window)
    assert_like_torch(inverse, signal((10, 12), True), window + 1j * RNG.uniform(0, 1, 8))


def test_stft_method_and_float32():
    torch = torch_or_skip()
    x = signal((2, 64), dtype=np.float32)
    window = np.hanning(16).astype(np.float32)
    ours = tapegrad.tensor(x).stft(16, window=tapegrad.tensor(window), return_complex=True)
    theirs = torch.tensor(x).stft(16, window=torch.tensor(window), return_complex=True)
    assert ours.dtype is tapegrad.complex64
    assert_close(as_array(ours), as_array(theirs), np.float32)


ISTFT_CASES = [
    dict(n_fft=16, window=16),
    dict(n_fft=16, window=16, hop_length=4, center=False),
    dict(n_fft=16, window=16, length=70),
    dict(n_fft=16, window=16, length=40),
    dict(n_fft=16, window=16, normalized=True),
    dict(n_fft=16, hop_length=4, win_length=12, window=12),
    dict(n_fft=16, window=16, onesided=False, return_complex=True),
]


@pytest.mark.parametrize("case", ISTFT_CASES)
@pytest.mark.parametrize("shape", [(64,), (2, 64)])
def test_istft_like_torch(case, shape):
    def round_trip(lib, x):
        forward = {k: v for k, v in case.items() if k in ("n_fft", "hop_length", "win_length",
                                                           "window", "center", "normalized",
                                                           "onesided")}
        spectrum = _stft(lib, x, forward)
        kwargs = dict(case)
        kwargs["window"] = _window(lib, kwargs["window"])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return lib.istft(spectrum, **kwargs)
    assert_like_torch(round_trip, signal(shape))
    z = RNG.standard_normal(shape)
    if case.get("return_complex"):
        z = z + 1j * RNG.standard_normal(shape)
    result = round_trip(tapegrad, tapegrad.tensor(z)).detach().numpy()
    if "length" not in case:  # the inverse recovers the signal where the frames cover it
        length = min(result.shape[-1], z.shape[-1])
        np.testing.assert_allclose(result[..., :length], z[..., :length], atol=1e-10)


def test_istft_gradcheck_and_gradgradcheck():
    window = _window(tapegrad, 8)

    def inverse(pairs):
        return tapegrad.istft(tapegrad.view_as_complex(pairs), 8, hop_length=2, window=window)
    pairs = tapegrad.tensor(RNG.standard_normal((5, 7, 2)), requires_grad=True)
    assert tapegrad.autograd.gradcheck(inverse, (pairs,))
    assert tapegrad.autograd.gradgradcheck(lambda p: inverse(p) ** 2, (pairs,))


def test_stft_gradcheck_and_gradgradcheck():
    window = _window(tapegrad, 8)

    def spectrum(x):
        return tapegrad.stft(x, 8, hop_length=3, window=window, return_complex=False)
    x = tapegrad.tensor(RNG.standard_normal(30), requires_grad=True)
    assert tapegrad.autograd.gradcheck(spectrum, (x,))
    assert tapegrad.autograd.gradgradcheck(lambda v: spectrum(v) ** 2, (x,))


def test_stft_warns_like_torch():
    """torch warns once per process; with warn_always set, at every call."""
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        x = lib.randn(40, dtype=lib.float64)
        lib.set_warn_always(True)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                lib.stft(x, 8, return_complex=False)
                lib.istft(lib.stft(x, 8, window=lib.ones(8, dtype=lib.float64),
                                   return_complex=True), 8, length=60)
        finally:
            lib.set_warn_always(False)
        messages = " ".join(str(w.message) for w in caught)
        assert "return_complex=False is deprecated" in messages
        assert "A window was not provided. A rectangular window will be applied," in messages
        assert "A window was not provided. A rectangular window will be applied.Please" in messages
        assert "Result is being padded with zeros in the tail" in messages


@pytest.mark.parametrize("call", [
    lambda lib, x, z, w: lib.stft(x, 8),
    lambda lib, x, z, w: lib.stft(x.long(), 8, return_complex=True),
    lambda lib, x, z, w: lib.stft(x, 8, hop_length=0, window=w, return_complex=True),
    lambda lib, x, z, w: lib.stft(x, 8, win_length=9, return_complex=True),
    lambda lib, x, z, w: lib.stft(x, 8, window=w[:5], return_complex=True),
    lambda lib, x, z, w: lib.stft(x, 80, window=w, center=False, return_complex=True),
    lambda lib, x, z, w: lib.stft(x.view(1, 1, 40), 8, window=w, return_complex=True),
    lambda lib, x, z, w: lib.stft(x, 8, window=w, align_to_window=True, return_complex=True),
    lambda lib, x, z, w: lib.stft(z, 8, window=w, onesided=True),
    lambda lib, x, z, w: lib.stft(z, 8, window=w.to(lib.complex128), hop_length=-1),
    lambda lib, x, z, w: lib.istft(x, 8),
    lambda lib, x, z, w: lib.istft(z[:0], 8),
    lambda lib, x, z, w: lib.istft(z, 8),
    lambda lib, x, z, w: lib.istft(z.view(4, 10), 8, onesided=False),
    lambda lib, x, z, w: lib.istft(z.view(1, 1, 4, 10), 8),
    lambda lib, x, z, w: lib.istft(z.view(5, 8), 8, hop_length=0, window=w),
    lambda lib, x, z, w: lib.istft(z.view(5, 8), 8, window=w[:7]),
    lambda lib, x, z, w: lib.istft(z.view(5, 8), 8, window=w * 0),
    lambda lib, x, z, w: lib.istft(z.view(5, 8), 8, window=w.to(lib.complex128)),
    lambda lib, x, z, w: lib.istft(z.view(5, 8), 8, window=w, return_complex=True),
])
@pytest.mark.filterwarnings("ignore:A window was not provided")
def test_stft_errors_like_torch(call):
    same_error(lambda lib: call(lib, lib.tensor(signal(40)), lib.tensor(signal(40, True)),
                                lib.ones(8, dtype=lib.float64)))
