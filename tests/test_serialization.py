"""tapegrad.save / tapegrad.load: safetensors files, PyTorch zip files, and their safety.

Round trips run without torch; files written by torch.save, and tapegrad's format="torch"
files read by torch.load(weights_only=True), are checked when torch is importable. Every file
is generated in tmp_path or in memory.
"""
import collections
import io
import os
import pickle
import struct
import sys
import zipfile

import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip
from tapegrad.serialization import load, save

FORMATS = ["safetensors", "torch"]


def _format(name):
    if name == "safetensors":
        pytest.importorskip("safetensors")
    return name


def _round_trip(obj, file_format):
    buffer = io.BytesIO()
    save(obj, buffer, format=_format(file_format))
    buffer.seek(0)
    return load(buffer)


def _assert_tensor_equal(ours, expected):
    assert isinstance(ours, tapegrad.Tensor)
    assert ours.dtype is expected.dtype and ours.shape == expected.shape
    assert ours.requires_grad == expected.requires_grad
    np.testing.assert_array_equal(ours.detach().numpy(), expected.detach().numpy())


def _assert_same_object(ours, expected):
    """Equal structure, container types, tensors (dtype, values, requires_grad) and leaves."""
    if isinstance(expected, tapegrad.Tensor):
        _assert_tensor_equal(ours, expected)
    elif isinstance(expected, dict):
        assert type(ours) is type(expected) and list(ours) == list(expected)
        for key in expected:
            _assert_same_object(ours[key], expected[key])
    elif isinstance(expected, (list, tuple)):
        assert type(ours) is type(expected) and len(ours) == len(expected)
        for mine, other in zip(ours, expected):
            _assert_same_object(mine, other)
    elif isinstance(expected, float) and np.isnan(expected):
        assert np.isnan(ours)
    else:
        assert type(ours) is type(expected) and ours == expected


def _all_dtypes():
    values = np.arange(-3, 3).reshape(2, 3)
    tensors = {name: tapegrad.tensor(values, dtype=getattr(tapegrad, name))
               for name in ("float64", "float32", "float16", "int64", "int32", "int16", "int8")}
    tensors["uint8"] = tapegrad.tensor([[0, 7, 255]], dtype=tapegrad.uint8)
    tensors["bool"] = tapegrad.tensor([True, False, True])
    tensors["complex64"] = tapegrad.tensor([1 + 2j, -0.5j], dtype=tapegrad.complex64)
    tensors["complex128"] = tapegrad.tensor([[1 + 2j], [3 - 4j]], dtype=tapegrad.complex128)
    tensors["scalar"] = tapegrad.tensor(2.5, dtype=tapegrad.float64)
    tensors["complex_scalar"] = tapegrad.tensor(1 - 1j, dtype=tapegrad.complex128)
    tensors["empty"] = tapegrad.zeros(0, 3)
    return tensors


def _adam_state(params=(0, 1)):
    """An optimizer state dict shaped like torch.optim.Adam's, built by hand."""
    tapegrad.manual_seed(0)
    state = {index: {"step": tapegrad.tensor(3.0), "exp_avg": tapegrad.randn(2, 3),
                     "exp_avg_sq": tapegrad.rand(2, 3)} for index in params}
    groups = [{"lr": 0.001, "betas": (0.9, 0.999), "eps": 1e-08, "weight_decay": 0,
               "amsgrad": False, "maximize": False, "foreach": None, "capturable": False,
               "differentiable": False, "fused": None, "decoupled_weight_decay": False,
               "params": list(params)}]
    return {"state": state, "param_groups": groups}


def _state_dict():
    tapegrad.manual_seed(1)
    inner = collections.OrderedDict(weight=tapegrad.randn(4, 3), bias=tapegrad.zeros(4))
    outer = collections.OrderedDict([("encoder", inner), ("scale", tapegrad.tensor([0.5])),
                                     ("steps", tapegrad.tensor(7))])
    outer._metadata = collections.OrderedDict([("", {"version": 1}), ("encoder", {"version": 2})])
    return outer


# ---- round trips (no torch needed) --------------------------------------------------------

