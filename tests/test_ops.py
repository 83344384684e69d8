"""Every op in op_db: float64 numerical gradients, second order, and agreement with torch.

Also: every differentiable op of tapegrad.ops has a row, dtype promotion, error texts and
in-place semantics against torch. Checks that need torch import it with
pytest.importorskip inside the test, so the suite runs (and skips those) without it.
"""
import math
import warnings
import zlib

import numpy as np
import pytest

import tapegrad
from op_db import OP_DB, ROWS

# torch's gradcheck defaults.
EPS, ATOL, RTOL = 1e-6, 1e-5, 1e-3
# Values and gradients against torch: rtol as the issue asks. The atol only lets results that
# cancel to (almost) zero compare: it is ~10 ulps of the operands (float32 ulp ~1.2e-7 at 1).
TOLERANCE = {"float64": dict(rtol=1e-6, atol=1e-12), "float32": dict(rtol=1e-5, atol=1e-6)}

pytestmark = pytest.mark.filterwarnings(
    # backward(create_graph=True) warns about a reference cycle, in torch and in tapegrad
    "ignore:Using backward\\(\\) with create_graph=True:UserWarning")


# ---- building a sample with either library -------------------------------------------------

def seeded_rng(*keys):
    return np.random.default_rng(zlib.crc32("/".join(map(str, keys)).encode()))


def layouts_of(sample):
    return tuple(sample.layouts) + (None,) * (sample.n_inputs - len(sample.layouts))


def requires_grad_of(sample):
    return tuple(sample.requires_grad) or (True,) * sample.n_inputs


def leaf_arrays(row, sample):
    """The leaves' float64 values: drawn from the row's domain with a seed fixed by the row
    and sample names, then laid out so that the op sees the drawn values (see apply_layout)."""
    rng = seeded_rng(row.name, sample.label)
    if sample.values is not None:
        values = [v.copy() for v in sample.values]
    else:
        values = row.domain(rng, sample.shapes)
    leaves = []
    for value, layout in zip(values, layouts_of(sample)):
        value = np.asarray(value, dtype=np.float64)
        if layout == "t":
            value = np.ascontiguousarray(value.T)
        elif layout == "step":
            every_other = np.empty((2 * value.shape[0],) + value.shape[1:])
            every_other[::2] = value
            every_other[1::2] = rng.uniform(-2.0, 2.0, value.shape)
            value = every_other
        leaves.append(value)
    return leaves


def apply_layout(tensor, layout):
    if layout == "t":
        return tensor.t()
    if layout == "step":
        return tensor[::2]
    return tensor


def as_lib(lib, value):
    """Constants: NumPy arrays become lib tensors (also inside tuples); the rest stays."""
    if isinstance(value, np.ndarray):
        return lib.tensor(value)
    if isinstance(value, tuple):
        return tuple(as_lib(lib, item) for item in value)
    return value


def run_row(lib, row, sample, arrays, dtype="float64", requires_grad=True):
    """(leaves, outputs) of the row's op on lib tensors made from `arrays`."""
    flags = requires_grad_of(sample)
    leaves = [lib.tensor(array, dtype=getattr(lib, dtype),
                         requires_grad=requires_grad and flag)
              for array, flag in zip(arrays, flags)]
    inputs = [apply_layout(leaf, layout) for leaf, layout in zip(leaves, layouts_of(sample))]
    constants = {name: as_lib(lib, value) for name, value in sample.constants.items()}
    result = row.fn(lib, *inputs, **constants)
    outputs = list(result) if isinstance(result, tuple) else [result]
    return leaves, outputs


def is_float(tensor):
    return tensor.dtype.is_floating_point


def numpy_of(tensor):
    return tensor.detach().numpy()


def with_gradient(leaves, sample):
    return [leaf for leaf, flag in zip(leaves, requires_grad_of(sample)) if flag]


def grad_array(leaf):
    return np.zeros(leaf.shape) if leaf.grad is None else numpy_of(leaf.grad).astype(np.float64)


# ---- numerical checks ----------------------------------------------------------------------

def float_outputs_at(row, sample, arrays):
    """The op's float outputs, flattened to float64, at the given leaf values (no graph)."""
    _, outputs = run_row(tapegrad, row, sample, arrays, requires_grad=False)
    return [numpy_of(out).astype(np.float64).ravel() for out in outputs if is_float(out)]


