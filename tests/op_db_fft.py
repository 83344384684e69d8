"""op_db rows of the Fourier transforms (tapegrad/ops/fft.py) and of stft and istft
(ops/spectral.py). Gradients are checked on real tensors: complex results are compared as
their real views (view_as_real; a lazily conjugated result, as ifft of a real input is, is
resolved first, as torch requires), complex inputs are made from real (real, imag) pairs on a
last dim of 2 (view_as_complex). The windows of stft and istft are torch's window factories
(ops/windows.py) and torch.signal.windows, or a leaf that gets a gradient too."""
import warnings

from op_db import OpRow, S, _positive, _real, each


def _real_view(lib, z):
    return lib.view_as_real(z.resolve_conj())


def _complex(lib, x):
    return lib.view_as_complex(x)


def _of_real(transform):
    """A row function: transform of a real input, its complex result as a real view."""
    return lambda lib, x, **options: _real_view(lib, transform(lib)(x, **options))


def _of_complex(transform):
    """A row function: transform of a complex input made from (real, imag) pairs."""
    def fn(lib, x, **options):
        result = transform(lib)(_complex(lib, x), **options)
        return _real_view(lib, result) if result.is_complex() else result
    return fn


def _fft(name):
    return lambda lib: getattr(lib.fft, name)


_VIEWS = ("view_as_real", "view_as_complex")

# one-dimensional transforms: sizes padded and cut, each norm, another dim, strided inputs
_ONE_DIM_REAL = (
    S((3, 4)), S((5,)),
    S((3, 4), constants={"n": 6, "norm": "ortho"}, label="n6-ortho"),
    S((3, 4), constants={"n": 3, "dim": 0, "norm": "forward"}, label="n3-dim0-forward"),
    S((2, 3, 5), constants={"dim": 1, "norm": "backward"}, label="3d-dim1"),
    S((4, 3), layouts=("t",), label="t"),
    S((3, 4), layouts=("step",), label="step"),
)
_ONE_DIM_COMPLEX = (
    S((3, 4, 2)), S((5, 2)),
    S((3, 4, 2), constants={"n": 6, "norm": "ortho"}, label="n6-ortho"),
    S((3, 4, 2), constants={"n": 2, "dim": 0, "norm": "forward"}, label="n2-dim0-forward"),
    S((3, 4, 2), layouts=("step",), label="step"),
)
# the c2r transforms: a real result of 2 (size - 1) points, or of an odd or larger n
_C2R = (
    S((3, 4, 2)), S((4, 2)),
    S((3, 4, 2), constants={"n": 5}, label="n5-odd"),
    S((3, 4, 2), constants={"n": 9, "norm": "ortho"}, label="n9-padded-ortho"),
    S((4, 3, 2), constants={"n": 4, "dim": 0, "norm": "forward"}, label="n4-dim0-forward"),
    S((3, 4, 2), layouts=("step",), label="step"),
)
# n-dimensional transforms: every dim, some dims, sizes given by s (-1: the input's)
_N_DIM = (
    S((3, 4)), S((2, 3, 4), constants={"dim": (0, 2)}, label="dims0,2"),
    S((2, 3, 4), constants={"s": (4, 3)}, label="s4,3"),
    S((2, 3, 4), constants={"s": (-1, 5), "dim": (1, -1), "norm": "ortho"},
      label="s-1,5-ortho"),
    S((2, 3, 4), constants={"dim": 1, "norm": "forward"}, label="one-dim-forward"),
)
_N_DIM_COMPLEX = tuple(S(sample.shapes[0] + (2,), constants=sample.constants,
                         label=sample.label) for sample in _N_DIM)
_N_DIM_C2R = (
    S((3, 4, 2)), S((2, 3, 4, 2), constants={"dim": (0, 2)}, label="dims0,2"),
    S((2, 3, 4, 2), constants={"s": (4, 5)}, label="s4,5-odd"),
    S((2, 3, 4, 2), constants={"s": (-1, 8), "dim": (1, -1), "norm": "ortho"},
      label="s-1,8-ortho"),
    S((2, 3, 4, 2), constants={"dim": (1,), "norm": "forward"}, label="one-dim-forward"),
)
_TWO_DIM = (
    S((3, 4)), S((2, 3, 4), constants={"dim": (0, 2), "norm": "ortho"}, label="dims0,2-ortho"),
    S((2, 3, 4), constants={"s": (4, 5)}, label="s4,5"),
)
_TWO_DIM_COMPLEX = tuple(S(sample.shapes[0] + (2,), constants=sample.constants,
                           label=sample.label) for sample in _TWO_DIM)


def _row(name, fn, samples, ops, **options):
    return OpRow(name, fn, samples, ops=(f"fft.{name}",) + ops, **options)


_SHIFTS = (
    S((3, 4)), S((5,)), S((2, 3, 5), constants={"dim": 1}, label="dim1"),
    S((2, 3, 5), constants={"dim": (0, -1)}, label="dims0,-1"),
    S((4, 3), layouts=("t",), label="t"), S((0, 3), label="empty"),
)