@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_tensors_of_every_dtype(file_format):
    tensors = _all_dtypes()
    loaded = _round_trip(tensors, file_format)
    _assert_same_object(loaded, tensors)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_single_tensor(file_format):
    tensor = tapegrad.arange(6.0).reshape(2, 3)
    _assert_same_object(_round_trip(tensor, file_format), tensor)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_non_contiguous_tensor(file_format):
    base = tapegrad.arange(24.0).reshape(4, 6)
    views = {"t": base.t(), "stepped": base[::2, 1::3], "row": base[2]}
    loaded = _round_trip(views, file_format)
    _assert_same_object(loaded, views)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_nested_state_dict(file_format):
    state_dict = _state_dict()
    loaded = _round_trip(state_dict, file_format)
    _assert_same_object(loaded, state_dict)
    assert loaded._metadata == state_dict._metadata


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_optimizer_state_dict(file_format):
    state = _adam_state()
    loaded = _round_trip(state, file_format)
    _assert_same_object(loaded, state)
    assert list(loaded["state"]) == [0, 1]  # integer keys stay integers


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_plain_values(file_format):
    values = {"none": None, "flags": [True, False], "big": 2**70, "negative": -70000,
              "floats": (0.1, float("inf"), float("-inf"), float("nan")), "text": "héllo",
              1: "int key", (1, 2): "tuple key", "empty": ([], {}, ()),
              "dtype": tapegrad.float16, "size": tapegrad.Size([2, 3])}
    loaded = _round_trip(values, file_format)
    _assert_same_object(loaded, values)
    assert isinstance(loaded["size"], tapegrad.Size) and loaded["dtype"] is tapegrad.float16


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_keeps_requires_grad_and_parameters(file_format):
    parameter = tapegrad.nn.Parameter(tapegrad.ones(2, 2))
    frozen = tapegrad.nn.Parameter(tapegrad.zeros(3), requires_grad=False)
    leaf = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    loaded = _round_trip({"p": parameter, "frozen": frozen, "leaf": leaf}, file_format)
    assert type(loaded["p"]) is tapegrad.nn.Parameter and loaded["p"].requires_grad
    assert type(loaded["frozen"]) is tapegrad.nn.Parameter and not loaded["frozen"].requires_grad
    assert type(loaded["leaf"]) is tapegrad.Tensor and loaded["leaf"].requires_grad
    _assert_tensor_equal(loaded["leaf"], leaf)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_same_tensor_twice_gives_one_object(file_format):
    tensor = tapegrad.ones(3)
    loaded = _round_trip({"a": tensor, "b": [tensor]}, file_format)
    assert loaded["a"] is loaded["b"][0]


def test_torch_format_views_share_storage_after_loading():
    base = tapegrad.arange(12.0).reshape(3, 4)
    loaded = _round_trip({"base": base, "t": base.t(), "tail": base[1:]}, "torch")
    loaded["base"][1, 2] = 100.0
    assert loaded["t"][2, 1].item() == 100.0 and loaded["tail"][0, 2].item() == 100.0
    assert loaded["t"].stride() == (1, 4)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_load_paths_and_file_objects(tmp_path, file_format):
    tensor = tapegrad.randn(3)
    path = tmp_path / "weights.bin"
    save(tensor, path, format=_format(file_format))
    _assert_tensor_equal(load(path), tensor)
    _assert_tensor_equal(load(str(path)), tensor)
    with open(path, "rb") as handle:
        _assert_tensor_equal(load(handle), tensor)
    with open(tmp_path / "other.bin", "wb") as handle:
        save(tensor, handle, format=file_format)
    _assert_tensor_equal(load(tmp_path / "other.bin"), tensor)


@pytest.mark.parametrize("file_format", FORMATS)
def test_save_refuses_unsupported_objects(file_format):
    with pytest.raises(TypeError, match="cannot store an object of type object"):
        save({"x": object()}, io.BytesIO(), format=_format(file_format))


def test_save_unknown_format():
    with pytest.raises(ValueError, match="format must be one of"):
        save(tapegrad.ones(1), io.BytesIO(), format="hdf5")


