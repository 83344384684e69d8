"""Views by geometry, the views' copies and scatters, grids and splits beyond their op_db rows:
torch's errors, storage offsets and strides, view(dtype), in-place metadata views (t_,
transpose_, as_strided_, resize_), shared version counters, and warnings."""
import warnings

import pytest

import tapegrad
from compare import same, same_error
from test_ops import compare_scenario, grad_fn_name, labelled_params, leaf_of


def Z(lib, *shape, dtype="float32"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


def A(lib, n, dtype="float32"):
    return lib.arange(n, dtype=getattr(lib, dtype))


ERRORS = {
    # as_strided and its variants
    "as_strided-out-of-bounds": lambda lib: A(lib, 10).as_strided((2, 2), (1, 2), 10),
    "as_strided-view-out-of-bounds": lambda lib: A(lib, 10)[5:].as_strided((3,), (3,)),
    "as_strided-negative-stride": lambda lib: A(lib, 10).as_strided((2,), (-1,)),
    "as_strided-negative-offset": lambda lib: lib.as_strided(A(lib, 10), (2,), (1,), -1),
    "as_strided-lengths": lambda lib: A(lib, 10).as_strided((2, 2), (1,)),
    "as_strided-negative-size": lambda lib: A(lib, 10).as_strided((-2,), (1,)),
    "as_strided-float-size": lambda lib: A(lib, 10).as_strided((2.0,), (1,)),
    "as_strided-float-stride": lambda lib: A(lib, 10).as_strided((2,), (1.5,)),
    "as_strided_copy-out-of-bounds": lambda lib: lib.as_strided_copy(A(lib, 3), (4,), (1,)),
    "as_strided_-out-of-bounds": lambda lib: A(lib, 3).as_strided_((2,), (2,), 1),
    "as_strided_scatter-src-size": lambda lib: lib.as_strided_scatter(A(lib, 10), Z(lib, 3),
                                                                      (2,), (1,)),
    "as_strided_scatter-out-of-bounds": lambda lib: lib.as_strided_scatter(
        A(lib, 10), Z(lib, 2), (2,), (1,), 9),
    "as_strided_-leaf": lambda lib: Z(lib, 4).requires_grad_().as_strided_((2,), (1,)),
    # unfold
    "unfold-too-large": lambda lib: A(lib, 10).unfold(0, 11, 1),
    "unfold-step-0": lambda lib: A(lib, 10).unfold(0, 2, 0),
    "unfold-negative-size": lambda lib: A(lib, 10).unfold(0, -1, 1),
    "unfold-dim": lambda lib: A(lib, 10).unfold(1, 2, 1),
    "unfold-0d-size": lambda lib: lib.tensor(1.0).unfold(0, 2, 1),
    "unfold-0d-dim": lambda lib: lib.tensor(1.0).unfold(1, 1, 1),
    "unfold_copy-too-large": lambda lib: lib.unfold_copy(Z(lib, 2, 3), 1, 4, 1),
    # view(dtype)
    "view-dtype-0d": lambda lib: lib.tensor(1.0).view(lib.float64),
    "view-dtype-0d-smaller": lambda lib: lib.tensor(1.0).view(lib.int16),
    "view-dtype-last-stride": lambda lib: Z(lib, 4, 4).t().view(lib.float64),
    "view-dtype-last-stride-2": lambda lib: Z(lib, 4, 4)[:, ::2].view(lib.float64),
    "view-dtype-offset": lambda lib: Z(lib, 8)[1:7].view(lib.float64),
    "view-dtype-size": lambda lib: Z(lib, 2, 3).view(lib.int64),
    "view-dtype-stride": lambda lib: Z(lib, 3, 5)[:, :4].view(lib.float64),
    "view_copy-dtype-size": lambda lib: lib.view_copy(Z(lib, 3), lib.float64),
    "view-nothing": lambda lib: Z(lib, 3).view(),
    "view-dtype-and-size": lambda lib: Z(lib, 4).view(lib.int32, 2),
    # matrix transposes
    "H-1d": lambda lib: Z(lib, 3).H,
    "H-3d": lambda lib: Z(lib, 2, 3, 4).H,
    "mH-1d": lambda lib: Z(lib, 3).mH,
    "mT-1d": lambda lib: Z(lib, 3).mT,
    "adjoint-1d": lambda lib: Z(lib, 3).adjoint(),
    "torch-adjoint-1d": lambda lib: lib.adjoint(Z(lib, 3)),
    # in-place metadata views
    "t_-3d": lambda lib: Z(lib, 2, 3, 4).t_(),
    "t_-leaf": lambda lib: Z(lib, 2, 3).requires_grad_().t_(),
    "transpose_-dim": lambda lib: Z(lib, 2, 3).transpose_(0, 2),
    "swapaxes_-leaf": lambda lib: Z(lib, 2, 3).requires_grad_().swapaxes_(0, 1),
    "resize_-requires-grad": lambda lib: Z(lib, 2, 3).requires_grad_().resize_(6),
    "resize_-negative": lambda lib: Z(lib, 2, 3).resize_(-1, 2),
    "resize_as_-requires-grad": lambda lib: lib.resize_as_(Z(lib, 2).requires_grad_(),
                                                           Z(lib, 4)),
    # copies
    "t_copy-3d": lambda lib: lib.t_copy(Z(lib, 2, 2, 2)),
    "permute_copy-length": lambda lib: lib.permute_copy(Z(lib, 2, 2), (0,)),
    "narrow_copy-beyond": lambda lib: lib.narrow_copy(Z(lib, 5, 5), 0, 4, 2),
    "squeeze_copy-dim": lambda lib: lib.squeeze_copy(Z(lib, 5, 5), 3),
    "unbind_copy-0d": lambda lib: lib.unbind_copy(lib.tensor(1.0)),
    "split_with_sizes_copy-sum": lambda lib: lib.split_with_sizes_copy(Z(lib, 5), [1, 1]),
    "split_copy-zero": lambda lib: lib.split_copy(Z(lib, 5), 0),
    "view_copy-size": lambda lib: lib.view_copy(Z(lib, 5, 5), (7,)),
    "expand_copy-size": lambda lib: lib.expand_copy(Z(lib, 2, 3), (3, 3)),
    "select_copy-index": lambda lib: lib.select_copy(Z(lib, 2, 3), 1, 3),
    # scatters
    "select_scatter-shape": lambda lib: lib.select_scatter(Z(lib, 5, 5), Z(lib, 5, 4), 0, 0),
    "select_scatter-index": lambda lib: lib.select_scatter(Z(lib, 5, 5), Z(lib, 5), 0, 5),
    "select_scatter-dim": lambda lib: lib.select_scatter(Z(lib, 5, 5), Z(lib, 5), 2, 0),
    "select_scatter-0d": lambda lib: lib.select_scatter(lib.tensor(1.0), lib.tensor(2.0), 0, 0),
    "slice_scatter-shape": lambda lib: lib.slice_scatter(Z(lib, 5, 5), Z(lib, 5, 4), 0),
    "slice_scatter-step-0": lambda lib: lib.slice_scatter(Z(lib, 5, 5), Z(lib, 0, 5), 0, 0, 5, 0),
    "slice_scatter-step-negative": lambda lib: lib.slice_scatter(Z(lib, 5), Z(lib, 0), 0, 0, 5,
                                                                 -1),
    "slice_scatter-0d": lambda lib: lib.slice_scatter(lib.tensor(1.0), lib.tensor(2.0)),
    "diagonal_scatter-shape": lambda lib: lib.diagonal_scatter(Z(lib, 3, 3), Z(lib, 2)),
    "diagonal_copy-dims": lambda lib: lib.diagonal_copy(Z(lib, 3, 3), 0, 1, -1),
    # tensor_split and hsplit/vsplit/dsplit
    "tensor_split-0d": lambda lib: lib.tensor_split(lib.tensor(1.0), 2),
    "tensor_split-0-sections": lambda lib: lib.tensor_split(Z(lib, 5), 0),
    "tensor_split-negative-sections": lambda lib: Z(lib, 5).tensor_split(-1),
    "tensor_split-float-tensor": lambda lib: lib.tensor_split(Z(lib, 5), lib.tensor([1.0])),
    "tensor_split-int32-tensor": lambda lib: lib.tensor_split(
        Z(lib, 5), lib.tensor([1], dtype=lib.int32)),
    "tensor_split-2d-tensor": lambda lib: lib.tensor_split(Z(lib, 5), lib.tensor([[1]])),
    "tensor_split-float": lambda lib: lib.tensor_split(Z(lib, 5), 2.0),
    "tensor_split-dim": lambda lib: lib.tensor_split(Z(lib, 5, 6), 2, 2),
    "hsplit-0d": lambda lib: lib.hsplit(lib.tensor(1.0), 2),
    "hsplit-not-divisible": lambda lib: lib.hsplit(Z(lib, 5, 6), 4),
    "hsplit-1d-not-divisible": lambda lib: Z(lib, 6).hsplit(4),
    "hsplit-0-sections": lambda lib: lib.hsplit(Z(lib, 5, 6), 0),
    "hsplit-tensor": lambda lib: lib.hsplit(Z(lib, 5, 6), lib.tensor([1])),
    "vsplit-1d": lambda lib: lib.vsplit(Z(lib, 6), 2),
    "vsplit-not-divisible": lambda lib: lib.vsplit(Z(lib, 5, 6), 2),
    "dsplit-2d": lambda lib: lib.dsplit(Z(lib, 5, 6), 2),
    "dsplit-not-divisible": lambda lib: lib.dsplit(Z(lib, 2, 2, 5), 2),
    # unsafe splits
    "unsafe_chunk-0": lambda lib: lib.unsafe_chunk(Z(lib, 5), 0),
    "unsafe_split-zero": lambda lib: lib.unsafe_split(Z(lib, 5), 0),
    "unsafe_split-list": lambda lib: lib.unsafe_split(Z(lib, 5), [2, 3]),
    "unsafe_split_with_sizes-sum": lambda lib: lib.unsafe_split_with_sizes(Z(lib, 5), [1, 1]),
    # broadcasting and grids
    "broadcast_shapes-mismatch": lambda lib: lib.broadcast_shapes((2,), (3,)),
    "broadcast_shapes-int-mismatch": lambda lib: lib.broadcast_shapes(2, (2, 3)),
    "broadcast_shapes-negative": lambda lib: lib.broadcast_shapes((-1,), (3,)),
    "broadcast_shapes-float": lambda lib: lib.broadcast_shapes((2.0,)),
    "broadcast_tensors-mismatch": lambda lib: lib.broadcast_tensors(Z(lib, 2), Z(lib, 3)),
    "broadcast_tensors-list": lambda lib: lib.broadcast_tensors([Z(lib, 2, 1), Z(lib, 3)]),
    "meshgrid-empty": lambda lib: lib.meshgrid(indexing="ij"),
    "meshgrid-dtypes": lambda lib: lib.meshgrid(Z(lib, 2), Z(lib, 2, dtype="float64"),
                                                indexing="ij"),
    "meshgrid-indexing": lambda lib: lib.meshgrid(Z(lib, 2), indexing="foo"),
    "cartesian_prod-2d": lambda lib: lib.cartesian_prod(Z(lib, 3), Z(lib, 2, 2)),
    "cartesian_prod-none": lambda lib: lib.cartesian_prod(),
    "cartesian_prod-0d": lambda lib: lib.cartesian_prod(lib.tensor(1.0)),
    "combinations-2d": lambda lib: lib.combinations(Z(lib, 2, 2)),
    "combinations-negative": lambda lib: lib.combinations(Z(lib, 3), -1),
    "block_diag-3d": lambda lib: lib.block_diag(Z(lib, 2), Z(lib, 2, 2, 2)),
    # rot90, constant_pad_nd, cross
    "rot90-1d": lambda lib: lib.rot90(Z(lib, 3)),
    "rot90-one-dim": lambda lib: lib.rot90(Z(lib, 2, 2), 1, [0]),
    "rot90-same-dims": lambda lib: lib.rot90(Z(lib, 2, 2), 1, [0, 0]),
    "rot90-same-wrapped-dims": lambda lib: lib.rot90(Z(lib, 2, 2), 1, [0, -2]),
    "rot90-dim-range": lambda lib: Z(lib, 2, 2).rot90(1, [0, 2]),
    "constant_pad_nd-odd": lambda lib: lib.constant_pad_nd(Z(lib, 2, 3), [1]),
    "constant_pad_nd-long": lambda lib: lib.constant_pad_nd(Z(lib, 2, 3), [1] * 6),
    "constant_pad_nd-crop": lambda lib: lib.constant_pad_nd(Z(lib, 2, 3), [-4, 1]),
    "cross-no-size-3": lambda lib: lib.cross(Z(lib, 2, 2), Z(lib, 2, 2)),
    "cross-ndim": lambda lib: lib.cross(Z(lib, 2, 3), Z(lib, 3), dim=-1),
    "cross-length": lambda lib: lib.cross(Z(lib, 3, 4), Z(lib, 3, 4), dim=1),
    "cross-broadcast": lambda lib: lib.cross(Z(lib, 2, 3), Z(lib, 3, 3), dim=1),
    "cross-dtypes": lambda lib: lib.cross(Z(lib, 3), Z(lib, 3, dtype="float64"), 0),
    "cross-dim": lambda lib: lib.cross(Z(lib, 3, 2), Z(lib, 3, 2), 5),
    "linalg-cross-length": lambda lib: lib.linalg.cross(Z(lib, 2, 2), Z(lib, 2, 2)),
}


@pytest.mark.parametrize("fn", labelled_params(ERRORS))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_view_error_matches_torch(fn):
    same_error(fn)


# ---- values, dtypes, strides ---------------------------------------------------------------

def _observed(result):
    """What a result shows: values, dtype, shape and, unless it is empty (NumPy keeps no
    place for those), strides and storage offset; for each tensor of a tuple."""
    if isinstance(result, (tapegrad.Tensor, pytest.importorskip("torch").Tensor)):
        seen = (result.tolist(), str(result.dtype), tuple(result.shape))
        return seen + (result.stride(), result.storage_offset()) if result.numel() else seen
    return [_observed(item) for item in result] if isinstance(result, tuple) else result


RESULTS = {
    "as_strided-offset": lambda lib: A(lib, 10).as_strided((2, 2), (1, 2), 1),
    "as_strided-of-view": lambda lib: A(lib, 10)[5:].as_strided((2, 2), (1, 2), 1),
    "as_strided-default-offset": lambda lib: A(lib, 10)[3:].as_strided((2,), (3,)),
    "as_strided-of-transposed": lambda lib: A(lib, 6).view(2, 3).t().as_strided((3,), (2,)),
    "as_strided-empty-far": lambda lib: A(lib, 10).as_strided((0,), (1,), 100),
    "as_strided-int": lambda lib: lib.arange(6).as_strided((2, 2), (2, 1), 1),
    "as_strided_copy": lambda lib: lib.as_strided_copy(A(lib, 10)[2:], (2,), (2,)),
    "as_strided_scatter": lambda lib: lib.as_strided_scatter(A(lib, 9).view(3, 3),
                                                             -A(lib, 4).view(2, 2), (2, 2),
                                                             (1, 2), 1),
    "as_strided_scatter-of-view": lambda lib: A(lib, 10)[4:].as_strided_scatter(
        Z(lib, 2), (2,), (1,)),
    "unfold": lambda lib: A(lib, 10).view(2, 5).unfold(1, 2, 2),
    "unfold-0d": lambda lib: lib.tensor(3.0).unfold(-1, 1, 1),
    "unfold-empty-window": lambda lib: A(lib, 10).unfold(0, 0, 3),
    "unfold_copy": lambda lib: lib.unfold_copy(A(lib, 6), 0, 3, 1),
    "storage_offset-select": lambda lib: A(lib, 12).view(3, 4)[1, 2:],
    "view-dtype-same-size": lambda lib: lib.tensor([1.0, -2.0]).view(lib.int32),
    "view-dtype-larger": lambda lib: A(lib, 8).view(2, 4).view(lib.float64),
    "view-dtype-smaller": lambda lib: lib.tensor([[1.5, 2.0]], dtype=lib.float64).view(
        lib.int16),
    "view-dtype-of-offset-view": lambda lib: A(lib, 8)[2:].view(lib.float64),
    "view-dtype-bool": lambda lib: lib.tensor([1, 0, 2], dtype=lib.uint8).view(lib.bool),
    "view-dtype-strided-rows": lambda lib: A(lib, 18).view(3, 6)[:, :4].view(lib.float64),
    "view-dtype-same-size-non-contiguous": lambda lib: A(lib, 6).view(2, 3).t().view(lib.int32),
    "view_copy-dtype": lambda lib: lib.view_copy(A(lib, 4), lib.int32),
    "view_copy-keywords": lambda lib: (lib.view_copy(A(lib, 4), dtype=lib.int32),
                                       lib.view_copy(A(lib, 4), size=(2, 2))),
    "view-keywords": lambda lib: (A(lib, 4).view(dtype=lib.int32), A(lib, 4).view(size=(4, 1))),
    "keywords": lambda lib: (A(lib, 6).unfold(dimension=0, size=2, step=2),
                             lib.as_strided(A(lib, 6), size=(2,), stride=(2,), storage_offset=1)),
    "view_copy-size": lambda lib: lib.view_copy(A(lib, 6), (3, 2)),
    "t_copy-strides": lambda lib: lib.t_copy(A(lib, 6).view(2, 3)),
    "unsafe_split": lambda lib: lib.unsafe_split(A(lib, 5), 2),
    "unsafe_chunk-empty": lambda lib: lib.unsafe_chunk(Z(lib, 0, 2), 3),
    "tensor_split-negative": lambda lib: lib.tensor_split(A(lib, 6), [-2, 4]),
    "tensor_split-beyond": lambda lib: lib.tensor_split(A(lib, 6), [2, 9]),
    "tensor_split-0d-tensor": lambda lib: lib.tensor_split(A(lib, 6), lib.tensor(4)),
    "hsplit-list": lambda lib: lib.hsplit(A(lib, 12).view(2, 6), [1, 4]),
    "broadcast_shapes": lambda lib: lib.broadcast_shapes((2, 1), (3,), 3, ()),
    "broadcast_shapes-none": lambda lib: lib.broadcast_shapes(),
    "meshgrid-xy": lambda lib: tuple(grid.clone() for grid in lib.meshgrid(
        A(lib, 2), A(lib, 3), A(lib, 1), indexing="xy")),  # strides of expanded dims aside
    "cartesian_prod": lambda lib: lib.cartesian_prod(A(lib, 2), A(lib, 3), A(lib, 2)),
    "combinations-int": lambda lib: lib.combinations(lib.arange(4), 3),
    "combinations-0": lambda lib: lib.combinations(A(lib, 3), 0),
    "combinations-too-many": lambda lib: lib.combinations(A(lib, 2), 3),
    "block_diag-mixed": lambda lib: lib.block_diag(lib.tensor([1, 2]), A(lib, 4).view(2, 2),
                                                   lib.tensor(5.0, dtype=lib.float64)),
    "block_diag-none": lambda lib: lib.block_diag(),
    "rot90-int": lambda lib: lib.rot90(lib.arange(6).view(2, 3), -1),
    "diagflat-int": lambda lib: lib.arange(4).view(2, 2).diagflat(-1),
    "cross-int": lambda lib: lib.cross(lib.tensor([1, 2, 3]), lib.tensor([4, 5, 6]), 0),
    "constant_pad_nd-int": lambda lib: lib.constant_pad_nd(lib.arange(3), [2, -1], 7),
    "select_scatter-casts": lambda lib: lib.select_scatter(Z(lib, 2, 2), lib.tensor(
        [1.5, 2.0], dtype=lib.float64), 0, -1),
    "slice_scatter-clamped": lambda lib: Z(lib, 5).slice_scatter(A(lib, 3), 0, -3, 10),
    "diagonal_copy": lambda lib: lib.diagonal_copy(A(lib, 9).view(3, 3), -1),
    "flip-keyword": lambda lib: A(lib, 6).view(2, 3).flip(dims=[0, 1]),
    "T-3d": lambda lib: A(lib, 24).view(2, 3, 4).T,
    "T-0d": lambda lib: lib.tensor(1.0).T,
    "resize-grows": lambda lib: lib.tensor([1.0, 2.0]).resize_(2, 2)[0],
    "resize-of-transposed": lambda lib: A(lib, 6).view(2, 3).t().contiguous().t().resize_(6),
    "resize-shrinks": lambda lib: A(lib, 6).resize_(2, 2),
    "resize_as": lambda lib: lib.resize_as_(A(lib, 6), Z(lib, 3, 2)),
}


@pytest.mark.parametrize("fn", labelled_params(RESULTS))
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_view_result_matches_torch(fn):
    same(lambda lib: _observed(fn(lib)))


# ---- views share their base's storage and version counter ---------------------------------

def test_as_strided_writes_through_to_its_base_like_torch():
    def scenario(lib):
        base = A(lib, 10)
        view = base[2:].as_strided((2, 2), (1, 3))
        view.mul_(10)
        return {"base": base, "version": base._version, "view-base": view._base is base}
    compare_scenario(scenario)


def test_unfold_and_view_dtype_share_the_version_counter_like_torch():
    def scenario(lib):
        base = A(lib, 6)
        windows, reread = base.unfold(0, 2, 2), base.view(lib.int32)
        base.add_(1)
        return {"windows": windows, "reread": reread, "versions": (windows._version,
                                                                   reread._version)}
    compare_scenario(scenario)


def test_view_dtype_does_not_require_grad_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0])
        return {"same-size": x.view(lib.int64).requires_grad,
                "float32": x.view(lib.float32).requires_grad,
                "itself": x.view(lib.float64).requires_grad}
    compare_scenario(scenario)


