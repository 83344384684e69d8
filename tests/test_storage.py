"""Storages against torch: UntypedStorage over a tensor's bytes (identity, data_ptr, indexing,
writes both ways, printing, resizing), TypedStorage and the legacy classes with their
deprecation warning, Tensor.set_/is_set_to (geometry, errors, version, autograd) and
torch.frombuffer (sharing, errors, read-only buffers)."""
import array
import copy
import gc
import warnings

import numpy as np
import pytest

import tapegrad
from tapegrad import storage as storage_module
from compare import error_of, same, same_error, torch_or_skip
from test_device_double import gpu  # noqa: F401 (a fixture: the device double, or a GPU)

pytestmark = pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")

LIBS = ["tapegrad", "torch"]


@pytest.fixture(params=LIBS)
def lib(request):
    return tapegrad if request.param == "tapegrad" else torch_or_skip()


def base(lib, dtype="float32"):
    """8 elements, of which the tensor sees the last 6: a storage that starts before it."""
    return lib.tensor(list(range(8)), dtype=getattr(lib, dtype))[2:]


# ---- UntypedStorage of a tensor --------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float32", "float64", "int16", "uint8", "bool", "complex64"])
def test_untyped_storage_spans_the_tensors_storage(dtype):
    def scenario(lib):
        t = base(lib, dtype) if dtype != "bool" else lib.tensor([True, False, True])[1:]
        s = t.untyped_storage()
        return (s.nbytes(), s.size(), len(s), s.element_size(), s.tolist(), str(s.device),
                s.data_ptr() == t.data_ptr() - t.storage_offset() * t.element_size(),
                s.type(), s.is_shared(), repr(s))
    same(scenario)


def test_untyped_storage_is_one_object_for_a_tensor_and_its_views(lib):
    t = lib.arange(6.0)
    s = t.untyped_storage()
    views = (t[2:], t.view(2, 3).t(), t.view(lib.int32), t.detach(), t[::2])
    assert all(v.untyped_storage() is s for v in views)
    assert all(v.untyped_storage().data_ptr() == s.data_ptr() for v in views)
    assert all(v.untyped_storage()._cdata == s._cdata for v in views)
    assert lib.arange(6.0).untyped_storage().data_ptr() != s.data_ptr()
    assert s.untyped() is s and s.cpu() is s


@pytest.mark.parametrize("make", [lambda lib: lib.tensor([]), lambda lib: lib.zeros(0, 3),
                                  lambda lib: lib.zeros(2, 3)[:, :0]])
def test_untyped_storage_of_an_empty_tensor(make):
    def scenario(lib):
        t = make(lib)
        s = t.untyped_storage()
        return s.nbytes(), repr(s), t.storage_offset()
    same(scenario)
    t = make(tapegrad)  # torch's data_ptr() of an empty view is 0; tapegrad's is its address
    assert t.untyped_storage().data_ptr() == t.data_ptr() - t.storage_offset() * t.element_size()


def test_storages_leave_no_bookkeeping_behind():
    gc.collect()
    counts = len(storage_module._STORAGES), len(storage_module._ALLOCATED)
    for _ in range(200):
        tapegrad.arange(4.0).untyped_storage()
        storage = tapegrad.UntypedStorage(4)
        tapegrad.tensor([], dtype=tapegrad.uint8).set_(storage).untyped_storage()
        storage.resize_(8)
    del storage
    gc.collect()
    assert (len(storage_module._STORAGES), len(storage_module._ALLOCATED)) == counts


def test_untyped_storage_outlives_its_python_object():
    t = tapegrad.arange(4.0)
    cdata = t.untyped_storage()._cdata
    gc.collect()
    assert t.untyped_storage()._cdata == cdata
    assert t.untyped_storage().data_ptr() == t.data_ptr()