def test_loaded_tensors_are_writable_and_trainable():
    loaded = _round_trip({"w": tapegrad.ones(2)}, "torch")["w"]
    loaded.add_(1)
    loaded.requires_grad_(True)
    (loaded * loaded).sum().backward()
    np.testing.assert_array_equal(loaded.grad.numpy(), [4.0, 4.0])


def test_module_and_optimizer_state_round_trip(tmp_path):
    pytest.importorskip("tapegrad.optim")
    tapegrad.manual_seed(0)
    model = tapegrad.nn.Linear(3, 2)
    optimizer = tapegrad.optim.Adam(model.parameters(), lr=0.01)
    model(tapegrad.randn(4, 3)).sum().backward()
    optimizer.step()
    for file_format in reversed(FORMATS):  # torch first: it needs no optional package
        path = tmp_path / f"checkpoint.{file_format}"
        save({"model": model.state_dict(), "optim": optimizer.state_dict()}, path,
             format=_format(file_format))
        checkpoint = load(path)
        _assert_same_object(checkpoint["model"], model.state_dict())
        _assert_same_object(checkpoint["optim"], optimizer.state_dict())
        fresh = tapegrad.nn.Linear(3, 2)
        fresh.load_state_dict(checkpoint["model"])
        np.testing.assert_array_equal(fresh.weight.detach().numpy(),
                                      model.weight.detach().numpy())


# ---- the safetensors file itself --------------------------------------------------------------

