"""Anomaly detection: the forward op behind a failing backward, with its stack, as torch."""
import os
import warnings

import pytest

import tapegrad
from compare import torch_or_skip


def _messages(caught):
    """Warning texts, each forward trace cut to its innermost frame (outer frames hold the
    test's own call, which names the library); torch's C++ warnings end with where in its
    sources they were raised."""
    texts = [str(w.message).split(" (Triggered internally at")[0] for w in caught]
    return [text.split("caused the error:\n")[0] + "\n".join(text.split("\n")[-3:])
            for text in texts]


def nan_in_backward(lib):
    """sqrt's derivative at 0 is inf; times a zero gradient it is NaN."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.detect_anomaly():
            a = lib.tensor([0., 4.], requires_grad=True)
            b = a.sqrt()
            with pytest.raises(RuntimeError) as info:
                b.backward(lib.tensor([0., 1.]))
    return str(info.value), _messages(caught)


def modified_saved_tensor(lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with lib.autograd.set_detect_anomaly(True):
            a = lib.tensor([1., 2.], requires_grad=True)
            b = a.exp()
            b.add_(1)
            with pytest.raises(RuntimeError):
                b.sum().backward()
    return _messages(caught)


def test_nan_names_the_node_and_its_forward_line():
    error, messages = nan_in_backward(tapegrad)
    assert error == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert messages[0].startswith("Anomaly Detection has been enabled.")
    assert messages[1].startswith("Error detected in SqrtBackward0. Traceback of forward call")
    assert "b = a.sqrt()" in messages[1]

def test_the_forward_trace_drops_tapegrads_own_frames():
    with tapegrad.autograd.set_detect_anomaly(True):
        y = tapegrad.nn.functional.relu(tapegrad.tensor([1.], requires_grad=True))
    trace = "".join(y.grad_fn.metadata["traceback_"])
    assert trace.rstrip().endswith("y = tapegrad.nn.functional.relu(tapegrad.tensor([1.], "
                                   "requires_grad=True))")
    assert os.path.dirname(tapegrad.__file__) not in trace


def test_nan_report_matchestorch_or_skip():
    assert nan_in_backward(tapegrad) == nan_in_backward(torch_or_skip())


def test_any_backward_error_is_reported_with_the_forward_trace():
    ours = modified_saved_tensor(tapegrad)
    assert "b = a.exp()" in ours[0]
    assert ours == modified_saved_tensor(torch_or_skip())


def test_nan_check_can_be_switched_off():
    with tapegrad.autograd.set_detect_anomaly(True, check_nan=False):
        assert tapegrad.is_anomaly_enabled() and not tapegrad.is_anomaly_check_nan_enabled()
        a = tapegrad.tensor([0.], requires_grad=True)
        a.sqrt().backward(tapegrad.tensor([0.]))
    assert a.grad.isnan().all()
    assert not tapegrad.is_anomaly_enabled() and tapegrad.is_anomaly_check_nan_enabled()


def test_no_trace_is_kept_when_anomaly_mode_is_off():
    y = tapegrad.tensor([1.], requires_grad=True) * 2
    assert "traceback_" not in y.grad_fn.metadata
    with tapegrad.autograd.set_detect_anomaly(True):
        z = y * 3
    assert "z = y * 3" in "".join(z.grad_fn.metadata["traceback_"])


def test_detect_anomaly_as_a_decorator():
    with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
        @tapegrad.autograd.detect_anomaly()
        def inside():
            return tapegrad.is_anomaly_enabled()
    assert inside() and not tapegrad.is_anomaly_enabled()
