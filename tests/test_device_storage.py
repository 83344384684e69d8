"""Storage views on the device (the double, or a GPU) against the cpu and torch: as_strided
and its in-place, copy and scatter twins, unfold, expand, view(dtype) and resize_, with
storage_offset(), strides and data_ptr() of those views and of views of them. CuPy builds such
views over a memory pointer and gives them no base (the double does the same), so each case
here is one where a forgotten storage would show: offsets, bounds, shared writes, a storage
that grows."""
import gc
import sys

import numpy as np
import pytest

import tapegrad
from tapegrad.ops import strided
from test_device_double import ON_CUPY, gpu  # noqa: F401 (a fixture)

pytestmark = pytest.mark.usefixtures("gpu")  # every test runs on the double (or a GPU)


def bases(lib=tapegrad, dtype="float64"):
    """The same tensor for each place: 10 elements starting 2 into a 12-element storage."""
    dtype = getattr(lib, dtype)
    if lib is tapegrad:
        return tuple(tapegrad.arange(12, dtype=dtype, device=d)[2:] for d in ("cpu", "cuda"))
    return (lib.arange(12, dtype=dtype)[2:],)


def geometry(tensor):
    return tuple(tensor.shape), tensor.stride(), tensor.storage_offset()


def values(tensor):
    return tensor.detach().cpu().numpy()


def check_alike(make, lib_torch=None):
    """make(base) on the cpu and on the device: the same geometry and values, and, when torch
    is given, torch's geometry and values."""
    cpu, cuda = (make(base) for base in bases())
    assert cuda.device.type == "cuda"
    assert geometry(cuda) == geometry(cpu)
    np.testing.assert_array_equal(values(cuda), values(cpu))
    if lib_torch is not None:
        (base,) = bases(lib_torch)
        expected = make(base)
        assert geometry(cpu) == geometry(expected)
        np.testing.assert_array_equal(values(cpu), expected.numpy())
    return cpu, cuda


# ---- as_strided and views of it: where they start in the storage ----------------------------

CHAINS = {
    "offset": lambda t: t.as_strided((2, 2), (3, 1), 5),
    "default-offset": lambda t: t[1:].as_strided((3,), (2,)),
    "slice-of-it": lambda t: t.as_strided((3, 2), (3, 1), 1)[1:],
    "transposed-slice": lambda t: t.as_strided((2, 2), (3, 1), 1)[1:].t(),
    "select": lambda t: t.as_strided((3, 2), (3, 1), 1)[2],
    "of-itself": lambda t: t.as_strided((4,), (2,), 1).as_strided((2,), (1,)),
    "of-its-slice": lambda t: t.as_strided((4,), (2,), 1)[1:].as_strided((2, 2), (4, 1), 6),
    "zero-stride": lambda t: t.as_strided((3, 2), (0, 1), 4),
    "overlapping": lambda t: t.as_strided((3, 2), (1, 1), 3)[1:],
    "unfold-of-it": lambda t: t.as_strided((6,), (1,), 4).unfold(0, 2, 2)[1:],
    "unfold": lambda t: t[1:].unfold(0, 2, 3)[1:],
    "expand-kept-dim": lambda t: t[3:4].view(1, 1).expand(1, 3)[:, 1:],
    "view-of-it": lambda t: t.as_strided((2, 3), (3, 1), 3).view(6)[2:],
}


@pytest.mark.parametrize("make", CHAINS.values(), ids=CHAINS.keys())
def test_views_of_the_storage_start_where_torchs_do(make):
    torch = pytest.importorskip("torch")
    check_alike(make, torch)


def test_as_strided_in_place_restrides_the_tensor_over_its_storage():
    torch = pytest.importorskip("torch")

    def make(base):
        view = base[1:]
        view.as_strided_((2, 3), (1, 2), 4)
        return view[1]
    check_alike(make, torch)


def test_data_ptr_counts_the_bytes_into_the_storage():
    for base in bases():
        view = base.as_strided((2, 2), (3, 1), 5)[1:]
        assert view.data_ptr() - base.data_ptr() == (view.storage_offset() - 2) * 8


def test_a_view_beyond_the_storage_is_refused_with_the_storages_own_size():
    # the storage is 12 float64s (96 bytes), not the 512 bytes CuPy's pool hands out for it
    for base in bases():
        with pytest.raises(RuntimeError, match=r"requiring a storage size of 104 are out of "
                                               r"bounds for storage of size 96"):
            base.as_strided((3,), (5,), 2)


