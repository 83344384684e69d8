"""Interop: the NumPy array protocol, DLPack, and copies to and from torch tensors."""
import sys

import numpy as np
import pytest

import tapegrad
from compare import error_of, torch_or_skip
from tapegrad.interop import from_dlpack, from_torch

DTYPES = ["float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
          "complex64", "complex128"]


def _sample(dtype_name):
    values = np.arange(-2, 4).reshape(2, 3)
    if dtype_name == "bool":
        values = values > 0
    if dtype_name == "uint8":
        values = values + 2
    return tapegrad.tensor(values, dtype=getattr(tapegrad, dtype_name))


# ---- __array__ ---------------------------------------------------------------------------------

def test_array_protocol_shares_memory_by_default():
    tensor = tapegrad.zeros(3)
    array = np.asarray(tensor)
    array[1] = 5.0
    assert tensor.tolist() == [0.0, 5.0, 0.0]


def test_array_protocol_copy_true_copies():
    tensor = tapegrad.zeros(3)
    for array in (np.asarray(tensor, copy=True), np.array(tensor)):
        array[0] = 9.0
    assert tensor.tolist() == [0.0, 0.0, 0.0]


def test_array_protocol_copy_false_refuses_a_conversion():
    tensor = tapegrad.ones(2, dtype=tapegrad.int32)
    with pytest.raises(ValueError) as ours:
        np.asarray(tensor, dtype=np.float64, copy=False)
    with pytest.raises(ValueError) as numpys:
        np.asarray(np.ones(2, np.int32), dtype=np.float64, copy=False)
    # NumPy appends a migration hint to its own message; the first line is the error.
    assert str(ours.value) == str(numpys.value).splitlines()[0]
    assert np.asarray(tensor, copy=False).dtype == np.int32


def test_array_protocol_converts_dtype():
    converted = np.asarray(tapegrad.tensor([1.5, 2.5]), dtype=np.int64)
    assert converted.dtype == np.int64 and converted.tolist() == [1, 2]


def test_array_protocol_refuses_tensor_requiring_grad_like_torch():
    torch = torch_or_skip()
    ours = error_of(lambda: np.asarray(tapegrad.ones(2, requires_grad=True)))
    assert ours == error_of(lambda: np.asarray(torch.ones(2, requires_grad=True)))


# ---- DLPack ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype_name", DTYPES)
def test_dlpack_to_numpy_shares_memory(dtype_name):
    tensor = _sample(dtype_name)
    array = np.from_dlpack(tensor)
    assert array.dtype == tensor.dtype.numpy
    np.testing.assert_array_equal(array, tensor.numpy())
    assert np.shares_memory(array, tensor.numpy())


def test_from_dlpack_numpy_shares_memory():
    array = np.arange(6.0).reshape(2, 3)[:, ::2]
    tensor = from_dlpack(array)
    tensor[0, 1] = -1.0
    assert array[0, 1] == -1.0 and tensor.stride() == (3, 2)


def test_dlpack_device_is_cpu():
    assert tapegrad.ones(1).__dlpack_device__() == (1, 0)


def test_dlpack_refuses_tensor_requiring_grad_like_torch():
    torch = torch_or_skip()
    ours = error_of(lambda: tapegrad.ones(2, requires_grad=True).__dlpack__())
    assert ours == error_of(lambda: torch.ones(2, requires_grad=True).__dlpack__())
    assert tapegrad.ones(2).__dlpack_device__() == torch.ones(2).__dlpack_device__()


@pytest.mark.parametrize("dtype_name", DTYPES)
def test_dlpack_with_torch_shares_memory_both_ways(dtype_name):
    torch = torch_or_skip()
    tensor = _sample(dtype_name)
    theirs = torch.from_dlpack(tensor)
    assert str(theirs.dtype) == repr(tensor.dtype)
    np.testing.assert_array_equal(theirs.numpy(), tensor.numpy())
    back = from_dlpack(theirs)
    assert back.dtype is tensor.dtype
    theirs[0, 0] = theirs[1, 2]
    assert back[0, 0].item() == tensor[0, 0].item() == tensor[1, 2].item()