# stft's window: a factory's, or a leaf (the second input); signals of 30 samples
_STFT = (
    S((2, 30), constants={"n_fft": 8, "hop_length": 3}, label="batch"),
    S((30,), constants={"n_fft": 8, "hop_length": 3, "center": False}, label="1d-no-center"),
    S((30,), constants={"n_fft": 8, "hop_length": 4, "onesided": False, "normalized": True},
      label="twosided-normalized"),
    S((1, 30), constants={"n_fft": 8, "hop_length": 2, "win_length": 6}, label="win-length-6"),
    S((2, 30), constants={"n_fft": 8, "hop_length": 3, "pad_mode": "constant"},
      label="pad-constant"),
)


# every window factory, with parameters other than the defaults: stft's values show them equal
# to torch's in float64 and float32
_WINDOWS = {
    "hann": lambda lib, n, dtype: lib.hann_window(n, dtype=dtype),
    "hann-symmetric": lambda lib, n, dtype: lib.hann_window(n, False, dtype=dtype),
    "hamming": lambda lib, n, dtype: lib.hamming_window(n, False, 0.6, 0.4, dtype=dtype),
    "bartlett": lambda lib, n, dtype: lib.bartlett_window(n, dtype=dtype),
    "blackman": lambda lib, n, dtype: lib.blackman_window(n, periodic=False, dtype=dtype),
    "kaiser": lambda lib, n, dtype: lib.kaiser_window(n, True, 5.0, dtype=dtype),
    "signal.bartlett": lambda lib, n, dtype: lib.signal.windows.bartlett(n, dtype=dtype),
    "signal.blackman": lambda lib, n, dtype: lib.signal.windows.blackman(n, dtype=dtype),
    "signal.cosine": lambda lib, n, dtype: lib.signal.windows.cosine(n, sym=False, dtype=dtype),
    "signal.exponential": lambda lib, n, dtype: lib.signal.windows.exponential(
        n, tau=3.0, dtype=dtype),
    "signal.gaussian": lambda lib, n, dtype: lib.signal.windows.gaussian(n, std=2.0,
                                                                        dtype=dtype),
    "signal.general_cosine": lambda lib, n, dtype: lib.signal.windows.general_cosine(
        n, a=[0.5, 0.3, 0.2], dtype=dtype),
    "signal.general_hamming": lambda lib, n, dtype: lib.signal.windows.general_hamming(
        n, alpha=0.6, sym=False, dtype=dtype),
    "signal.hamming": lambda lib, n, dtype: lib.signal.windows.hamming(n, dtype=dtype),
    "signal.hann": lambda lib, n, dtype: lib.signal.windows.hann(n, sym=False, dtype=dtype),
    "signal.kaiser": lambda lib, n, dtype: lib.signal.windows.kaiser(n, beta=4.0, sym=False,
                                                                    dtype=dtype),
    "signal.nuttall": lambda lib, n, dtype: lib.signal.windows.nuttall(n, dtype=dtype),
}


def _stft(lib, x, window=None, n_fft=8, window_kind="hann", **options):
    if window is None:
        size = options.get("win_length", n_fft)
        # a real window for a complex signal too
        window = _WINDOWS[window_kind](lib, size, x.real.dtype)
    return _real_view(lib, lib.stft(x, n_fft, window=window, return_complex=True, **options))


def _istft(lib, x, window=None, n_fft=8, **options):
    if window is None:
        window = lib.hamming_window(options.get("win_length", n_fft), dtype=x.dtype)
    result = lib.istft(_complex(lib, x), n_fft, window=window, **options)
    return _real_view(lib, result) if result.is_complex() else result