def test_untyped_storage_writes_reach_the_tensor_and_back():
    def scenario(lib):
        t = base(lib)
        s = t.untyped_storage()
        s[8] = 300  # bytes of the element before t's first: wrapped to a byte, as torch
        s[9] = -1
        s[np.int64(10)] = True
        s[-4:] = 7
        t[1] = 2.5
        return s.tolist(), t.tolist(), lib.arange(8.0, dtype=lib.float32)[:0].tolist()
    same(scenario)


def test_untyped_storage_slices_share_memory():
    def scenario(lib):
        s = base(lib).untyped_storage()
        part = s[4:100]
        part[0] = 9
        return (part.nbytes(), part.data_ptr() - s.data_ptr(), s[4], s[3:1].nbytes(),
                s[-4:].tolist(), repr(s[-2:]))
    same(scenario)


@pytest.mark.parametrize("index", [100, -33, "a", 1.0, True, slice(0, 4, 2)])
def test_untyped_storage_bad_index(index):
    same_error(lambda lib: base(lib).untyped_storage()[index])


@pytest.mark.parametrize("index", [100, -1, 32, "a", 1.0, slice(0, 4, 2)])
def test_untyped_storage_bad_setitem_index(index):
    def setitem(lib):
        base(lib).untyped_storage()[index] = 1
    same_error(setitem)


@pytest.mark.parametrize("value", [1.5, [1, 2], "a", np.int64(3)])
def test_untyped_storage_bad_values(value):
    def setitem(lib):
        base(lib).untyped_storage()[0] = value
    same_error(setitem)
    same_error(lambda lib: base(lib).untyped_storage().fill_(value))


def test_untyped_storage_setitem_refuses_a_tensor():
    same_error(lambda lib: base(lib).untyped_storage().__setitem__(0, lib.tensor(1)))
    same_error(lambda lib: base(lib).untyped_storage().fill_(lib.tensor(3)))


def test_untyped_storage_fill_and_copy():
    def scenario(lib):
        t = base(lib)
        s = t.untyped_storage()
        other = lib.arange(8, dtype=lib.float32).untyped_storage()
        first = t.tolist()
        s.fill_(0)
        filled = t.tolist()
        s.copy_(other)
        return first, filled, t.tolist(), s.fill_(257).tolist()[:3]
    same(scenario)
    same_error(lambda lib: base(lib).untyped_storage().copy_(lib.UntypedStorage(3)))
    same_error(lambda lib: base(lib).untyped_storage().copy_(lib.arange(8.0)))


def test_untyped_storage_clone_and_copies_are_new_memory():
    def scenario(lib):
        t = base(lib)
        s = t.untyped_storage()
        copies = (s.clone(), copy.copy(s), copy.deepcopy(s))
        for c in copies:
            c[0] = 1
        return ([c.tolist() == s.tolist() for c in copies], [c.data_ptr() != s.data_ptr()
                                                              for c in copies],
                [type(c).__name__ for c in copies], [c.resizable() for c in copies], s[0])
    same(scenario)


@pytest.mark.parametrize("args", [(), (3,), (0,), ([1, 2, 300, -1],), ((1, 2),), (b"ab",),
                                  (bytearray(b"xyz"),), (np.int64(2),), (tapegrad.tensor(2),)])
def test_untyped_storage_constructors(args):
    def scenario(lib):
        made_args = [lib.tensor(2) if isinstance(a, tapegrad.Tensor) else a for a in args]
        s = lib.UntypedStorage(*made_args)
        if as_size(args):  # torch leaves the bytes of a size uninitialised
            s.fill_(5)
        return repr(s), s.nbytes(), s.resizable(), str(s.device), s.is_shared()
    same(scenario)


@pytest.mark.parametrize("args", [(-1,), (2, 3), ("ab",), (2.0,), ([1.0],), (True,)])
def test_untyped_storage_constructor_errors(args):
    same_error(lambda lib: lib.UntypedStorage(*args))


def as_size(args):
    return args and not isinstance(args[0], (list, tuple, bytes, bytearray))