def numerical_jacobians(row, sample, arrays, eps):
    """jacobians[k][i]: d(output k)/d(leaf i) by central differences, shape (out, in)."""
    wanted = [i for i, flag in enumerate(requires_grad_of(sample)) if flag]
    base = float_outputs_at(row, sample, arrays)
    jacobians = [[np.zeros((out.size, arrays[i].size)) for i in wanted] for out in base]
    for column, i in enumerate(wanted):
        for j in range(arrays[i].size):
            shifted = [a.copy() for a in arrays]
            shifted[i].flat[j] += eps
            plus = float_outputs_at(row, sample, shifted)
            shifted[i].flat[j] -= 2 * eps
            minus = float_outputs_at(row, sample, shifted)
            for k in range(len(base)):
                jacobians[k][column][:, j] = (plus[k] - minus[k]) / (2 * eps)
    return jacobians


def analytical_jacobians(row, sample, arrays):
    """The same Jacobians by backward with one-hot grad_outputs, one row at a time."""
    leaves, outputs = run_row(tapegrad, row, sample, arrays)
    leaves = with_gradient(leaves, sample)
    jacobians = []
    for out in (o for o in outputs if is_float(o)):
        per_leaf = [np.zeros((out.numel(), leaf.numel())) for leaf in leaves]
        for j in range(out.numel()):
            if not out.requires_grad:
                break  # not connected to any leaf: the Jacobian is zero
            for leaf in leaves:
                leaf.grad = None
            one_hot = np.zeros(out.numel())
            one_hot[j] = 1.0
            out.backward(tapegrad.tensor(one_hot.reshape(out.shape), dtype=out.dtype),
                         retain_graph=True)
            for column, leaf in enumerate(leaves):
                per_leaf[column][j] = grad_array(leaf).ravel()
        jacobians.append(per_leaf)
    return jacobians


def the_float_output(outputs):
    floats = [out for out in outputs if is_float(out)]
    assert len(floats) == 1, "second-order checks expect one differentiable output"
    return floats[0]


def projected_gradient(row, sample, arrays, v, w, create_graph):
    """(leaves, s) with s = sum_i <d<out, v>/d leaf_i, w_i>: a scalar function of the leaves
    whose gradient is the second derivative projected on v and w."""
    leaves, outputs = run_row(tapegrad, row, sample, arrays)
    leaves = with_gradient(leaves, sample)
    out = the_float_output(outputs)
    out.backward(tapegrad.tensor(v, dtype=out.dtype), create_graph=create_graph)
    grads = [leaf.grad for leaf in leaves]
    for leaf in leaves:
        leaf.grad = None
    terms = [(g * tapegrad.tensor(wi)).sum() for g, wi in zip(grads, w) if g is not None]
    return leaves, sum(terms) if terms else None


def second_order_vectors(row, sample, arrays):
    rng = seeded_rng("second-order", row.name, sample.label)
    _, outputs = run_row(tapegrad, row, sample, arrays, requires_grad=False)
    v = rng.uniform(-1.0, 1.0, the_float_output(outputs).shape)
    w = [rng.uniform(-1.0, 1.0, a.shape) for a, flag in zip(arrays, requires_grad_of(sample))
         if flag]
    return v, w


def analytical_second_order(row, sample, arrays, v, w):
    leaves, s = projected_gradient(row, sample, arrays, v, w, create_graph=True)
    if s is not None and s.requires_grad:
        s.backward()
    return [grad_array(leaf) for leaf in leaves]


def numerical_second_order(row, sample, arrays, v, w, eps):
    def s_at(values):
        _, s = projected_gradient(row, sample, values, v, w, create_graph=False)
        return 0.0 if s is None else s.item()
    wanted = [i for i, flag in enumerate(requires_grad_of(sample)) if flag]
    result = []
    for i in wanted:
        grad = np.zeros(arrays[i].shape)
        for j in range(arrays[i].size):
            shifted = [a.copy() for a in arrays]
            shifted[i].flat[j] += eps
            plus = s_at(shifted)
            shifted[i].flat[j] -= 2 * eps
            grad.flat[j] = (plus - s_at(shifted)) / (2 * eps)
        result.append(grad)
    return result


# ---- parametrization -----------------------------------------------------------------------

def cases(check, rows=OP_DB, numerical=False):
    """One pytest param per (row, sample), id 'row/sample', xfail where op_db names a bug."""
    params = []
    for row in rows:
        for sample in row.samples:
            if numerical and sample.at_kink:
                continue
            reason = row.expected_failure(sample, check)
            marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
            params.append(pytest.param(row, sample, marks=marks,
                                       id=f"{row.name}/{sample.label}"))
    return params


