"""op_db rows of the shape and indexing family: joining, splitting, reordering, diagonals,
indexing and scatter ops (tapegrad/ops/shape.py, joining.py, reordering.py, indexing.py)."""
import numpy as np

from op_db import OpRow, S, STEP, T

# Index tensors and masks are drawn once, from a fixed seed, when this module loads.
_rng = np.random.default_rng(20240701)


def _index(*values, dtype=np.int64):
    return np.array(values, dtype=dtype)


def _random_index(high, shape):
    return _rng.integers(0, high, shape)


def _distinct_index(size, shape, dim):
    """An index of `shape` whose entries along dim are distinct values below size, so that a
    scatter writes each place at most once (torch leaves the winner of a clash undefined)."""
    full = list(shape)
    full[dim] = size
    order = _rng.random(full).argsort(axis=dim)
    return np.take(order, np.arange(shape[dim]), axis=dim)


def _mask(shape):
    mask = _rng.random(shape) < 0.5
    mask.flat[0], mask.flat[-1] = True, False  # never all True or all False
    return mask


def _weighted_cat(lib, pieces, dim):
    """All pieces in one output, each scaled differently, so that each piece's gradient shows."""
    return lib.cat([piece * (i + 1) for i, piece in enumerate(pieces)], dim)


def _weighted_stack(lib, slices, dim):
    return lib.stack([piece * (i + 1) for i, piece in enumerate(slices)], dim)