def test_untyped_storage_printing_exactly():
    torch = torch_or_skip()
    for make in (lambda lib: lib.arange(2, dtype=lib.float32), lambda lib: lib.tensor([]),
                 lambda lib: lib.tensor([-1, 2], dtype=lib.int16)):
        assert repr(make(tapegrad).untyped_storage()) == repr(make(torch).untyped_storage())
        assert str(make(tapegrad).untyped_storage()) == str(make(torch).untyped_storage())
    assert repr(tapegrad.UntypedStorage(2)) == (
        " 0\n 0\n[torch.storage.UntypedStorage(device=cpu) of size 2]")


def test_untyped_storage_iterates_over_its_bytes():
    same(lambda lib: list(lib.UntypedStorage([1, 2, 3])))


# ---- resizing ----------------------------------------------------------------------------------

def test_resize_of_an_allocated_storage():
    def scenario(lib):
        s = lib.UntypedStorage([1, 2, 3, 4])
        grown = s.resize_(6) is s
        head = s.tolist()[:4]
        s.resize_(2)
        return grown, head, s.tolist(), s.nbytes(), s.resizable()
    same(scenario)
    same_error(lambda lib: lib.UntypedStorage(4).resize_(-1))


def test_a_tensors_storage_is_not_resizable():
    """torch resizes the storage of a tensor it allocated; tapegrad cannot move the arrays
    over it, so it refuses, as torch refuses a storage that does not own its memory."""
    torch = torch_or_skip()
    t = tapegrad.zeros(3)
    assert not t.untyped_storage().resizable()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        t.untyped_storage().resize_(0)
    shared = np.zeros(3, np.float32)  # torch's own non-resizable case: the same error
    assert error_of(lambda: tapegrad.from_numpy(shared).untyped_storage().resize_(2)) == \
        error_of(lambda: torch.from_numpy(shared).untyped_storage().resize_(2))


def test_resize_of_a_storage_tensors_are_over_is_refused():
    s = tapegrad.UntypedStorage(4)
    t = tapegrad.tensor([], dtype=tapegrad.uint8).set_(s)
    with pytest.raises(RuntimeError, match="tapegrad cannot resize a storage that tensors"):
        s.resize_(8)
    del t
    assert s.resize_(8).nbytes() == 8


# ---- TypedStorage ------------------------------------------------------------------------------

def reset_warnings(lib):
    if lib is tapegrad:
        storage_module._warned = False
    else:
        lib.storage._reset_warn_typed_storage_removal()


def test_typed_storage_warns_once(lib):
    reset_warnings(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = lib.arange(3.0)
        t.storage()
        t.storage().tolist()
        lib.FloatStorage(2)
    messages = [str(w.message) for w in caught]
    assert messages == [storage_module.TYPED_STORAGE_WARNING]
    assert caught[0].category is UserWarning and caught[0].filename == __file__


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int8", "uint8",
                                   "bool", "complex64", "complex128", "int32", "int16"])
def test_typed_storage_of_a_tensor(dtype):
    def scenario(lib):
        t = lib.tensor([0, 1, 1, 2, 3], dtype=getattr(lib, dtype))[1:]
        ts = t.storage()
        return (ts.dtype is t.dtype, ts.size(), len(ts), ts.nbytes(), ts[0], ts[-1], ts.tolist(),
                ts.element_size(), ts.type(), str(ts.device), repr(ts), str(ts),
                ts.data_ptr() == t.untyped_storage().data_ptr(),
                ts._untyped_storage is t.untyped_storage(), ts.untyped() is t.untyped_storage(),
                repr(t.storage_type()), isinstance(ts, lib.TypedStorage),
                isinstance(ts, lib.FloatStorage), ts.is_shared())
    same(scenario)


def test_typed_storage_printing_of_values():
    def scenario(lib):
        values = (lib.tensor([1e10, 1e-5, float("nan"), -float("inf")]),
                  lib.tensor([1 / 3], dtype=lib.float64), lib.tensor([1 + 2j]),
                  lib.tensor([1.5], dtype=lib.float16), lib.tensor([True]))
        return [repr(v.storage()) for v in values]
    same(scenario)


