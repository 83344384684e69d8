"""Hypothesis strategies for the differential fuzz against torch (issue 11, part 6).

Shapes (0-d, size-0 and size-1 dims), broadcast-compatible and incompatible shape tuples,
dims (negative and out of range), dtypes, memory layouts and value plans (ordinary numbers
with edge values mixed in). `build` turns drawn values and a layout into the same tensor on
either library: the same values at the same strides, a leaf and the view the op sees.
"""
import math

import numpy as np
from hypothesis import strategies as st

FLOAT_DTYPES = ("float64", "float32")
OTHER_DTYPES = ("int64", "int32", "bool")

# Side lengths: mostly ordinary, sometimes 1 (broadcasts) or 0 (empty tensors).
_SIDES = (2, 3, 4, 1, 2, 3, 1, 0)


def shapes(min_dims=0, max_dims=3):
    return st.lists(st.sampled_from(_SIDES), min_size=min_dims, max_size=max_dims).map(tuple)


@st.composite
def broadcast_shapes(draw, count, compatible=True):
    """`count` shapes that broadcast together (each drops leading dims or has 1s where the
    full shape does not); with compatible=False one side is changed so that they cannot."""
    full = draw(shapes())
    result = []
    for _ in range(count):
        kept = full[draw(st.integers(0, len(full))):]
        result.append(tuple(1 if draw(st.integers(0, 3)) == 0 else side for side in kept))
    if compatible or count < 2:
        return result
    # a dim where another input has a side > 1: a different side > 1 there cannot broadcast
    clashing = [(i, d, other) for i, shape in enumerate(result) for d in range(len(shape))
                for other in _aligned_sides(result, i, d) if other > 1]
    if not clashing:
        return [(2,), (3,)] + result[2:]
    i, d, other = draw(st.sampled_from(clashing))
    side = 2 if other != 2 else 3
    result[i] = result[i][:d] + (side,) + result[i][d + 1:]
    return result


def _aligned_sides(shapes, i, d):
    """The sides of the other shapes at shape i's dim d, dims aligned from the right."""
    from_right = len(shapes[i]) - d
    return [shape[-from_right] for j, shape in enumerate(shapes)
            if j != i and len(shape) >= from_right]


def dims(ndim):
    """A dim for a tensor of `ndim` dims: mostly valid (negative too), sometimes out of
    range on either side."""
    extent = max(ndim, 1)
    valid = st.integers(-extent, extent - 1)
    return st.one_of(valid, valid, valid, st.sampled_from((extent, -extent - 1)))


# ---- memory layouts --------------------------------------------------------------------------

@st.composite
def layouts(draw, shape, expanded=True):
    """How the op's input is laid out in memory: ("contiguous",), ("permuted", perm) (a
    transposed copy viewed back), ("step", dim) (every other element of a twice larger
    leaf), ("expanded", dim) (a size-1 leaf dim expanded), ("offset", k) (a view that starts
    k elements into its storage)."""
    ndim = len(shape)
    kinds = ["contiguous", "contiguous", "offset"]
    if ndim >= 1:
        kinds.append("step")
    if ndim >= 2:
        kinds.append("permuted")
    if expanded and any(side > 1 for side in shape):
        kinds.append("expanded")
    kind = draw(st.sampled_from(kinds))
    if kind == "permuted":
        perm = draw(st.permutations(range(ndim)))
        if list(perm) == list(range(ndim)):
            perm = list(range(ndim))[::-1]
        return (kind, tuple(perm))
    if kind == "step":
        return (kind, draw(st.integers(0, ndim - 1)))
    if kind == "expanded":
        return (kind, draw(st.sampled_from([d for d, side in enumerate(shape) if side > 1])))
    if kind == "offset":
        return (kind, draw(st.integers(1, 3)))
    return (kind,)


def layout_values(values, layout):
    """The values the op will see under this layout (an expanded dim repeats its first row)."""
    if layout[0] == "expanded":
        first = np.take(values, [0], axis=layout[1])
        return np.broadcast_to(first, values.shape).copy()
    return values