def test_writes_through_a_view_reach_its_base_and_back():
    def make(base):
        view = base.as_strided((2, 2), (3, 1), 5)[1:]
        view.mul_(10)
        base[6] = -1.0
        return tapegrad.stack([base, base.as_strided((10,), (1,), 2)])
    check_alike(make)


def test_a_dropped_view_leaves_no_owner_behind():
    cuda = bases()[1]
    gc.collect()
    before = len(strided._DEVICE_OWNERS)
    views = [cuda.as_strided((2,), (3,), n) for n in range(5)]
    assert len(strided._DEVICE_OWNERS) == before + 5
    del views
    gc.collect()
    assert len(strided._DEVICE_OWNERS) == before


# ---- writes to elements that share memory ---------------------------------------------------

WRITES = {
    "zero-stride-add": lambda v: v.as_strided((3, 2), (0, 1), 2).add_(1),
    "zero-stride-copy": lambda v: v.as_strided((3, 2), (0, 1), 2).copy_(
        tapegrad.ones(3, 2, dtype=v.dtype, device=v.device)),
    "overlapping-add": lambda v: v.as_strided((3, 2), (1, 1), 2).add_(1),
    "overlapping-setitem": lambda v: v.as_strided((3, 2), (1, 1), 2).__setitem__(
        Ellipsis, tapegrad.arange(6, dtype=v.dtype, device=v.device).view(3, 2)),
    "zero-stride-fill": lambda v: v.as_strided((3, 2), (0, 1), 2)[0].fill_(5),
    "unfold-add": lambda v: v.unfold(0, 3, 1).add_(1),
}


def _outcome(write, base):
    try:
        write(base)
    except RuntimeError as error:
        return str(error)
    return values(base).tolist()


@pytest.mark.parametrize("write", WRITES.values(), ids=WRITES.keys())
def test_shared_elements_are_written_or_refused_as_on_the_cpu(write):
    outcomes = [_outcome(write, base) for base in bases()]
    assert outcomes[1] == outcomes[0]


def test_a_tensor_assigned_into_a_zero_stride_view_is_refused_as_on_the_cpu():
    def write(base):
        base.as_strided((3, 2), (0, 1), 2)[...] = tapegrad.ones(3, 2, dtype=base.dtype,
                                                               device=base.device)
    outcomes = [_outcome(write, base) for base in bases()]
    assert "more than one element" in outcomes[0] and outcomes[1] == outcomes[0]


# ---- view(dtype): the same bytes, another dtype ---------------------------------------------

VIEWS = {
    "narrower": ("float64", "int32", lambda t: t.as_strided((2, 3), (4, 1), 4)),
    "narrowest": ("float64", "uint8", lambda t: t[3:5]),
    "wider": ("int32", "float64", lambda t: t.as_strided((2, 4), (4, 1), 2)),
    "wider-of-a-slice": ("int16", "int64", lambda t: t[2:].view(2, 4)[1:]),
    "pairs-to-complex": ("float64", "complex128", lambda t: t.as_strided((2, 2), (4, 1), 2)),
    "to-complex": ("float32", "complex64", lambda t: t[2:8].view(3, 2)),
    "same-size": ("float64", "int64", lambda t: t.as_strided((2, 2), (1, 3), 5)),
}


@pytest.mark.parametrize("dtypes", VIEWS.values(), ids=VIEWS.keys())
def test_view_dtype_reads_the_same_bytes_as_torch(dtypes):
    torch = pytest.importorskip("torch")
    source, target, select = dtypes

    def make(base, lib):
        view = select(base).view(getattr(lib, target))
        return view[..., 1:] if view.shape[-1] > 1 else view
    cpu, cuda = (make(base, tapegrad) for base in bases(dtype=source))
    assert cuda.dtype is getattr(tapegrad, target) and geometry(cuda) == geometry(cpu)
    np.testing.assert_array_equal(values(cuda), values(cpu))
    expected = make(bases(torch, source)[0], torch)
    assert geometry(cpu) == geometry(expected)


def test_view_dtype_to_a_wider_dtype_refuses_an_odd_offset_as_on_the_cpu():
    for base in bases(dtype="int32"):
        with pytest.raises(RuntimeError, match="self.storage_offset\\(\\) must be divisible "
                                               "by 2 to view Int as Long"):
            base[1:5].view(tapegrad.int64)