def test_overlapping_as_strided_refuses_in_place_writes_like_torch():
    same_error(lambda lib: A(lib, 4).as_strided((2, 2), (0, 1)).add_(1))


def test_in_place_into_unsafe_split_changes_its_input_like_torch():
    def scenario(lib):
        x = A(lib, 4)
        lib.unsafe_split(x, 2)[1].fill_(7)
        return {"x": x, "version": x._version}
    compare_scenario(scenario)


def test_partial_view_leaf_gets_the_gradient_of_its_part_like_torch():
    def scenario(lib):
        x = A(lib, 20, "float64")[5:15].requires_grad_()
        x.as_strided((2, 2), (1, 2), 10).sum().backward()
        return {"grad": x.grad}
    compare_scenario(scenario)


def test_view_made_without_grad_requires_grad_only_when_its_base_does_like_torch():
    def scenario(lib):
        leaf = leaf_of(lib, [1.0, 2.0, 3.0])
        part = A(lib, 6, "float64")[1:4].requires_grad_()
        with lib.no_grad():
            return {"of-leaf": leaf.as_strided((2,), (1,)).requires_grad,
                    "of-partial-view": part.as_strided((2,), (1,)).requires_grad}
    compare_scenario(scenario)


# ---- in-place metadata views ---------------------------------------------------------------