def test_typed_storage_writes_reach_the_tensor():
    def scenario(lib):
        t = lib.arange(6.0).view(2, 3)
        ts = t.storage()
        ts[0] = 7
        ts[1:3] = 5
        before = t.tolist()
        ts.fill_(2)
        return before, t.tolist(), ts.copy_(lib.arange(6.0).storage()).tolist(), t.tolist()
    same(scenario)


@pytest.mark.parametrize("index", [10, -7, slice(0, 2), "a", np.int64(1)])
def test_typed_storage_bad_index(index):
    same_error(lambda lib: lib.arange(6.0).storage()[index])


def test_typed_storage_casts_and_clones():
    def scenario(lib):
        ts = lib.arange(3, dtype=lib.float32).storage()
        casts = (ts.double(), ts.float(), ts.long(), ts.int(), ts.short(), ts.char(), ts.byte(),
                 ts.bool(), ts.half(), ts.complex_float(), ts.complex_double())
        clone = ts.clone()
        clone[0] = 9
        return ([(c.dtype.__repr__(), c.tolist()) for c in casts],
                ts.float().data_ptr() != ts.data_ptr(), ts[0], clone.tolist(), ts.cpu().tolist())
    same(scenario)


@pytest.mark.parametrize("name", ["DoubleStorage", "FloatStorage", "HalfStorage", "LongStorage",
                                  "IntStorage", "ShortStorage", "CharStorage", "ByteStorage",
                                  "BoolStorage", "ComplexFloatStorage", "ComplexDoubleStorage"])
def test_legacy_storage_classes(name):
    def scenario(lib):
        legacy = getattr(lib, name)
        empty, sized, listed = legacy(), legacy(3), legacy([1, 0, 1])
        wrapped = legacy(wrap_storage=lib.UntypedStorage([0, 1] * 8))
        return (repr(legacy), legacy.dtype.__repr__(), type(listed).__name__, empty.size(),
                sized.size(), repr(listed), wrapped.size(), wrapped.tolist(),
                isinstance(listed, legacy), isinstance(listed, lib.TypedStorage),
                isinstance(lib.DoubleStorage(1), legacy), listed.type(), listed.resizable())
    same(scenario)


@pytest.mark.parametrize("args, kwargs", [((2, 3), {}), ((2.5,), {}), ((), {"device": "cpu"}),
                                          ((), {"dtype": "x"}), ((1,), {"wrap_storage": 1}),
                                          ((), {"wrap_storage": 1})])
def test_legacy_storage_errors(args, kwargs):
    def scenario(lib):
        kwargs_here = dict(kwargs)
        if kwargs_here.get("wrap_storage") == 1 and not args:
            kwargs_here["wrap_storage"] = lib.arange(2)
        return lib.FloatStorage(*args, **kwargs_here)
    same_error(scenario)


@pytest.mark.parametrize("args, kwargs", [
    ((), {"wrap_storage": "storage"}), ((), {"wrap_storage": "tensor", "dtype": "float32"}),
    ((1,), {"wrap_storage": "storage", "dtype": "float32"}), ((1, 2), {}), ((2.5,), {}),
    ((), {"wrap_storage": "storage", "dtype": "float32", "device": "cpu"}),
    ((), {"wrap_storage": "storage", "dtype": 3})])
def test_typed_storage_constructor_errors(args, kwargs):
    def scenario(lib):
        made = {"storage": lib.UntypedStorage(4), "tensor": lib.arange(3)}
        given = {k: made.get(v, getattr(lib, v, v)) if isinstance(v, str) else v
                 for k, v in kwargs.items()}
        return lib.TypedStorage(*args, **given)
    same_error(scenario)


def test_untyped_storage_to_its_own_device_is_itself():
    def scenario(lib):
        storage = lib.UntypedStorage([1, 2])
        return (storage.to(device="cpu") is storage, storage.to(device=lib.device("cpu")) is
                storage, storage.cpu() is storage)
    same(scenario)
    assert all(scenario(tapegrad))