def test_safetensors_file_names_tensors_by_path(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = tmp_path / "state.safetensors"
    state = _adam_state()
    save(state, path)
    arrays = safetensors_numpy.load_file(path)
    assert sorted(arrays) == sorted(f"state.{i}.{name}" for i in (0, 1)
                                    for name in ("step", "exp_avg", "exp_avg_sq"))
    np.testing.assert_array_equal(arrays["state.1.exp_avg"], state["state"][1]["exp_avg"].numpy())


def test_load_foreign_safetensors_file_gives_dict(tmp_path):
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    path = tmp_path / "foreign.safetensors"
    safetensors_numpy.save_file({"embed": np.arange(6, dtype=np.float32).reshape(2, 3),
                                 "ids": np.array([1, 2], dtype=np.int64)}, path)
    loaded = load(path)
    assert type(loaded) is dict and sorted(loaded) == ["embed", "ids"]
    assert loaded["embed"].dtype is tapegrad.float32 and loaded["ids"].tolist() == [1, 2]


def test_missing_safetensors_gives_clear_import_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    with pytest.raises(ImportError, match=r"pip install tapegrad\[io\]"):
        save(tapegrad.ones(1), io.BytesIO(), format="safetensors")


@pytest.mark.parametrize("name, magic", [("model.pt", b"PK"), ("model.pth", b"PK"),
                                         ("model.bin", b"PK"), ("model.safetensors", None)])
def test_save_picks_the_format_from_the_extension(tmp_path, name, magic):
    if magic is None:
        pytest.importorskip("safetensors")
    save({"w": tapegrad.arange(3.0)}, tmp_path / name)
    data = (tmp_path / name).read_bytes()
    assert data[:2] == b"PK" if magic else data[8:9] == b"{"
    assert load(tmp_path / name)["w"].tolist() == [0.0, 1.0, 2.0]


def test_torch_format_needs_no_safetensors(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "safetensors", None)
    save({"w": tapegrad.ones(2)}, tmp_path / "model.pt")
    assert load(tmp_path / "model.pt")["w"].tolist() == [1.0, 1.0]
    with pytest.raises(ImportError, match=r"pip install tapegrad\[io\]"):
        save({"w": tapegrad.ones(2)}, tmp_path / "model.safetensors")


# ---- damaged files ---------------------------------------------------------------------------

def _saved_bytes(file_format):
    buffer = io.BytesIO()
    save(_state_dict(), buffer, format=_format(file_format))
    return buffer.getvalue()


@pytest.mark.parametrize("file_format", FORMATS)
@pytest.mark.parametrize("keep", [0.95, 0.5, 0.1])
def test_truncated_file_raises_clear_error(file_format, keep):
    data = _saved_bytes(file_format)
    with pytest.raises(ValueError, match="corrupt or truncated|neither a safetensors"):
        load(io.BytesIO(data[:int(len(data) * keep)]))


def test_corrupt_safetensors_header_raises_clear_error():
    data = bytearray(_saved_bytes("safetensors"))
    data[20:28] = b"\x00\xff#!\x00\xff#!"
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load(io.BytesIO(bytes(data)))


def test_corrupt_structure_metadata_raises_clear_error():
    safetensors_numpy = pytest.importorskip("safetensors.numpy")
    data = safetensors_numpy.save({"a": np.ones(2)}, metadata={"tapegrad": "{not json"})
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load(io.BytesIO(data))
    data = safetensors_numpy.save({"a": np.ones(2)}, metadata={
        "tapegrad": '{"kind": "tensor", "name": "missing", "dtype": "float64"}'})
    with pytest.raises(ValueError, match="corrupt or truncated.*missing"):
        load(io.BytesIO(data))


def test_corrupt_torch_storage_bytes_raise_clear_error():
    data = bytearray(_saved_bytes("torch"))
    position = data.index(b"archive/data/0") + len("archive/data/0") + 4
    data[position] ^= 0xFF  # a flipped byte fails the record's CRC
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load(io.BytesIO(bytes(data)))


def test_unrecognised_and_empty_files_raise_clear_errors():
    with pytest.raises(ValueError, match="is empty"):
        load(io.BytesIO(b""))
    with pytest.raises(ValueError, match="neither a safetensors file nor a PyTorch zip"):
        load(io.BytesIO(b"hello world, not a model"))
    with pytest.raises(ValueError, match="legacy"):
        load(io.BytesIO(pickle.dumps({"a": 1}, protocol=2)))


# ---- hostile PyTorch files -------------------------------------------------------------------

def _zip_with_pickle(payload, storages=None):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", payload)
        archive.writestr("archive/byteorder", "little")
        for key, raw in (storages or {}).items():
            archive.writestr(f"archive/data/{key}", raw)
    buffer.seek(0)
    return buffer


class RunsCommand:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


class CallsEval:
    def __reduce__(self):
        return (eval, ("__import__('os').getcwd()",))


def test_malicious_global_is_refused_without_running(tmp_path):
    marker = tmp_path / "pwned"
    payload = pickle.dumps({"weights": RunsCommand(marker)}, protocol=2)
    with pytest.raises(pickle.UnpicklingError, match=r"refused the global '(os|posix|nt)\.system'"):
        load(_zip_with_pickle(payload))
    assert not marker.exists()
    with pytest.raises(pickle.UnpicklingError, match=r"refused the global '__builtin__\.eval'"):
        load(_zip_with_pickle(pickle.dumps([CallsEval()], protocol=2)))


def test_refused_global_names_torch_rule():
    payload = pickle.dumps(collections.Counter("ab"), protocol=2)
    with pytest.raises(pickle.UnpicklingError, match="weights_only=True"):
        load(_zip_with_pickle(payload))


def test_build_on_allowed_global_is_refused():
    # GLOBAL torch.float32, then BUILD with slot state: would rename tapegrad.float32 if allowed.
    payload = (b"\x80\x02ctorch\nfloat32\nN}X\x04\x00\x00\x00nameX\x04\x00\x00\x00evils"
               b"\x86b.")
    with pytest.raises(pickle.UnpicklingError, match="refused to set state on a dtype"):
        load(_zip_with_pickle(payload))
    assert tapegrad.float32.name == "float32"


def _tensor_pickle(numel, offset, size, stride):
    """data.pkl of one float32 tensor on storage '0', written opcode by opcode."""
    def ints(values):
        return b"(" + b"".join(b"K" + bytes([v]) for v in values) + b"t"
    return (b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n(" +
            b"(X\x07\x00\x00\x00storagectorch\nFloatStorage\nX\x01\x00\x00\x000"
            b"X\x03\x00\x00\x00cpuK" + bytes([numel]) + b"tQ" +
            b"K" + bytes([offset]) + ints(size) + ints(stride) +
            b"\x89ccollections\nOrderedDict\n)RtR.")


def test_hand_written_tensor_pickle_loads():
    raw = np.arange(6, dtype="<f4").tobytes()
    tensor = load(_zip_with_pickle(_tensor_pickle(6, 1, (2, 2), (1, 2)), {"0": raw}))
    np.testing.assert_array_equal(tensor.numpy(), [[1.0, 3.0], [2.0, 4.0]])


@pytest.mark.parametrize("numel, offset, size, stride, raw_elements", [
    (4, 0, (16,), (1,), 4),      # reads past the storage
    (4, 3, (2,), (1,), 4),       # offset pushes the end past it
    (6, 0, (2, 2), (1, 200), 6),  # a huge stride
    (6, 0, (2,), (1,), 3),       # fewer bytes than the storage claims
], ids=["size", "offset", "stride", "short_storage"])
def test_out_of_bounds_tensor_geometry_is_refused(numel, offset, size, stride, raw_elements):
    raw = np.zeros(raw_elements, dtype="<f4").tobytes()
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load(_zip_with_pickle(_tensor_pickle(numel, offset, size, stride), {"0": raw}))


def test_missing_storage_record_raises_clear_error():
    with pytest.raises(ValueError, match="corrupt or truncated"):
        load(_zip_with_pickle(_tensor_pickle(6, 0, (2,), (1,))))


def test_big_endian_archive_is_read():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", _tensor_pickle(3, 0, (3,), (1,)))
        archive.writestr("archive/byteorder", "big")
        archive.writestr("archive/data/0", struct.pack(">3f", 1.5, -2.0, 3.25))
    buffer.seek(0)
    np.testing.assert_array_equal(load(buffer).numpy(), [1.5, -2.0, 3.25])


# ---- files from and for real torch ---------------------------------------------------------

def _torch_checkpoint(torch):
    torch.manual_seed(0)
    weight = torch.randn(4, 6, dtype=torch.float64)
    model = torch.nn.Linear(3, 2)
    state = model.state_dict()
    return {
        "model": state,
        "weight": weight,
        "transposed": weight.t(),              # non-contiguous view of the same storage
        "rows": weight[1:3, ::2],              # offset and strides
        "ints": {name: torch.arange(-3, 3, dtype=getattr(torch, name))
                 for name in ("int64", "int32", "int16", "int8")},
        "small": [torch.tensor([0, 200], dtype=torch.uint8), torch.tensor([True, False]),
                  torch.tensor([1.5, -2.0], dtype=torch.float16), torch.tensor(3.0)],
        "complex": torch.tensor([1 + 2j], dtype=torch.complex64),
        "parameter": torch.nn.Parameter(torch.ones(2, 2)),
        "frozen": torch.nn.Parameter(torch.ones(1), requires_grad=False),
        "leaf": torch.ones(3, requires_grad=True),
        "meta": (1, 2.5, "text", None, torch.float32, torch.Size([2, 3])),
        "empty": torch.zeros(0, 4),
    }


def _assert_matches_torch(ours, theirs, torch):
    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, tapegrad.Tensor)
        assert repr(ours.dtype) == repr(theirs.dtype)
        assert ours.shape == tuple(theirs.shape) and ours.stride() == theirs.stride()
        assert ours.requires_grad == theirs.requires_grad
        assert isinstance(ours, tapegrad.nn.Parameter) == isinstance(theirs, torch.nn.Parameter)
        np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    elif isinstance(theirs, torch.dtype):
        assert repr(ours) == repr(theirs)
    elif isinstance(theirs, dict):
        assert type(ours) is type(theirs) and list(ours) == list(theirs)
        for key in theirs:
            _assert_matches_torch(ours[key], theirs[key], torch)
    elif isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs) and isinstance(ours, tuple) == isinstance(theirs, tuple)
        for mine, other in zip(ours, theirs):
            _assert_matches_torch(mine, other, torch)
    else:
        assert type(ours) is type(theirs) and ours == theirs