ROWS = (
    # ---- joining -------------------------------------------------------------------------
    OpRow("cat", lambda lib, a, b, dim: lib.cat([a, b], dim), (
        S((2, 3), (4, 3), constants={"dim": 0}, label="dim0"),
        S((2, 3), (2, 1), constants={"dim": 1}, label="dim1"),
        S((2, 3, 2), (2, 1, 2), constants={"dim": -2}, label="dim-2"),
        S((3,), (2,), constants={"dim": 0}, label="1d"),
        S((2, 0), (2, 3), constants={"dim": 1}, label="empty"),
        S((2, 3), (0,), constants={"dim": 1}, label="legacy-empty-skipped"),
        S((0,), (0,), constants={"dim": 0}, label="only-legacy-empty"),
        S((3, 2), (3, 2), constants={"dim": 1}, layouts=("t", None), label="t"),
        STEP((2, 3), (1, 3), constants={"dim": 0}),
        S((2, 3), (2, 3), constants={"dim": 0}, requires_grad=(False, True),
          label="second-only"),
    ), ops=("cat",)),
    OpRow("cat_three", lambda lib, a, b, c: lib.cat((a, b, c), dim=-1), (
        S((2, 1), (2, 3), (2, 2)),), ops=("cat",)),
    OpRow("cat_one", lambda lib, x: lib.cat([x]), (S((2, 3)),), ops=("cat",)),
    OpRow("cat_aliases", lambda lib, a, b: lib.concat([a, b], 1) * lib.concatenate((a, b),
                                                                              axis=1),
          (S((2, 3), (2, 2)),), ops=("concat", "concatenate")),
    OpRow("stack", lambda lib, a, b, dim: lib.stack([a, b], dim), (
        S((2, 3), (2, 3), constants={"dim": 0}, label="dim0"),
        S((2, 3), (2, 3), constants={"dim": 2}, label="dim2"),
        S((2, 3), (2, 3), constants={"dim": -2}, label="dim-2"),
        S((), (), constants={"dim": 0}, label="0d"),
        S((0, 3), (0, 3), constants={"dim": 1}, label="empty"),
        S((2, 3), (2, 3), constants={"dim": 1}, layouts=("t", None), label="t"),
        S((2, 3), (2, 3), constants={"dim": 0}, requires_grad=(True, False),
          label="first-only"),
    ), ops=("stack",)),
    OpRow("hstack", lambda lib, a, b: lib.hstack([a, b]), (
        S((2, 3), (2, 1), label="2d"), S((3,), (2,), label="1d"), S((), (), label="0d"),
        S((2, 3), (2, 3), layouts=("t", None), label="t")), ops=("hstack",)),
    OpRow("vstack", lambda lib, a, b: lib.vstack((a, b)) + lib.row_stack((a, b)), (
        S((2, 3), (1, 3), label="2d"), S((3,), (3,), label="1d"), S((), (), label="0d"),
        S((2, 3), (3,), label="mixed")), ops=("vstack", "row_stack")),
    OpRow("dstack", lambda lib, a, b: lib.dstack([a, b]), (
        S((2, 3), (2, 3), label="2d"), S((3,), (3,), label="1d"), S((), (), label="0d"),
        S((2, 3, 1), (2, 3), label="3d-and-2d")), ops=("dstack",)),
    OpRow("column_stack", lambda lib, a, b: lib.column_stack([a, b]), (
        S((3,), (3, 2), label="1d-2d"), S((), (), label="0d"), S((2,), (2,), label="1d"),
        S((3,), (3, 2), layouts=(None, "t"), label="t")), ops=("column_stack",)),
    OpRow("stack_three", lambda lib, a, b, c: lib.stack((a, b, c), -1), (S((2,), (2,), (2,)),),
          ops=("stack",)),

    # ---- splitting: each row returns one piece (its node is compared with torch), and the
    # _all rows join every piece (the Jacobian covers pieces that no gradient reaches) -------
    OpRow("split", lambda lib, x, size, dim, k: x.split(size, dim)[k], (
        S((5, 3), constants={"size": 2, "dim": 0, "k": -1}, label="last-smaller"),
        S((3, 5), constants={"size": 2, "dim": -1, "k": 1}, label="middle"),
        S((4,), constants={"size": 4, "dim": 0, "k": 0}, label="one-piece"),
        S((2, 3), constants={"size": 7, "dim": 1, "k": 0}, label="size-beyond"),
        S((0, 3), constants={"size": 0, "dim": 0, "k": 0}, label="empty"),
        S((4, 3), constants={"size": 2, "dim": 0, "k": 1}, layouts=("t",), label="t"),
        STEP((4, 3), constants={"size": 2, "dim": 1, "k": 0}),
    ), ops=("split",)),
    OpRow("split_all", lambda lib, x: _weighted_cat(lib, lib.split(x, 2, 1), 1),
          (S((2, 5)), T((2, 5))), ops=("split",)),
    OpRow("split_sizes", lambda lib, x, sizes, dim, k: lib.split(x, sizes, dim)[k], (
        S((2, 5), constants={"sizes": [2, 3], "dim": 1, "k": 1}, label="list"),
        S((5, 2), constants={"sizes": (1, 0, 4), "dim": -2, "k": 1}, label="empty-piece"),
        S((4,), constants={"sizes": [4], "dim": 0, "k": 0}, label="one-piece"),
        S((5, 2), constants={"sizes": [3, 2], "dim": 0, "k": 0}, layouts=("t",), label="t"),
    ), ops=("split",)),
    OpRow("split_with_sizes", lambda lib, x: _weighted_cat(
        lib, x.split_with_sizes([1, 0, 3], -1), -1), (S((2, 4)), STEP((2, 4))),
        ops=("split_with_sizes",)),
    OpRow("split_with_sizes_fn", lambda lib, x: lib.split_with_sizes(x, [2, 1])[0],
          (S((3, 2)),), ops=("split_with_sizes",)),
    OpRow("chunk", lambda lib, x, chunks, dim, k: x.chunk(chunks, dim)[k], (
        S((5, 2), constants={"chunks": 3, "dim": 0, "k": -1}, label="uneven"),
        S((2, 6), constants={"chunks": 3, "dim": -1, "k": 1}, label="even"),
        S((2, 5), constants={"chunks": 4, "dim": 1, "k": 2}, label="fewer-than-asked"),
        S((2, 0), constants={"chunks": 3, "dim": 1, "k": 2}, label="empty"),
        S((4, 2), constants={"chunks": 2, "dim": 0, "k": 1}, layouts=("t",), label="t"),
    ), ops=("chunk",)),
    OpRow("chunk_all", lambda lib, x: _weighted_cat(lib, lib.chunk(x, 3, 0), 0),
          (S((5, 2)), T((2, 4))), ops=("chunk",)),
    OpRow("unbind", lambda lib, x, dim, k: x.unbind(dim)[k], (
        S((3, 2), constants={"dim": 0, "k": 1}, label="dim0"),
        S((2, 3), constants={"dim": -1, "k": 2}, label="dim-1"),
        S((3,), constants={"dim": 0, "k": 0}, label="1d-to-0d"),
        S((2, 3), constants={"dim": 1, "k": 0}, layouts=("t",), label="t"),
    ), ops=("unbind",)),
    OpRow("unbind_all", lambda lib, x, dim: _weighted_stack(lib, lib.unbind(x, dim), dim), (
        S((3, 2), constants={"dim": 1}, label="dim1"),
        S((3,), constants={"dim": 0}, label="1d"),
        STEP((2, 3), constants={"dim": 0}),
    ), ops=("unbind",)),
    OpRow("narrow", lambda lib, x, dim, start, length: x.narrow(dim, start, length), (
        S((4, 3), constants={"dim": 0, "start": 1, "length": 2}, label="dim0"),
        S((2, 5), constants={"dim": -1, "start": -3, "length": 2}, label="negative"),
        S((2, 3), constants={"dim": 1, "start": 0, "length": 3}, label="whole"),
        S((2, 3), constants={"dim": 1, "start": 3, "length": 0}, label="empty"),
        S((3, 4), constants={"dim": 1, "start": 1, "length": 2}, layouts=("t",), label="t"),
    ), ops=("narrow",)),
    OpRow("narrow_fn", lambda lib, x: lib.narrow(x, 0, lib.tensor(1), 2), (S((4,)),),
          ops=("narrow",)),

    # ---- reshaping -----------------------------------------------------------------------
    OpRow("view_as", lambda lib, x, other: x.view_as(other), (
        S((2, 6), constants={"other": np.zeros((3, 4))}, label="3x4"),
        S((), constants={"other": np.zeros((1, 1))}, label="0d"),
        S((0, 3), constants={"other": np.zeros((3, 0))}, label="empty"),
    ), ops=("view_as",)),
    OpRow("reshape_as", lambda lib, x, other: x.reshape_as(other), (
        S((2, 6), constants={"other": np.zeros(12)}, label="view"),
        S((3, 4), constants={"other": np.zeros(12)}, layouts=("t",), label="t-copies"),
    ), ops=("reshape_as",)),
    OpRow("expand_as_shapes", lambda lib, x, other: x.expand_as(other), (
        S((3,), constants={"other": np.zeros((2, 3))}, label="new-dim"),
        S((), constants={"other": np.zeros((2, 2))}, label="0d"),
        S((1, 2), constants={"other": np.zeros((0, 2))}, label="to-empty"),
        S((2, 1), constants={"other": np.zeros((2, 3))}, layouts=("t",), label="t"),
    ), ops=("expand_as",)),
    OpRow("unflatten", lambda lib, x, dim, sizes: x.unflatten(dim, sizes), (
        S((2, 6), constants={"dim": 1, "sizes": (3, 2)}, label="dim1"),
        S((2, 6), constants={"dim": -1, "sizes": [2, -1]}, label="infer"),
        S((6,), constants={"dim": 0, "sizes": (6,)}, label="same"),
        S((0, 4), constants={"dim": 1, "sizes": (2, 2)}, label="empty"),
        S((4, 2), constants={"dim": 0, "sizes": (2, 2)}, layouts=("t",), label="t"),
    ), ops=("unflatten",)),
    OpRow("unflatten_fn", lambda lib, x: lib.unflatten(x, 0, (2, 3)), (S((6, 2)),),
          ops=("unflatten",)),
    OpRow("unsqueeze_in_place", lambda lib, x, dim: (x * 1).unsqueeze_(dim), (
        S((2, 3), constants={"dim": 0}, label="0"),
        S((2, 3), constants={"dim": -1}, label="-1"),
        S((), constants={"dim": 0}, label="0d"),
        S((2, 3), constants={"dim": 1}, layouts=("t",), label="t"),
    ), ops=("unsqueeze",)),
    OpRow("squeeze_in_place", lambda lib, x, dims: (x * 1).squeeze_(*dims), (
        S((1, 3, 1), constants={"dims": ()}, label="all"),
        S((1, 3, 1), constants={"dims": (-1,)}, label="dim"),
        S((1, 3, 1), constants={"dims": ((0, 1),)}, label="dims"),
        S((), constants={"dims": ()}, label="0d"),
    ), ops=("squeeze",)),
    OpRow("ravel", lambda lib, x: x.ravel(), (S((2, 3)), S(()), S((0, 2)), T((2, 3)),
                                              STEP((2, 2))), ops=("ravel",)),
    OpRow("ravel_fn", lambda lib, x: lib.ravel(x), (S((2, 3)),), ops=("ravel",)),
    OpRow("broadcast_to", lambda lib, x, size: lib.broadcast_to(x, size), (
        S((3,), constants={"size": (2, 3)}, label="new-dim"),
        S((2, 1), constants={"size": (-1, 4)}, label="minus-one"),
        S((), constants={"size": (2,)}, label="0d"),
    ), ops=("broadcast_to",)),
    OpRow("broadcast_to_method", lambda lib, x: x.broadcast_to((3, 2)), (T((1, 2)),),
          ops=("broadcast_to",)),
    OpRow("atleast", lambda lib, x, ndim: getattr(lib, f"atleast_{ndim}d")(x), (
        S((), constants={"ndim": 1}, label="1d-of-0d"),
        S((2, 3), constants={"ndim": 1}, label="1d-of-2d"),
        S((), constants={"ndim": 2}, label="2d-of-0d"),
        S((3,), constants={"ndim": 2}, label="2d-of-1d"),
        S((), constants={"ndim": 3}, label="3d-of-0d"),
        S((3,), constants={"ndim": 3}, label="3d-of-1d"),
        S((2, 3), constants={"ndim": 3}, label="3d-of-2d"),
        S((2, 1, 2), constants={"ndim": 3}, label="3d-of-3d"),
    ), ops=("atleast_1d", "atleast_2d", "atleast_3d")),
    OpRow("atleast_several", lambda lib, a, b: lib.atleast_2d(a, b)[0] * lib.atleast_3d([a, b])[1]
          + lib.atleast_1d((a, b))[1], (S((), (2,)),),
          ops=("atleast_1d", "atleast_2d", "atleast_3d")),
    OpRow("movedim", lambda lib, x, source, destination: x.movedim(source, destination), (
        S((2, 3, 4), constants={"source": 0, "destination": 2}, label="int"),
        S((2, 3, 4), constants={"source": (0, 1), "destination": (2, 0)}, label="tuple"),
        S((2, 3, 4), constants={"source": [-1], "destination": [0]}, label="negative"),
        S((2, 3), constants={"source": 0, "destination": 0}, label="same"),
        S((), constants={"source": 0, "destination": -1}, label="0d"),
        S((3, 2), constants={"source": 1, "destination": 0}, layouts=("t",), label="t"),
    ), ops=("movedim",)),
    OpRow("moveaxis", lambda lib, x: lib.moveaxis(x, -1, 0) + lib.movedim(x, 2, 0),
          (S((2, 3, 4)),), ops=("moveaxis", "movedim")),

    # ---- reordering copies ---------------------------------------------------------------
    OpRow("flip", lambda lib, x, dims: lib.flip(x, dims), (
        S((2, 3), constants={"dims": (0,)}, label="dim0"),
        S((2, 3, 2), constants={"dims": (0, -1)}, label="two"),
        S((2, 3), constants={"dims": ()}, label="none"),
        S((), constants={"dims": (0,)}, label="0d"),
        S((0, 3), constants={"dims": [1]}, label="empty"),
        S((3, 2), constants={"dims": (1,)}, layouts=("t",), label="t"),
    ), ops=("flip",)),
    OpRow("flip_method", lambda lib, x: x.flip(0, 1) * x.flip((1,)), (S((2, 3)),),
          ops=("flip",)),
    OpRow("fliplr_flipud", lambda lib, x: lib.fliplr(x) * x.flipud(), (
        S((2, 3)), S((2, 3, 2)), T((2, 3))), ops=("fliplr", "flipud")),
    OpRow("roll", lambda lib, x, shifts, dims: x.roll(shifts, dims), (
        S((2, 3), constants={"shifts": 2, "dims": None}, label="flat"),
        S((2, 3), constants={"shifts": -4, "dims": 1}, label="dim1"),
        S((2, 3, 2), constants={"shifts": (1, -2), "dims": (0, -1)}, label="two"),
        S((2, 3), constants={"shifts": (1, 1), "dims": (1, 1)}, label="same-dim-twice"),
        S((), constants={"shifts": 1, "dims": None}, label="0d"),
        S((0, 3), constants={"shifts": 1, "dims": 0}, label="empty"),
        S((3, 2), constants={"shifts": 1, "dims": 0}, layouts=("t",), label="t"),
    ), ops=("roll",)),
    OpRow("roll_fn", lambda lib, x: lib.roll(x, (1,)), (S((4,)),), ops=("roll",)),
    OpRow("repeat", lambda lib, x, repeats: x.repeat(*repeats), (
        S((2, 3), constants={"repeats": (2, 1)}, label="2x1"),
        S((2, 3), constants={"repeats": (2, 1, 3)}, label="new-dim"),
        S((2, 3), constants={"repeats": ((1, 2),)}, label="tuple"),
        S((2, 3), constants={"repeats": (0, 2)}, label="zero"),
        S((), constants={"repeats": (2, 3)}, label="0d"),
        S((), constants={"repeats": ((),)}, label="0d-no-repeats"),
        S((0, 2), constants={"repeats": (2, 2)}, label="empty"),
        S((3, 2), constants={"repeats": (2, 2)}, layouts=("t",), label="t"),
    ), ops=("repeat",)),
    OpRow("tile", lambda lib, x, dims: lib.tile(x, dims), (
        S((2, 3), constants={"dims": (2,)}, label="fewer-dims"),
        S((3,), constants={"dims": (2, 2)}, label="more-dims"),
    ), ops=("tile",)),
    OpRow("tile_method", lambda lib, x: x.tile(2, 1) + x.tile((2, 1)), (S((2, 3)),),
          ops=("tile",)),
    OpRow("repeat_interleave", lambda lib, x, repeats, dim: x.repeat_interleave(repeats, dim), (
        S((2, 3), constants={"repeats": 2, "dim": 1}, label="int-dim1"),
        S((2, 3), constants={"repeats": 2, "dim": None}, label="int-flat"),
        S((2, 3), constants={"repeats": 0, "dim": -1}, label="int-zero"),
        S((), constants={"repeats": 3, "dim": None}, label="int-0d"),
        S((3, 2), constants={"repeats": 2, "dim": 0}, layouts=("t",), label="int-t"),
        S((2, 3), constants={"repeats": _index(1, 0, 2), "dim": 1}, label="tensor"),
        S((2, 3), constants={"repeats": _index(2), "dim": 0}, label="tensor-one"),
        S((2, 3), constants={"repeats": np.array(2), "dim": -1}, label="tensor-0d"),
        S((2, 2), constants={"repeats": _index(1, 3, 0, 1), "dim": None}, label="tensor-flat"),
        S((2, 3), constants={"repeats": _index(1, 2, dtype=np.int32), "dim": 0},
          label="tensor-int32"),
    ), ops=("repeat_interleave",)),
    OpRow("repeat_interleave_fn", lambda lib, x: lib.repeat_interleave(x, 2, 0, output_size=4),
          (S((2, 3)),), ops=("repeat_interleave",)),
    OpRow("tril", lambda lib, x, diagonal: x.tril(diagonal), (
        S((3, 4), constants={"diagonal": 0}, label="main"),
        S((3, 4), constants={"diagonal": 1}, label="above"),
        S((2, 3, 3), constants={"diagonal": -1}, label="batch-below"),
        S((0, 3), constants={"diagonal": 0}, label="empty"),
        S((3, 4), constants={"diagonal": 0}, layouts=("t",), label="t"),
    ), ops=("tril",)),
    OpRow("triu", lambda lib, x, diagonal: lib.triu(x, diagonal), (
        S((3, 4), constants={"diagonal": 0}, label="main"),
        S((4, 3), constants={"diagonal": -2}, label="below"),
        S((2, 2, 3), constants={"diagonal": 5}, label="batch-beyond"),
        STEP((3, 3), constants={"diagonal": 1}),
    ), ops=("triu",)),

    # ---- diagonals -----------------------------------------------------------------------
    OpRow("diag", lambda lib, x, diagonal: lib.diag(x, diagonal), (
        S((3,), constants={"diagonal": 0}, label="1d"),
        S((3,), constants={"diagonal": 1}, label="1d-above"),
        S((2,), constants={"diagonal": -2}, label="1d-below"),
        S((0,), constants={"diagonal": 0}, label="1d-empty"),
        S((3, 4), constants={"diagonal": 0}, label="2d"),
        S((3, 4), constants={"diagonal": 2}, label="2d-above"),
        S((3, 4), constants={"diagonal": -1}, label="2d-below"),
        S((3, 4), constants={"diagonal": 6}, label="2d-beyond"),
        S((3, 4), constants={"diagonal": 1}, layouts=("t",), label="2d-t"),
        STEP((3,), constants={"diagonal": 0}),
    ), ops=("diag",)),
    OpRow("diag_method", lambda lib, x: x.diag(), (S((2, 2)),), ops=("diag",)),
    OpRow("diagonal", lambda lib, x, options: x.diagonal(**options), (
        S((3, 4), constants={"options": {}}, label="main"),
        S((3, 4), constants={"options": {"offset": 1}}, label="above"),
        S((3, 4), constants={"options": {"offset": -2}}, label="below"),
        S((2, 3, 4), constants={"options": {"dim1": 1, "dim2": 2}}, label="batch"),
        S((2, 3, 4), constants={"options": {"offset": 1, "dim1": -1, "dim2": 0}},
          label="reversed-dims"),
        S((2, 3), constants={"options": {"offset": 5}}, label="beyond"),
        S((0, 3), constants={"options": {}}, label="empty"),
        S((3, 4), constants={"options": {"offset": -1}}, layouts=("t",), label="t"),
    ), ops=("diagonal",)),
    OpRow("diagonal_fn", lambda lib, x: lib.diagonal(x, 0, 0, 1), (S((3, 3)),),
          ops=("diagonal",)),
    OpRow("diag_embed", lambda lib, x, options: x.diag_embed(**options), (
        S((2, 3), constants={"options": {}}, label="default"),
        S((2, 3), constants={"options": {"offset": 1}}, label="above"),
        S((3,), constants={"options": {"offset": -2}}, label="1d-below"),
        S((2, 3), constants={"options": {"offset": -1, "dim1": 2, "dim2": 0}},
          label="reversed-dims"),
        S((0, 2), constants={"options": {}}, label="empty"),
        S((3, 2), constants={"options": {"dim1": 0}}, layouts=("t",), label="t"),
    ), ops=("diag_embed",)),
    OpRow("diag_embed_fn", lambda lib, x: lib.diag_embed(x, 0, 0, 1), (S((2,)),),
          ops=("diag_embed",)),
    OpRow("diagonal_scatter", lambda lib, x, src, options: lib.diagonal_scatter(x, src,
                                                                                **options), (
        S((3, 3), (3,), constants={"options": {}}, label="main"),
        S((3, 4), (2,), constants={"options": {"offset": 2}}, label="above"),
        S((2, 3, 2), (3, 2), constants={"options": {"dim1": 0, "dim2": -1}}, label="batch"),
        S((3, 3), (3,), constants={"options": {}}, layouts=("t", None), label="t"),
        S((3, 3), (3,), constants={"options": {}}, requires_grad=(False, True),
          label="src-only"),
    ), ops=("diagonal_scatter",)),
    OpRow("diagonal_scatter_method", lambda lib, x, src: x.diagonal_scatter(src, -1),
          (S((3, 3), (2,)),), ops=("diagonal_scatter",)),

    # ---- indexing ------------------------------------------------------------------------
    OpRow("select", lambda lib, x, dim, index: x.select(dim, index), (
        S((3, 4), constants={"dim": 0, "index": 1}, label="dim0"),
        S((3, 4), constants={"dim": -1, "index": -1}, label="negative"),
        S((3,), constants={"dim": 0, "index": 2}, label="1d-to-0d"),
        S((0, 3), constants={"dim": 1, "index": 0}, label="empty"),
        S((3, 4), constants={"dim": 1, "index": 2}, layouts=("t",), label="t"),
    ), ops=("select",)),
    OpRow("select_fn", lambda lib, x: lib.select(x, 1, lib.tensor(0)), (S((2, 3)),),
          ops=("select",)),
    OpRow("index_select", lambda lib, x, dim, index: x.index_select(dim, index), (
        S((4, 3), constants={"dim": 0, "index": _index(3, 0, 3)}, label="repeats"),
        S((2, 4), constants={"dim": -1, "index": _random_index(4, (5,))}, label="dim-1"),
        S((2, 3, 2), constants={"dim": 1, "index": np.array(2)}, label="0d-index"),
        S((), constants={"dim": 0, "index": _index(0)}, label="0d"),
        S((3, 2), constants={"dim": 0, "index": _index()}, label="empty-index"),
        S((2, 3), constants={"dim": 1, "index": _index(2, 1, dtype=np.int32)}, label="int32"),
        S((3, 4), constants={"dim": 1, "index": _index(1, 1, 0)}, layouts=("t",), label="t"),
    ), ops=("index_select",)),
    OpRow("index_select_fn", lambda lib, x, index: lib.index_select(x, 0, index), (
        S((3, 2), constants={"index": _index(2, 0)}),), ops=("index_select",)),
    OpRow("masked_fill", lambda lib, x, mask, value: x.masked_fill(mask, value), (
        S((3, 4), constants={"mask": _mask((3, 4)), "value": -1.5}, label="full"),
        S((3, 4), constants={"mask": _mask((4,)), "value": 2}, label="mask-broadcast"),
        S((4,), constants={"mask": _mask((3, 4)), "value": 0.5}, label="input-broadcast"),
        S((), constants={"mask": np.array(True), "value": 3.0}, label="0d"),
        S((0, 3), constants={"mask": np.zeros((0, 3), bool), "value": 1.0}, label="empty"),
        S((3, 4), constants={"mask": _mask((3, 4)), "value": True}, layouts=("t",),
          label="t-bool-value"),
    ), ops=("masked_fill",)),
    OpRow("masked_fill_tensor", lambda lib, x, value, mask: lib.masked_fill(x, mask, value), (
        S((3, 4), (), constants={"mask": _mask((3, 4))}, label="full"),
        S((4,), (), constants={"mask": _mask((2, 4))}, label="input-broadcast"),
        S((), (), constants={"mask": np.array(False)}, label="0d"),
        S((3, 4), (), constants={"mask": _mask((3, 4))}, requires_grad=(False, True),
          label="value-only"),
        S((3, 4), (), constants={"mask": _mask((3, 4))}, requires_grad=(True, False),
          label="input-only"),
    ), ops=("masked_fill",)),
    OpRow("masked_select", lambda lib, x, mask: x.masked_select(mask), (
        S((3, 4), constants={"mask": _mask((3, 4))}, label="full"),
        S((3, 4), constants={"mask": _mask((4,))}, label="mask-broadcast"),
        S((4,), constants={"mask": _mask((2, 4))}, label="input-broadcast"),
        S((), constants={"mask": np.array(True)}, label="0d"),
        S((3, 2), constants={"mask": np.zeros((3, 2), bool)}, label="nothing"),
        S((4, 3), constants={"mask": _mask((4, 3))}, layouts=("t",), label="t"),
    ), ops=("masked_select",)),
    OpRow("masked_select_fn", lambda lib, x, mask: lib.masked_select(x, mask), (
        S((2, 3), constants={"mask": _mask((2, 3))}),), ops=("masked_select",)),
    OpRow("take", lambda lib, x, index: x.take(index), (
        S((3, 4), constants={"index": _index(0, 11, 5, 5)}, label="repeats"),
        S((3, 4), constants={"index": _index(-1, -12)}, label="negative"),
        S((2, 3), constants={"index": _random_index(6, (2, 2))}, label="2d-index"),
        S((2, 3), constants={"index": np.array(4)}, label="0d-index"),
        S((), constants={"index": _index(0, 0)}, label="0d"),
        S((2, 3), constants={"index": _index()}, label="empty-index"),
        S((3, 4), constants={"index": _index(1, 4, 7)}, layouts=("t",), label="t"),
    ), ops=("take",)),
    OpRow("take_fn", lambda lib, x: lib.take(x, lib.tensor([2, 0])), (S((3,)),), ops=("take",)),

    # ---- scatter -------------------------------------------------------------------------
    OpRow("scatter", lambda lib, x, src, dim, index: x.scatter(dim, index, src), (
        S((3, 4), (3, 2), constants={"dim": 1, "index": _distinct_index(4, (3, 2), 1)},
          label="dim1"),
        S((3, 4), (2, 4), constants={"dim": 0, "index": _distinct_index(3, (2, 4), 0)},
          label="dim0"),
        S((2, 3, 2), (2, 2, 2), constants={"dim": -2,
                                           "index": _distinct_index(3, (2, 2, 2), 1)},
          label="3d-dim-2"),
        S((), (), constants={"dim": 0, "index": np.array(0)}, label="0d"),
        S((3, 4), (3, 0), constants={"dim": 1, "index": np.zeros((3, 0), np.int64)},
          label="empty-index"),
        S((4, 3), (3, 3), constants={"dim": 0, "index": _distinct_index(4, (3, 3), 0)},
          layouts=("t", "t"), label="t"),
        S((3, 4), (3, 2), constants={"dim": 1, "index": _distinct_index(4, (3, 2), 1)},
          requires_grad=(False, True), label="src-only"),
    ), ops=("scatter",)),
    OpRow("scatter_value", lambda lib, x, dim, index, value: lib.scatter(x, dim, index, value), (
        S((3, 4), constants={"dim": 1, "index": _random_index(4, (3, 2)), "value": 2.5},
          label="dim1"),
        S((3, 4), constants={"dim": -2, "index": _random_index(3, (1, 4)), "value": -1},
          label="dim-2"),
        S((), constants={"dim": 0, "index": np.array(0), "value": 1.5}, label="0d"),
        S((4, 3), constants={"dim": 0, "index": _random_index(4, (2, 3)), "value": 0.5},
          layouts=("t",), label="t"),
    ), ops=("scatter",)),
    OpRow("scatter_value_keyword", lambda lib, x, index: x.scatter(1, index, value=-2.0), (
        S((2, 3), constants={"index": _random_index(3, (2, 2))}),), ops=("scatter",)),
    OpRow("scatter_add", lambda lib, x, src, dim, index: x.scatter_add(dim, index, src), (
        S((3, 4), (3, 5), constants={"dim": 1, "index": _random_index(4, (3, 5))},
          label="repeated-indices"),
        S((3, 4), (5, 2), constants={"dim": 0, "index": _random_index(3, (5, 2))},
          label="dim0"),
        S((), (), constants={"dim": 0, "index": np.array(0)}, label="0d"),
        S((3, 4), (3, 0), constants={"dim": 1, "index": np.zeros((3, 0), np.int64)},
          label="empty-index"),
        S((4, 3), (2, 3), constants={"dim": -2, "index": _random_index(4, (2, 3))},
          layouts=("t", None), label="t"),
        S((3, 4), (3, 2), constants={"dim": 1, "index": _random_index(4, (3, 2))},
          requires_grad=(True, False), label="input-only"),
    ), ops=("scatter_add",)),
    OpRow("scatter_add_fn", lambda lib, x, src, index: lib.scatter_add(x, 0, index, src), (
        S((2, 3), (2, 3), constants={"index": _random_index(2, (2, 3))}),),
          ops=("scatter_add",)),
    OpRow("gather_scatter_roundtrip", lambda lib, x, index: x.gather(1, index).scatter_add(
        1, index, x.gather(1, index)), (S((3, 4), constants={"index": _random_index(4, (3, 4))}),),
          ops=("gather", "scatter_add")),
)