# ---- torch copies --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype_name", DTYPES)
def test_from_torch_and_to_torch_keep_dtype_and_values(dtype_name):
    torch = torch_or_skip()
    tensor = _sample(dtype_name)
    theirs = tensor.to_torch()
    assert type(theirs) is torch.Tensor and str(theirs.dtype) == repr(tensor.dtype)
    np.testing.assert_array_equal(theirs.numpy(), tensor.numpy())
    back = from_torch(theirs)
    assert type(back) is tapegrad.Tensor and back.dtype is tensor.dtype
    np.testing.assert_array_equal(back.numpy(), tensor.numpy())


def test_torch_conversions_copy():
    torch_or_skip()
    tensor = tapegrad.zeros(3)
    theirs = tensor.to_torch()
    theirs[0] = 1.0
    back = from_torch(theirs)
    back[1] = 2.0
    assert tensor.tolist() == [0.0, 0.0, 0.0] and theirs.tolist() == [1.0, 0.0, 0.0]
    assert back.tolist() == [1.0, 2.0, 0.0]


def test_torch_conversions_keep_requires_grad_and_parameters():
    torch = torch_or_skip()
    leaf = from_torch(torch.ones(2, requires_grad=True))
    assert leaf.requires_grad and leaf.is_leaf and type(leaf) is tapegrad.Tensor
    parameter = from_torch(torch.nn.Parameter(torch.ones(2), requires_grad=False))
    assert type(parameter) is tapegrad.nn.Parameter and not parameter.requires_grad
    computed = from_torch(torch.ones(2, requires_grad=True) * 2)
    assert computed.requires_grad and computed.is_leaf
    assert tapegrad.ones(2, requires_grad=True).to_torch().requires_grad
    mirrored = tapegrad.nn.Parameter(tapegrad.ones(2)).to_torch()
    assert type(mirrored) is torch.nn.Parameter and mirrored.requires_grad


def test_from_torch_non_contiguous_and_negative_views():
    torch = torch_or_skip()
    source = torch.arange(12.0).reshape(3, 4)
    for view in (source.t(), source[:, 1::2], source.neg().conj()):
        copied = from_torch(view)
        np.testing.assert_array_equal(copied.numpy(), view.resolve_neg().numpy())


def test_from_torch_bfloat16_error():
    torch = torch_or_skip()
    with pytest.raises(TypeError, match="no bfloat16 dtype"):
        from_torch(torch.ones(2, dtype=torch.bfloat16))


def test_state_dict_moves_both_ways():
    torch = torch_or_skip()
    torch.manual_seed(0)
    theirs = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Tanh(), torch.nn.Linear(3, 2))
    ours = tapegrad.nn.Sequential(tapegrad.nn.Linear(4, 3), tapegrad.nn.Tanh(),
                                  tapegrad.nn.Linear(3, 2))
    ours.load_state_dict({key: from_torch(value) for key, value in theirs.state_dict().items()})
    inputs = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    expected = theirs(torch.from_numpy(inputs)).detach().numpy()
    np.testing.assert_allclose(ours(tapegrad.from_numpy(inputs)).detach().numpy(), expected,
                               rtol=1e-6, atol=1e-6)
    with tapegrad.no_grad():
        for parameter in ours.parameters():
            parameter.mul_(0.5)
    theirs.load_state_dict({key: value.to_torch() for key, value in ours.state_dict().items()})
    np.testing.assert_allclose(theirs(torch.from_numpy(inputs)).detach().numpy(),
                               ours(tapegrad.from_numpy(inputs)).detach().numpy(),
                               rtol=1e-6, atol=1e-6)


def test_torch_missing_gives_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ImportError, match="Tensor.to_torch needs PyTorch installed"):
        tapegrad.ones(1).to_torch()
    with pytest.raises(ImportError, match="tapegrad.from_torch needs PyTorch installed"):
        from_torch(object())
