"""op_db rows of the writing-at-indices family (tapegrad/ops/scatter.py): index_add/copy/fill,
index_reduce and scatter_reduce, index_put, put and masked_scatter; and of take_along_dim and
the nonzero family (tapegrad/ops/indexing.py)."""
import numpy as np

from op_db import DISTINCT, OpRow, S, Sample, T

# Index tensors and masks are drawn once, from a fixed seed, when this module loads.
_rng = np.random.default_rng(20261201)


def _index(*values, dtype=np.int64):
    return np.array(values, dtype=dtype)


def _mask(shape):
    mask = _rng.random(shape) < 0.5
    mask.flat[0], mask.flat[-1] = True, False  # never all True or all False
    return mask


def _along(reduce, include_self):
    """Samples for index_reduce: repeated indices along dim 0 and dim -1, a 0-d input."""
    constants = {"reduce": reduce, "include_self": include_self}
    return (
        S((4, 3), (5, 3), constants={**constants, "dim": 0, "index": _index(0, 2, 2, 3, 0)},
          label="dim0-repeats"),
        S((2, 4), (2, 3), constants={**constants, "dim": -1, "index": _index(3, 1, 3)},
          label="dim-1"),
        S((), (), constants={**constants, "dim": 0, "index": _index(0)}, label="0d"),
        S((4, 3), (5, 3), constants={**constants, "dim": 0, "index": _index(1, 1, 0, 3, 1)},
          layouts=("t", None), label="t"),
    )


def _scattered(reduce, include_self):
    """Samples for scatter_reduce: repeated places, a 0-d input (torch's backward refuses a
    src larger than index)."""
    constants = {"reduce": reduce, "include_self": include_self}
    return (
        S((3, 4), (2, 4), constants={**constants, "dim": 0,
                                     "index": _rng.integers(0, 3, (2, 4))}, label="dim0"),
        S((3, 4), (3, 2), constants={**constants, "dim": 1, "index": _index([0, 0], [3, 1],
                                                                            [2, 2])},
          label="dim1-repeats"),
        S((), (), constants={**constants, "dim": 0, "index": np.array(0)}, label="0d"),
        S((4, 3), (2, 3), constants={**constants, "dim": -1, "index": _index([0, 2, 0], [1, 1, 1])},
          layouts=("t", None), label="t"),
    )


def _index_reduce_row(reduce, include_self, domain, smooth):
    return OpRow(f"index_reduce_{reduce}_{'with' if include_self else 'without'}_self",
                 lambda lib, x, source, dim, index, reduce, include_self: x.index_reduce(
                     dim, index, source, reduce, include_self=include_self),
                 _along(reduce, include_self), domain=domain, smooth=smooth,
                 ops=("index_reduce",))


def _scatter_reduce_row(reduce, include_self, domain, smooth):
    return OpRow(f"scatter_reduce_{reduce}_{'with' if include_self else 'without'}_self",
                 lambda lib, x, src, dim, index, reduce, include_self: lib.scatter_reduce(
                     x, dim, index, src, reduce, include_self=include_self),
                 _scattered(reduce, include_self), domain=domain, smooth=smooth,
                 ops=("scatter_reduce",))


# A zero in the source or the input: prod's gradient is the product of the others. Two zeros
# into one place: the source's gradient refuses a second derivative, as torch's (at_kink: only
# compared with torch, not differentiated twice).
_ZEROS = (np.array([[0.0, 1.5], [2.0, -0.5]]), np.array([[0.0, 0.7], [1.2, 0.0], [0.0, 1.1]]))


def _prod_at_zeros(index):
    def sample(rows, **options):
        return Sample(values=_ZEROS, constants={"index": index(*rows)}, **options)
    return (sample((0, 1, 1), label="one-zero"), sample((1, 1, 0), label="zero-per-place"),
            sample((0, 1, 0), at_kink=True, label="two-zeros"))


def _rows_index(*rows):
    return np.repeat(_index(*rows)[:, None], 2, axis=1)


_TIES = (np.array([[1.0, 2.0], [3.0, 3.0]]), np.array([[1.0, 2.5], [3.0, 3.0], [1.0, 0.5]]))

_MINMAX = [(reduce, include_self) for reduce in ("amax", "amin") for include_self in (True, False)]
_SMOOTH = [(reduce, include_self) for reduce in ("prod", "mean") for include_self in (True, False)]