def test_typed_storage_constructor_and_wrapping():
    def scenario(lib):
        made = (lib.TypedStorage(3).fill_(1), lib.TypedStorage([1, 2], dtype=lib.int32),
                lib.TypedStorage(wrap_storage=lib.UntypedStorage([1] * 7), dtype=lib.int32))
        return [(repr(s), s.dtype.__repr__()) for s in made]
    same(scenario)


# ---- set_ and is_set_to -------------------------------------------------------------------------

def geometry(t):
    return tuple(t.shape), t.stride(), t.storage_offset(), t.tolist()


def test_set_to_a_tensor_shares_its_storage_and_geometry():
    def scenario(lib):
        a = lib.arange(6.0)
        b = lib.tensor([1.0])
        version = b._version
        result = b.set_(a[2:].view(2, 2).t())
        b[0, 0] = 100
        return (result is b, b._version - version, geometry(b), a.tolist(),
                b.is_set_to(a[2:].view(2, 2).t()), b.is_set_to(a), a.is_set_to(a),
                b.untyped_storage() is a.untyped_storage(), b._base is None,
                b._version == a._version)
    same(scenario)


@pytest.mark.parametrize("geometry_args", [(), (1, (2, 2)), (1, (2, 2), (1, 2)), (2, (0, 3)),
                                           (0, (2, 3), (0, 1)), (5, ())])
def test_set_to_a_storage(geometry_args):
    def scenario(lib):
        a = lib.arange(6.0)
        c = lib.tensor([1.0])
        c.set_(a.untyped_storage(), *geometry_args)
        typed = lib.tensor([1.0]).set_(a.storage(), *geometry_args)
        keyword = lib.tensor([1.0])
        if geometry_args:
            names = ("storage_offset", "size", "stride")
            keyword.set_(source=a.untyped_storage(), **dict(zip(names, geometry_args)))
        c.fill_(-1) if c.numel() else None
        return geometry(c), geometry(typed), geometry(keyword), a.tolist(), c.is_set_to(typed)
    same(scenario)


def test_set_to_nothing_and_to_an_empty_storage():
    def scenario(lib):
        c = lib.tensor([1.0, 2.0])
        c.set_()
        d = lib.tensor([1.0, 2.0]).set_(lib.UntypedStorage(0))
        return (geometry(c), c.untyped_storage().nbytes(), c.untyped_storage().resizable(),
                geometry(d))
    same(scenario)


def test_set_past_the_end_of_an_allocated_storage_grows_it():
    def scenario(lib):
        s = lib.UntypedStorage([1, 0, 0, 0])
        c = lib.tensor([], dtype=lib.uint8).set_(s, 0, (2, 3))
        return tuple(c.shape), s.nbytes(), s.tolist()[:4], c.untyped_storage() is s
    same(scenario)


def test_set_past_the_end_of_a_tensors_storage_is_refused():
    """torch grows the storage of a tensor it allocated; tapegrad cannot (see resize_), so
    it refuses as torch does for a storage it did not allocate."""
    torch = torch_or_skip()
    with pytest.raises(RuntimeError, match="Trying to resize storage that is not resizable"):
        tapegrad.tensor([1.0]).set_(tapegrad.arange(6.0).untyped_storage(), 4, (2, 2))
    shared = np.zeros(2, np.float32)
    assert (error_of(lambda: tapegrad.tensor([1.0]).set_(
        tapegrad.from_numpy(shared).untyped_storage(), 0, (4,))) ==
        error_of(lambda: torch.tensor([1.0]).set_(torch.from_numpy(shared).untyped_storage(),
                                                  0, (4,))))


@pytest.mark.parametrize("dtype", ["float64", "int64", "int16", "bool", "complex64", "uint8",
                                   "float16", "int8", "int32"])
def test_set_dtype_mismatch(dtype):
    def other(lib):
        return lib.float64 if dtype != "float64" else lib.int64
    same_error(lambda lib: lib.tensor([1], dtype=getattr(lib, dtype)).set_(
        lib.tensor([1], dtype=other(lib)).storage()))
    same_error(lambda lib: lib.tensor([1], dtype=getattr(lib, dtype)).set_(
        lib.tensor([1], dtype=other(lib))))