@pytest.mark.parametrize("row, sample", cases("gradcheck", numerical=True))
def test_gradcheck_float64(row, sample):
    arrays = leaf_arrays(row, sample)
    analytical = analytical_jacobians(row, sample, arrays)
    numerical = numerical_jacobians(row, sample, arrays, row.eps)
    assert len(analytical) == len(numerical)
    for per_leaf_a, per_leaf_n in zip(analytical, numerical):
        for a, n in zip(per_leaf_a, per_leaf_n):
            np.testing.assert_allclose(a, n, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("row, sample", cases("gradgrad", [r for r in OP_DB if r.smooth],
                                              numerical=True))
def test_second_order_float64(row, sample):
    arrays = leaf_arrays(row, sample)
    v, w = second_order_vectors(row, sample, arrays)
    analytical = analytical_second_order(row, sample, arrays, v, w)
    numerical = numerical_second_order(row, sample, arrays, v, w, row.eps)
    for a, n in zip(analytical, numerical):
        np.testing.assert_allclose(a, n, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("row, sample", cases("gradgrad", [r for r in OP_DB if not r.smooth],
                                              numerical=True))
def test_second_order_of_piecewise_linear_is_zero(row, sample):
    # Non-smooth rows are piecewise linear, and their domains keep away from the kinks:
    # backward of backward must run and give a zero second derivative.
    arrays = leaf_arrays(row, sample)
    v, w = second_order_vectors(row, sample, arrays)
    for second in analytical_second_order(row, sample, arrays, v, w):
        np.testing.assert_array_equal(second, np.zeros_like(second))


# ---- against torch -------------------------------------------------------------------------

def node_name(node):
    return None if node is None else type(node).__name__


def graph_structure(tensor):
    """grad_fn's name(), type name and next_functions as (type name or None, output_nr)."""
    node = tensor.grad_fn
    if node is None:
        return None
    return (node.name(), type(node).__name__,
            tuple((node_name(n), nr) for n, nr in node.next_functions))


def assert_same_tensor(ours, theirs, tolerance, what):
    assert str(ours.dtype) == str(theirs.dtype), f"{what}: dtype"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{what}: shape"
    np.testing.assert_allclose(numpy_of(ours), numpy_of(theirs), equal_nan=True,
                               err_msg=what, **tolerance)


def compare_with_torch(row, sample, dtype, check_grads):
    torch = pytest.importorskip("torch")
    arrays = leaf_arrays(row, sample)
    tolerance = TOLERANCE[dtype]
    our_leaves, ours = run_row(tapegrad, row, sample, arrays, dtype)
    their_leaves, theirs = run_row(torch, row, sample, arrays, dtype)
    assert len(ours) == len(theirs)
    for k, (our, their) in enumerate(zip(ours, theirs)):
        assert_same_tensor(our, their, tolerance, f"output {k}")
        assert our.requires_grad == their.requires_grad, f"output {k}: requires_grad"
        assert graph_structure(our) == graph_structure(their), f"output {k}: grad_fn"
        if their.grad_fn is not None:
            assert our.grad_fn.name() == their.grad_fn.name()
    if not check_grads:
        return
    rng = seeded_rng("grad_outputs", row.name, sample.label)
    for our, their in zip(ours, theirs):
        if not their.requires_grad:
            continue
        grad_output = rng.uniform(-1.0, 1.0, tuple(their.shape))
        our.backward(tapegrad.tensor(grad_output, dtype=our.dtype), retain_graph=True)
        their.backward(torch.tensor(grad_output, dtype=their.dtype), retain_graph=True)
    for i, (our, their) in enumerate(zip(our_leaves, their_leaves)):
        if their.grad is None:
            assert our.grad is None, f"leaf {i}: torch leaves .grad None"
        else:
            assert our.grad is not None, f"leaf {i}: .grad is None, torch has {their.grad}"
            assert_same_tensor(our.grad, their.grad, tolerance, f"grad of leaf {i}")


@pytest.mark.parametrize("row, sample", cases("torch"))
def test_matches_torch_float64(row, sample):
    compare_with_torch(row, sample, "float64", check_grads=True)


@pytest.mark.parametrize("row, sample", cases("float32"))
def test_matches_torch_float32(row, sample):
    compare_with_torch(row, sample, "float32", check_grads=False)
