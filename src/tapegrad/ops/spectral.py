"""The short-time Fourier transform, stft, and its inverse, istft, composed as torch composes
them: frames as a strided view of the (padded) signal (gathered on a device), times the
window, an FFT of each frame (ops/fft.py's primitives); istft adds the inverse transforms
of the frames back up, overlapping (an unfold's backward), and divides by the overlapped
squared window."""
import numpy as np

from .. import _backend
from .._tensor import Tensor
from ._define import defop
from .indexing import _index
from .activation import pad
from .complex_parts import view_as_complex, view_as_real
from .fft import _fft_c2c, _fft_c2r, _fft_r2c
from .namespace import _warn_once
from .strided import as_strided, unfold


@defop("UnfoldBackwardBackward0", save=("dim", "size", "step"))
def _unfold_backward(xp, grad_in: Tensor, input_sizes, dim, size, step):
    """Windows of `size` (the last dim of grad_in) put back `step` apart along dim and added
    where they overlap: torch's unfold_backward, the overlap-add of istft."""
    result = xp.zeros(tuple(input_sizes), grad_in.dtype)
    moved = xp.moveaxis(result, dim, -1)  # a view: windows along its last dim
    for frame in range(grad_in.shape[dim]):
        moved[..., frame * step:frame * step + size] += xp.take(grad_in, frame, axis=dim)
    return result


_unfold_backward.derivatives(grad_in=lambda ctx: unfold(ctx.grad, ctx.dim, ctx.size, ctx.step))


def _type_text(tensor):
    """A tensor's type as torch's stft messages write it: torch.DoubleTensor, and for complex
    dtypes (no legacy tensor type) CPUComplexDoubleType."""
    name = tensor.dtype.legacy_name
    return f"CPU{name}Type" if tensor.is_complex() else f"torch.{name}Tensor"


def _flag(value):
    return "None" if value is None else int(value)


def _window_text(window):
    return "None" if window is None else f"{_type_text(window)}{{{list(window.shape)}}}"


def _frame_windows(window, win_length, n_fft, like):
    """The window centred in n_fft samples (zeros around it), or None for a rectangular
    window of the full length."""
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    if window is None:
        window = Tensor._make(_backend.array_module(like._data).ones(
            win_length, like.dtype.to_real().numpy))
    return pad(window, (left, n_fft - win_length - left))