def test_load_file_written_by_torch_save(tmp_path):
    torch = torch_or_skip()
    checkpoint = _torch_checkpoint(torch)
    torch.save(checkpoint, tmp_path / "checkpoint.pt")
    loaded = load(tmp_path / "checkpoint.pt")
    _assert_matches_torch(loaded, checkpoint, torch)
    assert loaded["model"]._metadata == checkpoint["model"]._metadata


def test_torch_shared_storage_stays_shared(tmp_path):
    torch = torch_or_skip()
    torch.save(_torch_checkpoint(torch), tmp_path / "checkpoint.pt")
    loaded = load(tmp_path / "checkpoint.pt")
    loaded["weight"][2, 4] = -100.0
    assert loaded["transposed"][4, 2].item() == -100.0
    assert loaded["rows"][1, 2].item() == -100.0


def test_load_torch_adam_state_dict(tmp_path):
    torch = torch_or_skip()
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01, amsgrad=True)
    model(torch.randn(4, 3)).sum().backward()
    optimizer.step()
    torch.save(optimizer.state_dict(), tmp_path / "adam.pth")
    _assert_matches_torch(load(tmp_path / "adam.pth"), optimizer.state_dict(), torch)


def test_load_torch_bfloat16_as_float32(tmp_path):
    torch = torch_or_skip()
    values = torch.tensor([1.5, -2.25, 3e38, 1e-40], dtype=torch.bfloat16)
    torch.save({"b": values}, tmp_path / "half.pt")
    with pytest.warns(UserWarning, match="loaded as float32"):
        loaded = load(tmp_path / "half.pt")["b"]
    assert loaded.dtype is tapegrad.float32
    np.testing.assert_array_equal(loaded.numpy(), values.float().numpy())