ROWS = (
    # ---- index_add, index_copy, index_fill ---------------------------------------------------
    OpRow("index_add", lambda lib, x, source, dim, index: x.index_add(dim, index, source), (
        S((4, 3), (5, 3), constants={"dim": 0, "index": _index(0, 2, 2, 3, 0)}, label="repeats"),
        S((3, 4), (3, 2), constants={"dim": -1, "index": _index(3, 1)}, label="dim-1"),
        S((), (), constants={"dim": 0, "index": _index(0)}, label="0d"),
        S((4, 3), (0, 3), constants={"dim": 0, "index": _index()}, label="empty"),
        S((3, 4), (2, 4), constants={"dim": 0, "index": _index(2, 0, dtype=np.int32)},
          label="int32"),
        S((3, 4), (3, 2), constants={"dim": 1, "index": _index(0, 0)}, layouts=("t", None),
          label="t"),
    ), ops=("index_add",)),
    OpRow("index_add_alpha", lambda lib, x, source, index: lib.index_add(
        x, 0, index, source, alpha=-2.5), (S((3, 2), (2, 2), constants={"index": _index(1, 1)}),),
        ops=("index_add",)),
    OpRow("index_copy", lambda lib, x, source, dim, index: x.index_copy(dim, index, source), (
        S((4, 3), (2, 3), constants={"dim": 0, "index": _index(3, 1)}, label="dim0"),
        S((3, 4), (3, 3), constants={"dim": -1, "index": _index(2, 0, 1)}, label="dim-1"),
        S((), (), constants={"dim": 0, "index": _index(0)}, label="0d"),
        S((3, 4), (3, 2), constants={"dim": 1, "index": _index(1, 3)}, layouts=("t", None),
          label="t"),
    ), ops=("index_copy",)),
    OpRow("index_copy_fn", lambda lib, x, source: lib.index_copy(x, 0, lib.tensor([1]), source),
          (S((2, 3), (1, 3)),), ops=("index_copy",)),
    OpRow("index_fill", lambda lib, x, dim, index, value: x.index_fill(dim, index, value), (
        S((4, 3), constants={"dim": 0, "index": _index(3, 1, 3), "value": -1.5},
          label="repeats"),
        S((3, 4), constants={"dim": -1, "index": _index(-1, 0), "value": 2}, label="negative"),
        S((), constants={"dim": 0, "index": _index(0), "value": 0.5}, label="0d"),
        S((3, 4), constants={"dim": 0, "index": np.array(2), "value": 1.0}, label="0d-index"),
        S((3, 4), constants={"dim": 1, "index": _index(2), "value": 1.0}, layouts=("t",),
          label="t"),
    ), ops=("index_fill",)),
    OpRow("index_fill_tensor", lambda lib, x, value, index: lib.index_fill(x, 1, index, value), (
        S((3, 4), (), constants={"index": _index(0, 2, 2)}, label="repeats"),
        S((3, 4), (), constants={"index": _index(1)}, requires_grad=(False, True),
          label="value-only"),
    ), ops=("index_fill",)),

    # ---- index_reduce and scatter_reduce ------------------------------------------------------
    *(_index_reduce_row(reduce, include_self, DISTINCT, False) for reduce, include_self in _MINMAX),
    *(_index_reduce_row(reduce, include_self, DISTINCT, True) for reduce, include_self in _SMOOTH),
    *(_scatter_reduce_row(reduce, include_self, DISTINCT, False)
      for reduce, include_self in _MINMAX),
    *(_scatter_reduce_row(reduce, include_self, DISTINCT, True)
      for reduce, include_self in _SMOOTH + [("sum", True), ("sum", False)]),
    OpRow("index_reduce_prod_at_zeros", lambda lib, x, source, index: lib.index_reduce(
        x, 0, index, source, "prod"), _prod_at_zeros(_index), ops=("index_reduce",)),
    OpRow("scatter_reduce_prod_at_zeros", lambda lib, x, src, index: x.scatter_reduce(
        0, index, src, "prod", include_self=False), _prod_at_zeros(_rows_index),
        ops=("scatter_reduce",)),
    OpRow("index_reduce_ties", lambda lib, x, source, index, reduce: x.index_reduce(
        0, index, source, reduce), (
            Sample(values=_TIES, constants={"index": _index(0, 1, 1), "reduce": "amax"},
                   at_kink=True, label="amax"),
            Sample(values=_TIES, constants={"index": _index(1, 1, 0), "reduce": "amin"},
                   at_kink=True, label="amin"),
            S((2, 2), (3, 2), constants={"index": _index(0, 1, 1), "reduce": "amax"},
              label="no-ties")),
        domain=DISTINCT, smooth=False, ops=("index_reduce",)),
    OpRow("scatter_reduce_ties", lambda lib, x, src, index: x.scatter_reduce(
        0, index, src, "amax"), (
            Sample(values=_TIES, constants={"index": _index([0, 1], [1, 1], [1, 0])},
                   at_kink=True, label="amax"),
            S((2, 2), (3, 2), constants={"index": _index([0, 1], [1, 1], [1, 0])},
              label="no-ties")),
        domain=DISTINCT, smooth=False, ops=("scatter_reduce",)),

    # ---- index_put, put, masked_scatter -------------------------------------------------------
    OpRow("index_put", lambda lib, x, values, indices, accumulate: lib.index_put(
        x, indices, values, accumulate), (
            S((4, 3), (3, 3), constants={"indices": (_index(0, 2, 3),), "accumulate": False},
              label="rows"),
            S((4, 3), (3,), constants={"indices": (_index(0, 2, 0), _index(1, 1, 1)),
                                       "accumulate": True}, label="accumulate"),
            S((4, 3), (), constants={"indices": (_mask((4, 3)),), "accumulate": False},
              label="mask"),
            S((4, 3), (1, 3), constants={"indices": (_index(1, 1),), "accumulate": True},
              label="broadcast-accumulate"),
            S((4, 3), (2,), constants={"indices": (_index(3, 0), _index(2, 1)),
                                       "accumulate": False}, layouts=("t", None), label="t"),
        ), ops=("index_put",)),
    OpRow("index_put_method", lambda lib, x, values, indices: x.index_put(indices, values), (
        S((3, 4), (4,), constants={"indices": (_index(2),)}),), ops=("index_put",)),
    OpRow("put", lambda lib, x, source, index, accumulate: x.put(index, source, accumulate), (
        S((3, 4), (4,), constants={"index": _index(0, 11, 5, 5), "accumulate": True},
          label="accumulate-repeats"),
        S((3, 4), (2, 2), constants={"index": _index(-1, 3, -12, 7), "accumulate": False},
          label="negative"),
        S((), (), constants={"index": np.array(0), "accumulate": False}, label="0d"),
        S((2, 3), (0,), constants={"index": _index(), "accumulate": True}, label="empty"),
        S((3, 4), (3,), constants={"index": _index(1, 4, 7), "accumulate": False},
          layouts=("t", None), label="t"),
    ), ops=("put",)),
    OpRow("put_fn", lambda lib, x, source: lib.put(x, lib.tensor([2, 0]), source),
          (S((3,), (2,)),), ops=("put",)),
    OpRow("masked_scatter", lambda lib, x, source, mask: x.masked_scatter(mask, source), (
        S((3, 4), (12,), constants={"mask": _mask((3, 4))}, label="full"),
        S((3, 4), (3, 5), constants={"mask": _mask((4,))}, label="mask-broadcast"),
        S((4,), (4, 4), constants={"mask": _mask((3, 4))}, label="input-broadcast"),
        S((), (2,), constants={"mask": np.array(True)}, label="0d"),
        S((3, 2), (3,), constants={"mask": np.zeros((3, 2), bool)}, label="nothing"),
        S((4, 3), (12,), constants={"mask": _mask((4, 3))}, layouts=("t", None), label="t"),
    ), ops=("masked_scatter",)),
    OpRow("masked_scatter_fn", lambda lib, x, source, mask: lib.masked_scatter(x, mask, source),
          (S((2, 3), (6,), constants={"mask": _mask((2, 3))}),), ops=("masked_scatter",)),

    # ---- take_along_dim and the nonzero family (with a float output to differentiate) ---------
    OpRow("take_along_dim", lambda lib, x, indices, dim=None: lib.take_along_dim(x, indices, dim), (
        S((3, 4), constants={"indices": _rng.integers(0, 3, (2, 4)), "dim": 0}, label="dim0"),
        S((3, 4), constants={"indices": _rng.integers(0, 4, (3, 1)), "dim": -1},
          label="broadcast-indices"),
        S((1, 4), constants={"indices": _rng.integers(0, 4, (3, 2)), "dim": 1},
          label="broadcast-input"),
        S((3, 4), constants={"indices": _index(11, 0, 5, 5)}, label="flat"),
        S((3, 4), constants={"indices": _index([-1], [5]), "dim": 0}, label="wraps"),
        T((4, 3), constants={"indices": _index([2], [0]), "dim": 0}),
    ), ops=("take_along_dim",)),
    OpRow("take_along_dim_method", lambda lib, x, indices: x.take_along_dim(indices, 1), (
        S((2, 3), constants={"indices": _index([2], [1])}),), ops=("take_along_dim",)),
    OpRow("nonzero", lambda lib, x: (x.sum(), lib.nonzero(x > 0), *x.nonzero(as_tuple=True),
                                     lib.argwhere(x < 0), x.argwhere()), (
        S((3, 4)), S(()), S((2, 0, 3)), S((5,))), ops=("nonzero", "argwhere")),
    OpRow("nonzero_static", lambda lib, x, size: (
        x.sum(), lib.nonzero_static(x > 0, size=size), x.nonzero_static(size=size, fill_value=7)), (
        S((3, 4), constants={"size": 3}, label="cut"),
        S((2, 3), constants={"size": 10}, label="padded"),
        S((), constants={"size": 2}, label="0d"),
        S((2, 2), constants={"size": 0}, label="none")), ops=("nonzero_static",)),
)