def test_set_from_an_untyped_storage_of_another_dtype():
    same(lambda lib: geometry(lib.tensor([1.0, 2]).set_(
        lib.arange(6, dtype=lib.int32).untyped_storage())))


@pytest.mark.parametrize("arguments", [
    lambda lib: (lib.arange(6.0).untyped_storage(), -1, (2,)),
    lambda lib: (lib.arange(6.0).untyped_storage(), 0, (2,), (1, 2)),
    lambda lib: (lib.arange(6.0).untyped_storage(), 0, (-1,)),
    lambda lib: (lib.arange(6.0).untyped_storage(), 1),
    lambda lib: (lib.arange(6.0).untyped_storage(), 0, 2),
    lambda lib: (lib.arange(6.0).storage(), 2),
])
def test_set_errors(arguments):
    same_error(lambda lib: lib.tensor([1.0]).set_(*arguments(lib)))


def test_is_set_to_refuses_a_number():
    same_error(lambda lib: lib.tensor([1]).is_set_to(3))


def test_set_on_a_leaf_that_requires_grad():
    def scenario(lib):
        w = lib.tensor([1.0], requires_grad=True)
        with lib.no_grad():
            w.set_(lib.arange(3.0))
        return w.requires_grad, w.is_leaf, w.tolist()
    same(scenario)
    same_error(lambda lib: lib.tensor([1.0], requires_grad=True).set_(lib.arange(3.0)))


def test_set_on_a_view_of_a_leaf_and_on_an_inference_tensor():
    same_error(lambda lib: lib.zeros(3, requires_grad=True)[1:].set_(lib.arange(3.0)))

    def inference(lib):
        with lib.inference_mode():
            made = lib.zeros(2)
        return made.set_(lib.arange(2.0))
    same_error(inference)


def test_set_in_a_graph_cannot_be_differentiated():
    def scenario(lib):
        w = lib.tensor([1.0])
        w.set_(lib.arange(3.0, requires_grad=True))
        x = lib.tensor([1.0], requires_grad=True) * 2
        x.set_(lib.arange(3.0))
        return (w.requires_grad, type(w.grad_fn).__name__, w.is_leaf, x.grad_fn.name(),
                error_of(lambda: w.sum().backward()))
    same(scenario)


# ---- frombuffer -----------------------------------------------------------------------------

def test_frombuffer_shares_a_writable_buffer_both_ways():
    def scenario(lib):
        data = bytearray(8)
        t = lib.frombuffer(data, dtype=lib.float32)
        t[0] = 1
        data[4:8] = np.float32(2).tobytes()
        tail = lib.frombuffer(data, dtype=lib.float32, count=1, offset=4)
        odd = lib.frombuffer(data, dtype=lib.float32, count=1, offset=2)
        numbers = array.array("i", [1, 2, 3])
        from_array = lib.frombuffer(numbers, dtype=lib.int32)
        numbers[0] = 9
        ndarray = np.arange(4.0).reshape(2, 2)
        lib.frombuffer(ndarray, dtype=lib.float64)[1] = 7
        return (bytes(data), t.tolist(), tail.tolist(), tail.storage_offset(),
                tail.untyped_storage().nbytes(), t.untyped_storage().resizable(),
                t.untyped_storage().data_ptr() == t.data_ptr(), odd.shape,
                from_array.tolist(), ndarray.tolist(), t.requires_grad,
                lib.frombuffer(data, dtype=lib.float32, requires_grad=True).requires_grad,
                lib.frombuffer(data, dtype=lib.float32, count=-2).tolist())
    same(scenario)


@pytest.mark.parametrize("length, kwargs", [
    (8, {"count": 0}), (0, {}), (8, {"offset": 9}), (8, {"offset": 8}), (8, {"offset": -1}),
    (8, {"count": 3}), (7, {}), (7, {"offset": 1}), (7, {"offset": 1, "count": 2})])
