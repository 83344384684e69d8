"""op_db rows of the views family: as_strided, unfold, the *_copy twins of the views, the
scatters, metadata in-place views (t_, transpose_, as_strided_), tensor_split and its
variants, broadcasting and grids, block_diag, rot90, diagflat, cross, constant_pad_nd
(tapegrad/ops/strided.py, view_copy.py, broadcasting.py, cross_product.py, and the views in
shape.py, joining.py and reordering.py)."""
import numpy as np

from op_db import OpRow, S, STEP, T, bug


def _weighted_sum(pieces):
    """Equally shaped pieces in one output, each scaled differently (each gradient shows)."""
    total = pieces[0]
    for i, piece in enumerate(pieces[1:], 2):
        total = total + piece * i
    return total


def _weighted_cat(lib, pieces, dim):
    return lib.cat([piece * (i + 1) for i, piece in enumerate(pieces)], dim)


AS_STRIDED_SCATTER_QUIRK = bug(
    "torch's as_strided_scatter_backward gives the input the gradient of the scattered slice "
    "instead of the rest (torch's own test_fn_grad of it is an expected failure); tapegrad "
    "keeps the derivative that gradcheck confirms", ("torch",))


ROWS = (
    # ---- strided views ----------------------------------------------------------------------
    OpRow("as_strided", lambda lib, x, size, stride, offset: x.as_strided(size, stride, offset), (
        S((3, 3), constants={"size": (2, 2), "stride": (1, 2), "offset": 1}, label="offset"),
        S((4,), constants={"size": (3, 2), "stride": (1, 1), "offset": 0}, label="overlapping"),
        S((3,), constants={"size": (), "stride": (), "offset": 2}, label="0d"),
        S((3,), constants={"size": (2, 0), "stride": (1, 1), "offset": 9}, label="empty"),
        S((3, 4), constants={"size": (2, 3), "stride": (2, 4), "offset": None}, layouts=("t",),
          label="t"),
        STEP((3, 2), constants={"size": (2, 2), "stride": (4, 1), "offset": None}),
    ), ops=("as_strided",)),
    OpRow("as_strided_fn", lambda lib, x: lib.as_strided(x[1:], (2,), (2,)), (S((5,)),),
          ops=("as_strided",)),
    OpRow("as_strided_of_expanded", lambda lib, x: x.expand(3, 2).as_strided((2, 2), (1, 0)),
          (S((2,)),), ops=("as_strided",)),
    OpRow("as_strided_copy", lambda lib, x: lib.as_strided_copy(x, (2, 2), (1, 2), 1), (
        S((3, 3)), T((3, 3))), ops=("as_strided_copy",)),
    OpRow("as_strided_in_place", lambda lib, x: (x * 1).as_strided_((2, 2), (2, 1), 1), (
        S((2, 3)),), ops=("as_strided_",)),
    OpRow("as_strided_in_place_fn", lambda lib, x: lib.as_strided_(x * 2, (3,), (2,)), (
        S((6,)),), ops=("as_strided_",)),
    OpRow("as_strided_scatter", lambda lib, x, src, size, stride, offset: lib.as_strided_scatter(
        x, src, size, stride, offset), (
        S((3, 3), (2, 2), constants={"size": (2, 2), "stride": (1, 2), "offset": 1}),
        S((4,), (), constants={"size": (), "stride": (), "offset": 3}, label="0d"),
        S((4,), (2,), constants={"size": (2,), "stride": (2,), "offset": None}, label="default"),
    ), bugs=AS_STRIDED_SCATTER_QUIRK, ops=("as_strided_scatter",)),
    OpRow("tensor_unfold", lambda lib, x, dim, size, step: x.unfold(dim, size, step), (
        S((7,), constants={"dim": 0, "size": 3, "step": 2}, label="overlapping"),
        S((4, 5), constants={"dim": 1, "size": 2, "step": 2}, label="leftover"),
        S((4, 5), constants={"dim": -2, "size": 4, "step": 1}, label="dim-2"),
        S((), constants={"dim": 0, "size": 1, "step": 1}, label="0d"),
        S((3, 2), constants={"dim": 0, "size": 0, "step": 1}, label="empty-windows"),
        S((3, 4), constants={"dim": 1, "size": 2, "step": 1}, layouts=("t",), label="t"),
        STEP((3, 4), constants={"dim": 0, "size": 2, "step": 1}),
    ), ops=("unfold",)),
    OpRow("tensor_unfold_copy", lambda lib, x: lib.unfold_copy(x, 1, 2, 1), (S((2, 4)), T((3, 3))),
          ops=("unfold_copy",)),

    # ---- matrix transposes and in-place metadata views ----------------------------------------
    OpRow("adjoint", lambda lib, x: lib.adjoint(x) * x.adjoint(), (
        S((2, 3)), S((2, 3, 4)), T((2, 3))), ops=("adjoint",)),
    OpRow("mT_mH_H", lambda lib, x: x.mT * x.mH * x.H, (S((2, 3)), T((3, 2))), ops=("transpose",)),
    OpRow("batched_mT_mH", lambda lib, x: x.mT * x.mH, (S((2, 3, 4)),), ops=("transpose",)),
    OpRow("t_in_place", lambda lib, x: (x * 1).t_(), (S((2, 3)), S((3,)), S(())), ops=("t",)),
    OpRow("transpose_in_place", lambda lib, x: (x * 1).transpose_(0, -1), (
        S((2, 3, 4)), S(())), ops=("transpose",)),
    OpRow("swap_in_place", lambda lib, x: (x * 1).swapaxes_(0, 1) * (x * 2).swapdims_(1, 0), (
        S((2, 2)),), ops=("swapaxes", "swapdims")),
    OpRow("resize", lambda lib, x: x + lib.zeros(6, dtype=x.dtype).resize_(2, 3) + lib.resize_as_(
        lib.ones(2, 3, dtype=x.dtype).t(), x), (S((2, 3)),), ops=("resize_", "resize_as_")),

    # ---- the views' copying twins -------------------------------------------------------------
    OpRow("alias_copy", lambda lib, x: lib.alias_copy(x), (S((2, 3)), S(())), ops=("alias_copy",)),
    OpRow("expand_copy", lambda lib, x: lib.expand_copy(x, (2, -1, 3)), (S((2, 1)), S((1, 1))),
          ops=("expand_copy",)),
    OpRow("narrow_copy", lambda lib, x: lib.narrow_copy(x, 1, 1, 2) * x.narrow_copy(-1, 0, 2), (
        S((2, 4)), T((4, 3))), ops=("narrow_copy",)),
    OpRow("permute_copy", lambda lib, x: lib.permute_copy(x, (2, 0, -2)), (S((2, 3, 4)),),
          ops=("permute_copy",)),
    OpRow("select_copy", lambda lib, x: lib.select_copy(x, -1, 1), (S((2, 3)), S((3,))),
          ops=("select_copy",)),
    OpRow("slice_copy", lambda lib, x: lib.slice_copy(x, 1, 1, None, 2), (S((2, 5)),),
          ops=("slice_copy",)),
    OpRow("split_copy", lambda lib, x: _weighted_cat(lib, lib.split_copy(x, 2, 1), 1), (
        S((2, 5)),), ops=("split_copy",)),
    OpRow("split_copy_piece", lambda lib, x: lib.split_copy(x, 2)[1], (S((5, 2)),),
          ops=("split_copy",)),
    OpRow("split_with_sizes_copy", lambda lib, x: _weighted_cat(
        lib, lib.split_with_sizes_copy(x, [1, 0, 2], -1), -1), (S((2, 3)),),
        ops=("split_with_sizes_copy",)),
    OpRow("squeeze_copy_all", lambda lib, x: lib.squeeze_copy(x), (S((2, 1, 3, 1)),),
          ops=("squeeze_copy",)),
    OpRow("squeeze_copy", lambda lib, x, dim: lib.squeeze_copy(x, dim), (
        S((2, 1, 3, 1), constants={"dim": -1}, label="dim"),
        S((2, 1, 3, 1), constants={"dim": (1, 3)}, label="dims"),
    ), ops=("squeeze_copy",)),
    OpRow("t_copy", lambda lib, x: lib.t_copy(x), (S((2, 3)), S((3,))), ops=("t_copy",)),
    OpRow("transpose_copy", lambda lib, x: lib.transpose_copy(x, 0, -1), (S((2, 3, 4)),),
          ops=("transpose_copy",)),
    OpRow("unbind_copy", lambda lib, x: _weighted_sum(lib.unbind_copy(x, 1)), (S((2, 3)),),
          ops=("unbind_copy",)),
    OpRow("unbind_copy_piece", lambda lib, x: lib.unbind_copy(x)[1], (S((3, 2)),),
          ops=("unbind_copy",)),
    OpRow("unsqueeze_copy", lambda lib, x: lib.unsqueeze_copy(x, -1), (S((2, 3)), S(())),
          ops=("unsqueeze_copy",)),
    OpRow("view_copy", lambda lib, x: lib.view_copy(x, (3, -1)), (S((2, 3)), S((6,))),
          ops=("view_copy",)),
    OpRow("diagonal_copy", lambda lib, x: lib.diagonal_copy(x, 1, -1, 0), (S((3, 4)), S((2, 3, 3))),
          ops=("diagonal_copy",)),

    # ---- scatters into what a view would see --------------------------------------------------
    OpRow("select_scatter", lambda lib, x, src, dim, index: lib.select_scatter(
        x, src, dim, index), (
        S((3, 4), (4,), constants={"dim": 0, "index": -1}, label="row"),
        S((3, 4), (3,), constants={"dim": 1, "index": 2}, label="column"),
        S((3,), (), constants={"dim": 0, "index": 1}, label="0d-src"),
        S((4, 3), (4,), constants={"dim": 1, "index": 0}, layouts=("t", None), label="t"),
    ), ops=("select_scatter",)),
    OpRow("select_scatter_method", lambda lib, x, src: x.select_scatter(src, 1, 0), (
        S((2, 3), (2,)),), ops=("select_scatter",)),
    OpRow("slice_scatter", lambda lib, x, src, dim, start, end, step: lib.slice_scatter(
        x, src, dim, start, end, step), (
        S((5, 2), (2, 2), constants={"dim": 0, "start": 1, "end": None, "step": 3}, label="step"),
        S((2, 5), (2, 2), constants={"dim": -1, "start": -2, "end": 10, "step": 1},
          label="clamped"),
        S((2, 3), (2, 3), constants={"dim": 1, "start": None, "end": None, "step": 1},
          label="whole"),
    ), ops=("slice_scatter",)),
    OpRow("slice_scatter_method", lambda lib, x, src: x.slice_scatter(src, start=1), (
        S((3, 2), (2, 2)),), ops=("slice_scatter",)),

    # ---- tensor_split and hsplit/vsplit/dsplit, the unsafe splits ------------------------------
    OpRow("tensor_split", lambda lib, x, cuts, dim, k: lib.tensor_split(x, cuts, dim)[k], (
        S((7, 2), constants={"cuts": 3, "dim": 0, "k": 0}, label="sections-first"),
        S((7, 2), constants={"cuts": 3, "dim": 0, "k": 2}, label="sections-last"),
        S((2, 6), constants={"cuts": [1, -2], "dim": -1, "k": 1}, label="indices"),
        S((2, 6), constants={"cuts": (4, 2, 9), "dim": 1, "k": 2}, label="descending"),
        S((5,), constants={"cuts": np.array([2, 3]), "dim": 0, "k": 2}, label="tensor"),
        S((5,), constants={"cuts": np.array(2), "dim": 0, "k": 1}, label="0d-tensor"),
        S((4, 3), constants={"cuts": 2, "dim": 1, "k": 0}, layouts=("t",), label="t"),
    ), ops=("tensor_split",)),
    OpRow("tensor_split_all", lambda lib, x: _weighted_cat(lib, x.tensor_split(3, 1), 1), (
        S((2, 5)),), ops=("tensor_split",)),
    OpRow("hsplit", lambda lib, x, cuts: _weighted_cat(lib, lib.hsplit(x, cuts),
                                                        min(x.ndim - 1, 1)),
          (S((2, 4), constants={"cuts": 2}, label="2d"),
           S((6,), constants={"cuts": [1, 4]}, label="1d")), ops=("hsplit",)),
    OpRow("vsplit", lambda lib, x: _weighted_cat(lib, x.vsplit([1]), 0), (S((3, 2)),),
          ops=("vsplit",)),
    OpRow("dsplit", lambda lib, x: _weighted_cat(lib, lib.dsplit(x, 2), 2), (S((1, 2, 4)),),
          ops=("dsplit",)),
    OpRow("unsafe_split", lambda lib, x: _weighted_cat(lib, lib.unsafe_split(x, 2, -1), -1), (
        S((2, 5)), T((5, 2))), ops=("unsafe_split",)),
    OpRow("unsafe_chunk", lambda lib, x: _weighted_cat(lib, x.unsafe_chunk(3), 0), (
        S((5, 2)), S((0, 2))), ops=("unsafe_chunk",)),
    OpRow("unsafe_split_with_sizes", lambda lib, x: _weighted_cat(
        lib, lib.unsafe_split_with_sizes(x, [2, 1]), 0), (S((3, 2)),),
        ops=("unsafe_split_with_sizes",)),

    # ---- broadcasting and grids -------------------------------------------------------------
    OpRow("broadcast_tensors", lambda lib, a, b: _weighted_sum(lib.broadcast_tensors(a, b)), (
        S((2, 1), (3,)), S((2, 3), (2, 3), label="same"), S((), (2,), label="0d")),
        ops=("broadcast_tensors",)),
    OpRow("broadcast_shapes", lambda lib, x: x.expand(lib.broadcast_shapes(x.shape, (2, 1, 1), 3)),
          (S((3, 1)),), ops=("broadcast_shapes",)),
    OpRow("meshgrid", lambda lib, a, b, indexing: _weighted_sum(
        lib.meshgrid(a, b, indexing=indexing)),
          (S((2,), (3,), constants={"indexing": "ij"}, label="ij"),
           S((2,), (), constants={"indexing": "xy"}, label="xy-0d")), ops=("meshgrid",)),
    OpRow("meshgrid_list", lambda lib, a, b, c: _weighted_sum(lib.meshgrid([a, b, c],
                                                                          indexing="xy")),
          (S((2,), (3,), (2,)),), ops=("meshgrid",)),
    OpRow("cartesian_prod", lambda lib, *vectors: lib.cartesian_prod(*vectors), (
        S((2,), (3,)), S((3,), label="one")), ops=("cartesian_prod",)),
    OpRow("combinations", lambda lib, x, r, with_replacement: lib.combinations(
        x, r, with_replacement), (
        S((4,), constants={"r": 2, "with_replacement": False}, label="pairs"),
        S((3,), constants={"r": 3, "with_replacement": True}, label="with-replacement"),
        S((2,), constants={"r": 3, "with_replacement": False}, label="none"),
    ), ops=("combinations",)),
    OpRow("block_diag", lambda lib, *blocks: lib.block_diag(*blocks), (
        S((2, 3), (1,), ()), S((2, 2),), S((0, 2), (2, 0), label="empty"),
        S((3, 2), (2,), layouts=("t", None), label="t")), ops=("block_diag",)),

    # ---- reordering, padding, cross -----------------------------------------------------------
    OpRow("rot90", lambda lib, x, k, dims: lib.rot90(x, k, dims), (
        S((2, 3), constants={"k": 1, "dims": (0, 1)}, label="once"),
        S((2, 3, 2), constants={"k": -3, "dims": [2, 0]}, label="back"),
        S((2, 3), constants={"k": 6, "dims": (1, -2)}, label="twice"),
        S((2, 3), constants={"k": 3, "dims": (0, 1)}, label="three"),
        S((3, 2), constants={"k": 0, "dims": (0, 1)}, layouts=("t",), label="t"),
    ), ops=("rot90",)),
    OpRow("rot90_method", lambda lib, x: x.rot90(), (S((2, 3)),), ops=("rot90",)),
    OpRow("diagflat", lambda lib, x, offset: lib.diagflat(x, offset), (
        S((), constants={"offset": 0}, label="0d"),
        S((3,), constants={"offset": 1}, label="above"),
        S((2, 2), constants={"offset": -2}, label="2d"),
        S((3, 2), constants={"offset": 0}, layouts=("t",), label="t"),
    ), ops=("diagflat",)),
    OpRow("constant_pad_nd", lambda lib, x, pad, value: lib.constant_pad_nd(x, pad, value), (
        S((2, 3), constants={"pad": [1, 2], "value": 0.5}, label="last"),
        S((3, 4), constants={"pad": (-1, 1, 0, -2), "value": 0}, label="crop"),
    ), ops=("constant_pad_nd",)),
    OpRow("cross", lambda lib, a, b, dim: lib.cross(a, b, dim=dim), (
        S((4, 3), (4, 3), constants={"dim": 1}, label="rows"),
        S((1, 3), (4, 3), constants={"dim": -1}, label="broadcast"),
        S((3, 2), (3, 2), constants={"dim": 0}, layouts=("t", None), label="t"),
    ), ops=("cross",)),
    OpRow("linalg_cross", lambda lib, a, b: lib.linalg.cross(a, b) * a.cross(b, dim=-1), (
        S((2, 3), (2, 3)),), ops=("cross",)),
)