IN_PLACE_VIEWS = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(1, 0),
    "swapaxes_": lambda x: x.swapaxes_(0, 1),
    "swapdims_": lambda x: x.swapdims_(-1, 0),
    "as_strided_": lambda x: x.as_strided_((3,), (2,), 1),
    "squeeze_": lambda x: x.unsqueeze_(0).squeeze_(),
}


@pytest.mark.parametrize("change", labelled_params(IN_PLACE_VIEWS))
def test_in_place_view_changes_the_tensor_and_its_node_like_torch(change):
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        y = x * 2
        returned = change(y)
        weights = lib.arange(returned.numel(), dtype=lib.float64).view(returned.shape)
        (returned * weights).sum().backward()
        return {"same": returned is y, "y": y, "node": grad_fn_name(y),
                "strides": y.stride(), "version": y._version, "grad": x.grad}
    compare_scenario(scenario)


def test_in_place_views_without_grad_keep_sharing_memory_like_torch():
    def scenario(lib):
        base = A(lib, 6)
        view = base.view(2, 3)
        view.t_()
        view.as_strided_((2,), (3,), 1)
        view.fill_(-1)
        return {"base": base, "view": view, "offset": view.storage_offset()}
    compare_scenario(scenario)


# ---- warnings --------------------------------------------------------------------------------