def build(lib, values, dtype, layout, requires_grad):
    """(leaf, input): a lib leaf holding `values` (NumPy, already of the final dtype) in the
    layout's storage, and the view of it with values' shape that the op gets."""
    kind = layout[0]
    make = lambda array: lib.tensor(array, dtype=getattr(lib, dtype),  # noqa: E731
                                    requires_grad=requires_grad)
    if kind == "permuted":
        perm = layout[1]
        leaf = make(np.ascontiguousarray(np.transpose(values, perm)))
        return leaf, leaf.permute(*np.argsort(perm).tolist())
    if kind == "step":
        dim = layout[1]
        wide = np.repeat(values, 2, axis=dim)
        index = [slice(None)] * values.ndim
        index[dim] = slice(1, None, 2)
        wide[tuple(index)] = _filler(values)
        leaf = make(wide)
        index[dim] = slice(None, None, 2)
        return leaf, leaf[tuple(index)]
    if kind == "expanded":
        leaf = make(np.take(values, [0], axis=layout[1]))
        return leaf, leaf.expand(*values.shape)
    if kind == "offset":
        flat = np.concatenate([np.full(layout[1], _filler(values)), values.ravel()])
        leaf = make(flat)
        return leaf, leaf[layout[1]:].view(values.shape)
    leaf = make(values)
    return leaf, leaf


def _filler(values):
    """What sits in storage between the elements the op sees: a value no op should read."""
    return 7 if values.dtype.kind in "iub" else 77.5


# ---- values ----------------------------------------------------------------------------------

HUGE = {"float64": 1e300, "float32": 3e38}
TINY = {"float64": 5e-324, "float32": 1e-45}


def edge_values(dtype):
    """0, -0, +-inf, NaN, +-huge, the smallest subnormal (floats); 0, +-1 and the extremes
    of the range (integers)."""
    if dtype in FLOAT_DTYPES:
        return [0.0, -0.0, math.inf, -math.inf, math.nan, HUGE[dtype], -HUGE[dtype],
                TINY[dtype], -TINY[dtype]]
    if dtype == "bool":
        return [False, True]
    info = np.iinfo(dtype)
    return [0, 1, -1, int(info.max), int(info.min)]


# A plan, drawn by hypothesis, from which the values are made with NumPy (drawing every
# element through hypothesis would be slow): a seed, the share of elements replaced by edge
# values, which edge values, and whether to make ties (repeat one value).
value_plans = st.fixed_dictionaries({
    "seed": st.integers(0, 2 ** 32 - 1),
    "edge_share": st.sampled_from((0.0, 0.0, 0.0, 0.25, 0.5, 1.0)),
    "edges": st.sets(st.integers(0, 8), min_size=1, max_size=4),
    "ties": st.booleans(),
})


def make_values(plan, base, dtype, salt):
    """`base` (float64, drawn from the op's domain) turned into `dtype`, with the plan's
    edge values and ties mixed in at positions fixed by the plan's seed and `salt`."""
    rng = np.random.default_rng([plan["seed"], salt])
    values = np.array(base, dtype=np.float64)
    if dtype not in FLOAT_DTYPES:
        values = np.round(values * 2)
    if plan["ties"] and values.size > 1:
        values.flat[rng.integers(0, values.size)] = values.flat[0]
    edges = edge_values(dtype)
    chosen = [edges[i % len(edges)] for i in sorted(plan["edges"])]
    replace = rng.random(values.shape) < plan["edge_share"]
    if dtype in FLOAT_DTYPES:
        picks = np.array(chosen, dtype=np.float64)[rng.integers(0, len(chosen), values.shape)]
        return np.where(replace, picks, values).astype(dtype)
    if dtype == "bool":
        return np.where(replace, rng.random(values.shape) < 0.5, values != 0)
    values = values.astype(dtype)
    picks = np.array(chosen, dtype=dtype)[rng.integers(0, len(chosen), values.shape)]
    return np.where(replace, picks, values)