def _stft_real_output(lib, x, n_fft=8, **options):
    """stft(return_complex=False), torch's deprecated (real, imag) pairs; both libraries warn."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "stft with return_complex=False is deprecated",
                                UserWarning)
        return lib.stft(x, n_fft, window=lib.hann_window(n_fft, dtype=x.dtype),
                        return_complex=False, **options)


# istft's input: (frequencies, frames) from stft of n_fft = 8, onesided (5) or not (8)
_ISTFT = (
    S((5, 7, 2), constants={"hop_length": 2}, label="onesided"),
    S((2, 5, 7, 2), constants={"hop_length": 2, "length": 10}, label="batch-length10"),
    S((8, 6, 2), constants={"hop_length": 3, "onesided": False, "return_complex": True},
      label="twosided-complex"),
    S((5, 6, 2), constants={"hop_length": 2, "center": False, "normalized": True},
      label="no-center-normalized"),
    S((5, 7, 2), constants={"hop_length": 2, "win_length": 6}, label="win-length-6"),
)


ROWS = (
    # ---- one-dimensional ---------------------------------------------------------------------
    _row("fft", _of_real(_fft("fft")), _ONE_DIM_REAL, _VIEWS),
    OpRow("fft_complex", _of_complex(_fft("fft")), _ONE_DIM_COMPLEX, ops=("fft.fft",) + _VIEWS),
    _row("ifft", _of_real(_fft("ifft")), _ONE_DIM_REAL, _VIEWS),
    OpRow("ifft_complex", _of_complex(_fft("ifft")), _ONE_DIM_COMPLEX,
          ops=("fft.ifft",) + _VIEWS),
    _row("rfft", _of_real(_fft("rfft")), _ONE_DIM_REAL, _VIEWS),
    _row("ihfft", _of_real(_fft("ihfft")), _ONE_DIM_REAL, _VIEWS),
    _row("irfft", _of_complex(_fft("irfft")), _C2R, _VIEWS),
    OpRow("irfft_real_input", lambda lib, x, **options: lib.fft.irfft(x, **options),
          (S((3, 4)), S((3, 4), constants={"n": 7}, label="n7")), ops=("fft.irfft",)),
    _row("hfft", _of_complex(_fft("hfft")), _C2R, _VIEWS),
    # a lazily conjugated input (torch's conj bit): the transforms read it resolved
    OpRow("fft_conj_input", _of_complex(lambda lib: lambda z, **options: lib.fft.fft(
        z.conj(), **options)), _ONE_DIM_COMPLEX[:3], ops=("fft.fft", "conj") + _VIEWS),
    OpRow("irfft_conj_input", _of_complex(lambda lib: lambda z, **options: lib.fft.irfft(
        z.conj(), **options)), _C2R[:3], ops=("fft.irfft", "conj") + _VIEWS),
    OpRow("hfftn_conj_input", _of_complex(lambda lib: lambda z, **options: lib.fft.hfftn(
        z.conj(), **options)), _N_DIM_C2R[:3], ops=("fft.hfftn", "conj") + _VIEWS),
    # ---- two- and n-dimensional --------------------------------------------------------------
    _row("fft2", _of_complex(_fft("fft2")), _TWO_DIM_COMPLEX, _VIEWS),
    _row("ifft2", _of_real(_fft("ifft2")), _TWO_DIM, _VIEWS),
    _row("rfft2", _of_real(_fft("rfft2")), _TWO_DIM, _VIEWS),
    _row("irfft2", _of_complex(_fft("irfft2")), _TWO_DIM_COMPLEX, _VIEWS),
    _row("hfft2", _of_complex(_fft("hfft2")), _TWO_DIM_COMPLEX, _VIEWS),
    _row("ihfft2", _of_real(_fft("ihfft2")), _TWO_DIM, _VIEWS),
    _row("fftn", _of_real(_fft("fftn")), _N_DIM, _VIEWS),
    OpRow("fftn_complex", _of_complex(_fft("fftn")), _N_DIM_COMPLEX,
          ops=("fft.fftn",) + _VIEWS),
    _row("ifftn", _of_complex(_fft("ifftn")), _N_DIM_COMPLEX, _VIEWS),
    _row("rfftn", _of_real(_fft("rfftn")), _N_DIM, _VIEWS),
    _row("irfftn", _of_complex(_fft("irfftn")), _N_DIM_C2R, _VIEWS),
    _row("hfftn", _of_complex(_fft("hfftn")), _N_DIM_C2R, _VIEWS),
    _row("ihfftn", _of_real(_fft("ihfftn")), _N_DIM, _VIEWS),
    # ---- shifts ------------------------------------------------------------------------------
    _row("fftshift", lambda lib, x, **options: lib.fft.fftshift(x, **options), _SHIFTS, ()),
    _row("ifftshift", lambda lib, x, **options: lib.fft.ifftshift(x, **options), _SHIFTS, ()),
    OpRow("fftshift_complex", _of_complex(lambda lib: lib.fft.fftshift),
          (S((3, 5, 2)), S((3, 4, 2), constants={"dim": 0}, label="dim0")),
          ops=("fft.fftshift",) + _VIEWS),
    # ---- short-time transforms ---------------------------------------------------------------
    OpRow("stft", _stft, _STFT, ops=("stft",) + _VIEWS),
    OpRow("stft_windows", _stft, tuple(
        S((12,), constants={"hop_length": 4, "window_kind": kind}, label=kind)
        for kind in _WINDOWS), ops=("stft",) + _VIEWS),
    OpRow("stft_window_grad", _stft, (
        S((2, 30), (8,), constants={"hop_length": 3}, label="batch"),
        S((30,), (6,), constants={"hop_length": 2, "win_length": 6}, label="win-length-6"),
    ), ops=("stft",) + _VIEWS),
    OpRow("stft_real_output", _stft_real_output, _STFT[:2], ops=("stft",)),
    OpRow("stft_complex", lambda lib, x, **options: _stft(lib, _complex(lib, x), **options), (
        S((2, 20, 2), constants={"hop_length": 3}, label="batch"),
        S((20, 2), constants={"hop_length": 4, "center": False}, label="1d-no-center"),
    ), ops=("stft",) + _VIEWS),
    OpRow("istft", _istft, _ISTFT, ops=("istft",) + _VIEWS),
    # the window is a leaf too: it scales the frames and divides by its overlapped square
    OpRow("istft_window_grad", _istft, (
        S((5, 7, 2), (8,), constants={"hop_length": 2}, label="onesided"),
        S((5, 6, 2), (6,), constants={"hop_length": 3, "win_length": 6}, label="win-length-6"),
    ), domain=each(_real, _positive), ops=("istft",) + _VIEWS),
)