WARNINGS = {
    "meshgrid-without-indexing": lambda lib: lib.meshgrid(Z(lib, 2)),
    "mT-0d": lambda lib: lib.tensor(1.0).mT,
    "mH-0d": lambda lib: lib.tensor(1.0).mH,
    "H-0d": lambda lib: lib.tensor(1.0).H,
    "adjoint-0d": lambda lib: lib.adjoint(lib.tensor(1.0)),
}


@pytest.mark.parametrize("fn", labelled_params(WARNINGS))
def test_warning_matches_torch(fn):
    def scenario(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = fn(lib)
        return ([(w.category.__name__, str(w.message).split(" (Triggered internally")[0])
                 for w in caught], _observed(result))
    same(scenario)


def test_cross_without_dim_warns_once_per_process_like_torch():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(2):
            tapegrad.cross(Z(tapegrad, 2, 3), Z(tapegrad, 2, 3))
    assert len([w for w in caught if "torch.cross without" in str(w.message)]) <= 1


def test_matrix_transposes_of_0d_are_the_tensor_itself_like_torch():
    def scenario(lib):
        x = leaf_of(lib, 2.0) * 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [x.mT is x, x.mH is x, x.H is x, x.adjoint() is x, lib.adjoint(x) is x]
    same(scenario)