def test_writes_through_a_dtype_view_reach_the_original():
    def make(base):
        bits = base[2:6].view(tapegrad.int64)
        bits[1:] = 0
        return base
    check_alike(make)


# ---- resize_: the same storage, or a larger one beginning with it ---------------------------

RESIZES = {
    "shrink": lambda t: t[3:].resize_(2, 2),
    "within": lambda t: t[1:3].resize_(3, 3),
    "grow": lambda t: t[3:].resize_(4, 3),
    "grow-from-strided": lambda t: t.as_strided((2, 2), (1, 3), 6).resize_(8),
}


@pytest.mark.parametrize("resize", RESIZES.values(), ids=RESIZES.keys())
def test_resize_keeps_torchs_geometry_and_the_elements_it_keeps(resize):
    torch = pytest.importorskip("torch")
    cpu, cuda = (resize(base) for base in bases())
    (expected,) = (resize(base) for base in bases(torch))
    assert geometry(cuda) == geometry(cpu) == geometry(expected)
    kept = min(cpu.numel(), 12 - cpu.storage_offset())  # beyond the old storage: undefined
    np.testing.assert_array_equal(values(cuda).reshape(-1)[:kept], values(cpu).reshape(-1)[:kept])
    np.testing.assert_array_equal(values(cpu).reshape(-1)[:kept],
                                  expected.numpy().reshape(-1)[:kept])


def test_a_shrunk_tensor_still_shares_its_storage_and_a_grown_one_leaves_it():
    def make(base):
        whole = base.as_strided((12,), (1,), 0)
        shrunk = base[1:].resize_(2)
        grown = base[3:].resize_(20)
        shrunk.fill_(-1)
        grown.fill_(-2)
        return whole
    cpu, cuda = check_alike(make)
    assert values(cpu).tolist() == [0, 1, 2, -1, -1] + list(range(5, 12))


# ---- as_strided_scatter and as_strided: gradients ------------------------------------------

SCATTERS = {
    "slice": ((3, 3), (2, 2), (3, 1), 1),
    "default-offset": ((4, 3), (2, 3), (3, 1), None),
    "strided": ((3, 4), (2, 2), (4, 2), 2),
    "empty": ((2, 2), (0, 2), (1, 1), 0),
}


@pytest.mark.parametrize("shapes", SCATTERS.values(), ids=SCATTERS.keys())
def test_as_strided_scatter_gradients_on_the_device_are_the_cpus(shapes):
    shape, size, stride, offset = shapes
    rng = np.random.default_rng(0)
    data = rng.standard_normal(shape), rng.standard_normal(size), rng.standard_normal(shape)
    results = []
    for device in ("cpu", "cuda"):
        input, src = (tapegrad.tensor(d, device=device, requires_grad=True) for d in data[:2])
        out = tapegrad.as_strided_scatter(input, src, size, stride, offset)
        assert out.grad_fn.name() == "AsStridedScatterBackward0"
        out.backward(tapegrad.tensor(data[2], device=device))
        results.append([values(t) for t in (out, input.grad, src.grad)])
    for cpu, cuda in zip(*results):
        np.testing.assert_array_equal(cuda, cpu)


def test_as_strided_of_an_offset_view_has_the_cpus_gradient():
    results = []
    for base in bases():
        leaf = base.detach().requires_grad_()
        view = leaf[1:].as_strided((3, 2), (1, 2), 4)
        (view * view).sum().backward()
        results.append(values(leaf.grad))
    np.testing.assert_array_equal(results[1], results[0])


# ---- other views built with as_strided ------------------------------------------------------

def _library(tensor):
    """tapegrad or torch, whichever made tensor."""
    return sys.modules[type(tensor).__module__.partition(".")[0]]


OTHER_VIEWS = {
    "diagonal": lambda t: t.view(2, 5).diagonal(1)[1:],
    "view_as_real": lambda t: _library(t).view_as_real(t.view(_library(t).complex128))[1:],
}


@pytest.mark.parametrize("make", OTHER_VIEWS.values(), ids=OTHER_VIEWS)
def test_other_strided_views_start_where_torchs_do(make):
    torch = pytest.importorskip("torch")
    check_alike(make, torch)