def test_load_torch_file_with_map_location_and_weights_only_arguments(tmp_path):
    torch = torch_or_skip()
    torch.save({"w": torch.ones(2)}, tmp_path / "w.pt")
    loaded = load(tmp_path / "w.pt", map_location="cpu", weights_only=False)
    assert loaded["w"].tolist() == [1.0, 1.0]


def _tapegrad_checkpoint():
    tapegrad.manual_seed(0)
    weight = tapegrad.randn(4, 6, dtype=tapegrad.float64)
    checkpoint = {
        "model": _state_dict(),
        "optim": _adam_state(),
        "weight": weight,
        "transposed": weight.t(),
        "rows": weight[1:3, ::2],
        "dtypes": _all_dtypes(),
        "parameter": tapegrad.nn.Parameter(tapegrad.ones(2, 2)),
        "leaf": tapegrad.ones(3, requires_grad=True),
        "meta": (1, 2.5, "text", None, tapegrad.float32, tapegrad.Size([2, 3]), 2**70),
    }
    return checkpoint


def test_torch_load_reads_tapegrad_torch_format(tmp_path):
    torch = torch_or_skip()
    checkpoint = _tapegrad_checkpoint()
    save(checkpoint, tmp_path / "ours.pt", format="torch")
    theirs = torch.load(tmp_path / "ours.pt", weights_only=True)
    _assert_matches_torch(checkpoint, theirs, torch)
    assert theirs["model"]._metadata == checkpoint["model"]._metadata
    assert theirs["weight"].untyped_storage().data_ptr() == \
        theirs["transposed"].untyped_storage().data_ptr()
    theirs["weight"][2, 4] = -100.0
    assert theirs["rows"][1, 2].item() == -100.0


def test_state_dict_moves_from_torch_file_into_tapegrad_module(tmp_path):
    torch = torch_or_skip()
    torch.manual_seed(0)
    theirs = torch.nn.Linear(5, 3)
    torch.save(theirs.state_dict(), tmp_path / "linear.pt")
    ours = tapegrad.nn.Linear(5, 3)
    ours.load_state_dict(load(tmp_path / "linear.pt"))
    inputs = np.random.default_rng(0).standard_normal((2, 5)).astype(np.float32)
    expected = theirs(torch.from_numpy(inputs)).detach().numpy()
    np.testing.assert_allclose(ours(tapegrad.from_numpy(inputs)).detach().numpy(), expected,
                               rtol=1e-6, atol=1e-6)