def test_frombuffer_errors(length, kwargs):
    same_error(lambda lib: lib.frombuffer(bytearray(length), dtype=lib.float32, **kwargs))


@pytest.mark.parametrize("buffer", [[1, 2], 3])
def test_frombuffer_refuses_what_is_not_a_buffer(buffer):
    same_error(lambda lib: lib.frombuffer(buffer, dtype=lib.float32))


def test_frombuffer_other_errors():
    same_error(lambda lib: lib.frombuffer(bytearray(8), dtype=lib.int64, requires_grad=True))
    same_error(lambda lib: lib.frombuffer(np.arange(4.0)[::2], dtype=lib.float64))
    same_error(lambda lib: lib.frombuffer(bytearray(8)))


def test_frombuffer_of_a_read_only_buffer_warns_and_copies():
    """torch warns and shares the read-only bytes (writes into them are undefined); tapegrad
    warns with torch's text and copies them, its rule for read-only memory."""
    torch = torch_or_skip()
    messages = []
    for lib in (tapegrad, torch):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            t = lib.frombuffer(b"abcd", dtype=lib.uint8)
        assert t.tolist() == [97, 98, 99, 100]
        assert caught[0].category is UserWarning and caught[0].filename == __file__
        messages.append(str(caught[0].message))
    assert torch_text_without_origin(messages[1]) == messages[0]
    data = b"abcd"
    with pytest.warns(UserWarning, match="The given buffer is not writable"):
        t = tapegrad.frombuffer(data, dtype=tapegrad.uint8)
    t[0] = 0
    assert data == b"abcd"


def torch_text_without_origin(message):
    return message.split(" (Triggered internally at")[0]


# ---- on the device (the double, or a GPU) -----------------------------------------------------

@pytest.mark.usefixtures("gpu")
def test_device_storage_matches_the_cpu():
    cpu = tapegrad.arange(8, dtype=tapegrad.float32)[2:]
    cuda = tapegrad.arange(8, dtype=tapegrad.float32, device="cuda")[2:]
    s, expected = cuda.untyped_storage(), cpu.untyped_storage()
    assert s.device.type == "cuda" and s.is_cuda and s.is_shared()
    assert (s.nbytes(), s.tolist(), s[4]) == (expected.nbytes(), expected.tolist(), expected[4])
    assert s.data_ptr() == cuda.data_ptr() - cuda.storage_offset() * cuda.element_size()
    assert cuda[1:].untyped_storage() is s
    assert repr(s) == repr(expected).replace("device=cpu", f"device={s.device}")
    s[8:12] = 0  # cuda[0]'s bytes
    assert cuda.tolist() == [0.0, 3, 4, 5, 6, 7]
    on_host = s.cpu()
    assert on_host.device.type == "cpu" and on_host.tolist() == s.tolist()
    twin = s.clone()
    twin.fill_(0)
    assert twin.device == s.device and cuda[1].item() == 3.0
    assert cuda.storage().tolist() == [0.0, 1, 0, 3, 4, 5, 6, 7]
    assert cuda.storage().type() == "torch.cuda.FloatStorage"  # torch's name for it


@pytest.mark.usefixtures("gpu")
def test_device_set_and_constructors():
    made = tapegrad.UntypedStorage([1, 2, 3, 4], device="cuda")
    assert made.device.type == "cuda" and made.tolist() == [1, 2, 3, 4] and made.resizable()
    t = tapegrad.tensor([], dtype=tapegrad.uint8, device="cuda").set_(made, 1, (2,))
    assert t.device.type == "cuda" and t.tolist() == [2, 3] and t.untyped_storage() is made
    t[0] = 9
    assert made[1] == 9
    source = tapegrad.arange(6.0, device="cuda")
    other = tapegrad.tensor([1.0], device="cuda").set_(source[1:])
    assert other.is_set_to(source[1:]) and other.storage_offset() == 1