def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    """The short-time Fourier transform: (batch, frequencies, frames), complex."""
    if center and align_to_window is not None:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    if center:
        signal_dim = input.dim()
        extended = input.view([1] * (3 - signal_dim) + list(input.shape))
        padded = pad(extended, (n_fft // 2, n_fft // 2), pad_mode)
        input = padded.view(padded.shape[-signal_dim:])
    if window is None:
        _warn_once("A window was not provided. A rectangular window will be applied,which is "
                   "known to cause spectral leakage. Other windows such as torch.hann_window or "
                   "torch.hamming_window are recommended to reduce spectral leakage.To suppress "
                   "this warning and use a rectangular window, explicitly set "
                   "`window=torch.ones(n_fft, device=<device>)`.")
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    complex_output = input.is_complex() or window is not None and window.is_complex()
    if return_complex is None and not complex_output:
        raise RuntimeError("stft requires the return_complex parameter be given for real "
                           "inputs, and will further require that return_complex=True in a "
                           "future PyTorch release.")
    given_complex = return_complex
    return_complex = complex_output if return_complex is None else return_complex
    if not return_complex:
        _warn_once("stft with return_complex=False is deprecated. In a future pytorch release, "
                   "stft will return complex tensors for all inputs, and return_complex=False "
                   "will raise an error.\nNote: you can still call torch.view_as_real on the "
                   "complex output to recover the old return format.")
    described = (f"stft({_type_text(input)}{list(input.shape)}, n_fft={n_fft}, hop_length="
                 f"{hop_length}, win_length={win_length}, window={_window_text(window)}, "
                 f"normalized={int(normalized)}, onesided={_flag(onesided)}, return_complex="
                 f"{_flag(given_complex)}, align_to_window={_flag(align_to_window)}) : ")
    frames, one_signal = _frames(input, n_fft, hop_length, win_length, window,
                                 bool(align_to_window) and not center, pad_mode, described)
    onesided = not frames.is_complex() if onesided is None else onesided
    normalization = 1 if normalized else 0
    if frames.is_complex():
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        result = _fft_c2c(frames, (2,), normalization, True)
    else:
        result = _fft_r2c(frames, (2,), normalization, onesided)
    result.transpose_(1, 2)
    if one_signal:
        result.squeeze_(0)
    return result if return_complex else view_as_real(result)


def _frames(input, n_fft, hop_length, win_length, window, align_to_window, pad_mode,
            described):
    """The windowed frames of stft's input, (batch, frames, n_fft), after torch's checks;
    and whether the input was one signal (1-d)."""
    if not (input.dtype.is_floating_point or input.is_complex()):
        raise RuntimeError(described + "expected a tensor of floating point or complex values")
    if input.ndim not in (1, 2):
        raise RuntimeError(described + "expected a 1D or 2D tensor")
    one_signal = input.ndim == 1
    if one_signal:
        input = input.unsqueeze(0)
    length = input.shape[1]
    if not 0 < n_fft <= length:
        raise RuntimeError(described + f"expected 0 < n_fft < {length}, but got "
                                       f"n_fft={win_length}")
    if hop_length <= 0:
        raise RuntimeError(described + f"expected hop_length > 0, but got "
                                       f"hop_length={hop_length}")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(described + f"expected 0 < win_length <= n_fft, but got "
                                       f"win_length={win_length}")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(described + f"expected a 1D window tensor of size equal to "
                                       f"win_length={win_length}, but got window with size "
                                       f"{list(window.shape)}")
    window = _frame_windows(window, win_length, n_fft, input)
    if align_to_window:  # the first window starts at the first sample, not the first frame
        count = 1 + (length - win_length) // hop_length
        side = (n_fft - win_length) // 2
        input = pad(input, (side, side), pad_mode)
    else:
        count = 1 + (length - n_fft) // hop_length
    if _backend.on_device(input._data):  # no strided views there (strided.py): gather
        positions = np.arange(count)[:, None] * hop_length + np.arange(n_fft)
        frames = _index(input, (slice(None), positions))
    else:
        batch_stride, sample_stride = input.stride()
        frames = as_strided(input, (input.shape[0], count, n_fft),
                            (batch_stride, hop_length * sample_stride, sample_stride),
                            input.storage_offset())
    return (frames if window is None else frames * window), one_signal


def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    """The inverse of stft: the signal whose stft is closest to input (least squares)."""
    if window is None:
        _warn_once("A window was not provided. A rectangular window will be applied.Please "
                   "provide the same window used by stft to make the inversion lossless.To "
                   "suppress this warning and use a rectangular window, explicitly set "
                   "`window=torch.ones(n_fft, device=<device>)`.")
    hop_length = n_fft >> 2 if hop_length is None else hop_length
    win_length = n_fft if win_length is None else win_length
    if not input.is_complex():
        raise RuntimeError("istft requires a complex-valued input tensor matching the output from "
                        "stft with return_complex=True.")
    for dim in (-2, -3):  # torch reads the frames and frequencies of the real view first
        if input.ndim + 1 < -dim:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-input.ndim - 1}, {input.ndim}], but got {dim})")
    described = (f"istft({_type_text(input)}{list(input.shape)}, n_fft={n_fft}, "
                 f"hop_length={hop_length}, win_length={win_length}, window="
                 f"{_window_text(window)}, center={int(center)}, normalized={int(normalized)}, "
                 f"onesided={_flag(onesided)}, length={length}, return_complex="
                 f"{int(return_complex)}) ")
    onesided = _istft_checks(input, n_fft, hop_length, win_length, window, onesided, described)
    one_signal = input.ndim == 2
    # torch goes through the real view to transpose: (channel, frames, frequencies)
    pairs = view_as_real(input.resolve_conj())
    frames = view_as_complex((pairs.unsqueeze(0) if one_signal else pairs).transpose(1, 2))
    normalization = 1 if normalized else 2
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _fft_c2c(frames, (2,), normalization, False)
    else:
        if window is not None and window.is_complex():
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            frames = frames[:, :, :n_fft // 2 + 1]
        frames = _fft_c2r(frames, (2,), normalization, n_fft)
    if window is None:
        window = Tensor._make(_backend.array_module(input._data).ones(
            win_length, input.dtype.to_real().numpy))
    window = _frame_windows(window, win_length, n_fft, input)
    count = frames.shape[1]
    signal_length = n_fft + hop_length * (count - 1)
    signal = _unfold_backward(frames * window.view(1, 1, n_fft),
                              (frames.shape[0], signal_length), 1, n_fft, hop_length)
    envelope = _unfold_backward((window ** 2).expand(1, count, n_fft), (1, signal_length), 1,
                                n_fft, hop_length)
    start = n_fft // 2 if center else 0
    end = (start + length if length is not None else -(n_fft // 2) if center
           else signal_length)
    signal, envelope = signal[:, start:end], envelope[:, start:end]
    if float(envelope.abs().min()) < 1e-11:
        raise RuntimeError(described + "window overlap add min: 1\n[ CPUBoolType{} ]")
    signal = signal / envelope
    if one_signal:
        signal = signal.squeeze(0)
    if end > signal_length:
        _warn_once("The length of signal is shorter than the length parameter. Result is being "
                   "padded with zeros in the tail. Please check your center and hop_length "
                   "settings.")
        signal = pad(signal, (0, end - signal_length))
    return signal


def _istft_checks(input, n_fft, hop_length, win_length, window, onesided, described):
    """torch's checks of istft's arguments; whether the input is onesided."""
    if input.numel() == 0:
        raise RuntimeError(described + ": input tensor cannot be empty.")
    if input.ndim not in (2, 3):
        raise RuntimeError(described + f": expected a tensor with 3 or 4 dimensions, but got "
                                       f"{input.ndim + 1}")
    frequencies = input.shape[-2]
    onesided = frequencies != n_fft if onesided is None else onesided
    if onesided and n_fft // 2 + 1 != frequencies:
        raise RuntimeError(described + ": expected the frequency dimension (3rd to the last) of "
                                       "the input tensor to match n_fft / 2 + 1 when "
                                       f"onesided=True, but got {frequencies}")
    if not onesided and n_fft != frequencies:
        raise RuntimeError(described + ": expected the frequency dimension (3rd to the last) of "
                                       "the input tensor to match n_fft when onesided=False, "
                                       f"but got {frequencies}")
    if not 0 < hop_length <= win_length:
        raise RuntimeError(described + ": expected 0 < hop_length <= win_length")
    if not 0 < win_length <= n_fft:
        raise RuntimeError(described + ": expected 0 < win_length <= n_fft")
    if window is not None and (window.ndim != 1 or window.shape[0] != win_length):
        raise RuntimeError(described + ": Invalid window shape. window has to be 1D and length "
                                       "of `win_length`")
    return onesided


FUNCTIONS = METHODS = ["stft", "istft"]
