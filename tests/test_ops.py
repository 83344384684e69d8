"""Every op in op_db: float64 numerical gradients, second order, and agreement with torch.

Also: every differentiable op of tapegrad.ops has a row, dtype promotion, error texts and
in-place semantics against torch. Checks that need torch import it with
pytest.importorskip inside the test, so the suite runs (and skips those) without it.
"""
import collections
import contextlib
import inspect
import math
import types
import warnings
import zlib

import numpy as np
import pytest

import tapegrad
from compare import as_lib
from op_db import OP_DB

# torch's gradcheck defaults (its eps, 1e-6, is OpRow.eps in op_db).
ATOL, RTOL = 1e-5, 1e-3
# Values and gradients against torch: rtol as the issue asks. The atol only lets results that
# cancel to (almost) zero compare: it is ~10 ulps of the operands (float32 ulp ~1.2e-7 at 1).
TOLERANCE = {"float64": dict(rtol=1e-6, atol=1e-12), "float32": dict(rtol=1e-5, atol=1e-6)}

pytestmark = [
    # backward(create_graph=True) warns about a reference cycle, in torch and in tapegrad
    pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True:UserWarning"),
]


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
    return (tensor.to_dense() if tensor.is_sparse else tensor).detach().numpy()


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
        if out.numel() == 0 and out.requires_grad:
            # No Jacobian rows, but backward must still run and give grads of the right shape.
            out.backward(tapegrad.zeros(out.shape, dtype=out.dtype), retain_graph=True)
            for leaf in leaves:
                assert leaf.grad is None or leaf.grad.shape == leaf.shape
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


@contextlib.contextmanager
def known_bug(row, sample, check):
    """Where op_db names a bug, fail with the error's text only. Rendering a full traceback
    for each of the few hundred expected failures (pytest re-parses these long files for
    every frame) would otherwise take most of the suite's time."""
    if not row.expected_failure(sample, check):
        yield
        return
    try:
        yield
    except Exception as error:  # noqa: BLE001 - any failure is the expected one
        pytest.fail(f"{type(error).__name__}: {error}", pytrace=False)


@pytest.mark.parametrize("row, sample", cases("gradcheck", numerical=True))
def test_gradcheck_float64(row, sample):
    arrays = leaf_arrays(row, sample)
    with known_bug(row, sample, "gradcheck"):
        analytical = analytical_jacobians(row, sample, arrays)
        numerical = numerical_jacobians(row, sample, arrays, row.eps)
        assert len(analytical) == len(numerical)
        for per_leaf_a, per_leaf_n in zip(analytical, numerical):
            for a, n in zip(per_leaf_a, per_leaf_n):
                np.testing.assert_allclose(a, n, rtol=RTOL, atol=ATOL)


def forward_ad_jvps(row, sample, arrays, tangents):
    """Each float output's tangent under forward-mode AD, flattened."""
    from tapegrad.autograd import forward_ad
    flags = requires_grad_of(sample)
    with forward_ad.dual_level():
        leaves = [tapegrad.tensor(array, dtype=tapegrad.float64) for array in arrays]
        leaves = [forward_ad.make_dual(leaf, tapegrad.tensor(tangent)) if flag else leaf
                  for leaf, tangent, flag in zip(leaves, tangents, flags)]
        inputs = [apply_layout(leaf, layout) for leaf, layout in zip(leaves, layouts_of(sample))]
        constants = {name: as_lib(tapegrad, value) for name, value in sample.constants.items()}
        result = row.fn(tapegrad, *inputs, **constants)
        outputs = list(result) if isinstance(result, tuple) else [result]
        jvps = []
        for out in (o for o in outputs if is_float(o)):
            tangent = forward_ad.unpack_dual(out).tangent
            jvps.append(np.zeros(out.numel()) if tangent is None else numpy_of(tangent).ravel())
    return jvps


@pytest.mark.parametrize("row, sample", cases("forward_ad", numerical=True))
def test_forward_ad_float64(row, sample):
    """Forward-mode J t equals J t from the backward Jacobians (which test_gradcheck_float64
    checks against finite differences)."""
    arrays = leaf_arrays(row, sample)
    rng = seeded_rng(row.name, sample.label, "tangent")
    tangents = [rng.uniform(-1.0, 1.0, array.shape) for array in arrays]
    if (row.expected_failure(sample, "gradcheck") or "").startswith("torch has no derivative"):
        with pytest.raises(NotImplementedError):  # as backward, and as torch
            forward_ad_jvps(row, sample, arrays, tangents)
        return
    with known_bug(row, sample, "forward_ad"):
        jacobians = analytical_jacobians(row, sample, arrays)
        wanted = [t for t, flag in zip(tangents, requires_grad_of(sample)) if flag]
        expected = [sum(j @ t.ravel() for j, t in zip(per_leaf, wanted))
                    for per_leaf in jacobians]
        jvps = forward_ad_jvps(row, sample, arrays, tangents)
        assert len(jvps) == len(expected)
        if any(array.size == 0 for array in arrays):
            return  # J has no columns; torch's tangent is then 0/0 for means, like ours
        for jvp, want in zip(jvps, expected):
            # A tangent has its primal's dtype, so rows that cast to float32 (their eps is not
            # the default) round it there, where a one-hot backward Jacobian stays exact.
            tolerance = 1e-10 if row.eps == 1e-6 else 1e-6
            np.testing.assert_allclose(jvp, want, rtol=tolerance, atol=tolerance)


@pytest.mark.parametrize("row, sample", cases("gradgrad", [r for r in OP_DB if r.smooth],
                                              numerical=True))
def test_second_order_float64(row, sample):
    arrays = leaf_arrays(row, sample)
    with known_bug(row, sample, "gradgrad"):
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
    with known_bug(row, sample, "gradgrad"):
        v, w = second_order_vectors(row, sample, arrays)
        for second in analytical_second_order(row, sample, arrays, v, w):
            np.testing.assert_array_equal(second, np.zeros_like(second))


# ---- against torch -------------------------------------------------------------------------

def node_name(node):
    return None if node is None else type(node).__name__


def graph_structure(tensor):
    """grad_fn's type name and its next_functions as (type name or None, output_nr).

    Type names, not name(): torch's name() of its C++-only nodes is qualified
    ('torch::autograd::AccumulateGrad'); test_node_names_of_builtin_nodes checks those."""
    node = tensor.grad_fn
    if node is None:
        return None
    return (type(node).__name__, tuple((node_name(n), nr) for n, nr in node.next_functions))


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
    pytest.importorskip("torch")
    with known_bug(row, sample, "torch"):
        compare_with_torch(row, sample, "float64", check_grads=True)


@pytest.mark.parametrize("row, sample", cases("float32"))
def test_matches_torch_float32(row, sample):
    pytest.importorskip("torch")
    with known_bug(row, sample, "float32"):
        compare_with_torch(row, sample, "float32", check_grads=False)


# ---- every op has a row --------------------------------------------------------------------

# Public functions of tapegrad.ops that need no op_db row, and why.
NOT_DIFFERENTIABLE = {"eq", "ne", "lt", "le", "gt", "ge",
                      "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not"}
IN_PLACE = {"copy_", "fill_", "zero_", "inplace", "setitem", "in_place_variant",
            *(name + "_" for name in tapegrad.ops.IN_PLACE_FUNCTIONS)}  # the in-place tests
# Registered ops whose nodes only in-place writes create (the in-place tests below).
IN_PLACE_NODES = {"_view_of_base", "_view_put", "_copy", "_fill", "_fill_with_tensor", "_zero"}
# number % tensor, scatter(reduce=...) and binomial: like torch, their backward raises (tested
# in ERRORS, rremainder-backward, test_scatter.py and test_random_ops.py)
NOT_IMPLEMENTED_NODES = {"_remainder_scalar_tensor", "_scatter_reducing", "_binomial",
                         "_native_channel_shuffle",  # in tests/test_functional_rnn.py
                         "_ctc_loss_backward"}  # ctc_loss's double backward, as torch's
# Registered ops that only an nn module reaches (no public function, so no op_db row): nn.LSTM's
# fused layer, against torch in tests/test_rnn_fused.py.
MODULE_ONLY_NODES = {"mkldnn_rnn_layer",
                     "pack_padded_sequence"}  # nn.utils.rnn's, in tests/test_nn_rnn_utils.py
# Functions that make a tensor from sizes alone, no tensor input: nothing for a row to
# differentiate (test_factories_take_no_tensor_input). The windows' op_db use is as stft's and
# istft's windows (op_db_fft.py).
FACTORIES = {"hann_window", "hamming_window", "bartlett_window", "blackman_window",
             "kaiser_window", "fft.fftfreq", "fft.rfftfreq"}
# torch.masked functions whose results have no gradient, as in torch: argmax and argmin give
# indices (in the input's dtype), _input_mask and _output_mask bool masks
# (test_masked_functions_without_rows_have_no_gradient)
MASKED_NOT_DIFFERENTIABLE = {"masked.argmax", "masked.argmin", "masked._input_mask",
                             "masked._output_mask"}


# the namespaces whose functions rows name as "<prefix>.<name>" (masked.sum is not sum)
PREFIXED = {"special": tapegrad.ops.SPECIAL_FUNCTIONS, "fft": tapegrad.ops.FFT_FUNCTIONS,
            "masked": tapegrad.ops.MASKED_FUNCTIONS}


def public_functions():
    """Names of tapegrad.ops, tapegrad.nn.functional and tapegrad.linalg functions, and the
    prefixed names of tapegrad.special, fft and masked."""
    namespace = {**vars(tapegrad.ops), **tapegrad.ops.NN_FUNCTIONS,
                 **tapegrad.ops.LINALG_FUNCTIONS}
    for prefix, functions in PREFIXED.items():
        namespace.update((f"{prefix}.{name}", value) for name, value in functions.items())
    return {name for name, value in namespace.items()
            if not name.startswith("_") and callable(value)
            and not isinstance(value, (type, types.ModuleType))}


def test_every_public_op_has_an_op_db_row():
    covered = {op for row in OP_DB for op in row.ops}
    missing = (public_functions() - covered - NOT_DIFFERENTIABLE - IN_PLACE - FACTORIES
               - MASKED_NOT_DIFFERENTIABLE)
    assert not missing, f"ops without an op_db row: {sorted(missing)}"


def public_function(name):
    """The function public_functions() names `name`."""
    prefix, _, short = name.rpartition(".")
    return PREFIXED[prefix][short] if prefix else getattr(tapegrad.ops, name)


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_take_no_tensor_input(name):
    factory = public_function(name)
    assert "input" not in inspect.signature(factory).parameters
    made = factory(5, requires_grad=True)  # from the size alone: a leaf, with nothing before it
    assert made.is_leaf and made.requires_grad and made.grad_fn is None


MASKED_CALLS = {
    "masked.argmax": lambda lib, x, mask: lib.masked.argmax(x, 1, mask=mask),
    "masked.argmin": lambda lib, x, mask: lib.masked.argmin(x, dim=0, mask=mask),
    "masked._input_mask": lambda lib, x, mask: lib.masked._input_mask(x, mask=mask),
    "masked._output_mask": lambda lib, x, mask: lib.masked._output_mask(lib.masked.sum, x, 1,
                                                                        mask=mask),
}


@pytest.mark.parametrize("name", sorted(MASKED_NOT_DIFFERENTIABLE))
def test_masked_functions_without_rows_have_no_gradient(name):
    torch = pytest.importorskip("torch")
    results = []
    for lib in (tapegrad, torch):
        x = lib.tensor([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]], requires_grad=True)
        mask = lib.tensor([[True, False, True], [False, True, True]])
        results.append(MASKED_CALLS[name](lib, x, mask))
    ours, theirs = results
    assert not ours.requires_grad and not theirs.requires_grad
    assert_same_tensor(ours, theirs, TOLERANCE["float64"], name)


def test_no_two_op_families_export_one_name():
    # ops/__init__.py binds names family by family: a second export would win silently
    for kind in ("FUNCTIONS", "METHODS", "NN_FUNCTIONS", "LINALG_FUNCTIONS", "TENSOR_ONLY"):
        owners = collections.defaultdict(list)
        for family in tapegrad.ops.FAMILIES:
            for name in tapegrad.ops._exports(family, kind):
                owners[name].append(family.__name__)
        assert not {name: f for name, f in owners.items() if len(f) > 1}, kind


def test_op_db_rows_name_public_ops():
    unknown = {op for row in OP_DB for op in row.ops} - public_functions()
    assert not unknown
    assert all(row.ops for row in OP_DB)
    assert all(any(not s.at_kink for s in row.samples) for row in OP_DB)


def test_ops_without_rows_are_not_differentiable():
    for name in NOT_DIFFERENTIABLE:
        assert not tapegrad.ops.REGISTRY[name].differentiable, name


def graph_ops(tensors):
    """The declared ops (REGISTRY entries) whose nodes make up the graphs of `tensors`."""
    seen, found = set(), set()
    stack = [t.grad_fn for t in tensors if t is not None and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if getattr(node, "op", None) is not None:
            found.add(node.op.__name__)
        stack.extend(next_node for next_node, _ in node.next_functions)
    return found


def test_every_registered_op_appears_in_an_op_db_graph():
    # Forward graphs of every sample, and the graphs that create_graph=True backward records
    # with a grad_output that requires grad (ScatterAddBackward0 exists only there: it is the
    # derivative of max(dim) and gather).
    found = set()
    for row in OP_DB:
        for sample in row.samples:
            try:
                leaves, outputs = run_row(tapegrad, row, sample, leaf_arrays(row, sample))
            except Exception:
                if row.expected_failure(sample, "float32"):
                    continue  # a known bug breaks the forward
                raise
            found |= graph_ops(outputs)
            floats = [o for o in outputs if is_float(o) and o.requires_grad]
            if len(floats) == 1 and not row.expected_failure(sample, "gradgrad"):
                grad_output = tapegrad.ones(floats[0].shape, dtype=floats[0].dtype,
                                            requires_grad=True)
                floats[0].backward(grad_output, create_graph=True)
                found |= graph_ops([leaf.grad for leaf in leaves])
    registered = {name for name, op in tapegrad.ops.REGISTRY.items() if op.differentiable}
    missing = registered - found - IN_PLACE_NODES - NOT_IMPLEMENTED_NODES - MODULE_ONLY_NODES
    assert not missing, f"registered ops that no op_db row exercises: {sorted(missing)}"


# ---- dtype promotion -----------------------------------------------------------------------

def T(lib, data, dtype=None):
    """lib.tensor(data), with the dtype given by name."""
    return lib.tensor(data, dtype=None if dtype is None else getattr(lib, dtype))


PROMOTIONS = {
    # tensors with dims, 0-d tensors and Python numbers: torch's three priority groups
    "int64+float": lambda lib: T(lib, [1, 2, 3]) + 2.5,
    "float+int64": lambda lib: 2.5 + T(lib, [1, 2, 3]),
    "int64+int": lambda lib: T(lib, [1, 2]) + 3,
    "int64+float32": lambda lib: T(lib, [1, 2]) + T(lib, [0.5, 1.5]),
    "int32+float64-0d": lambda lib: T(lib, [1, 2], "int32") + T(lib, 1.5, "float64"),
    "float32+float64-0d": lambda lib: T(lib, [1.0, 2.0]) + T(lib, 1.5, "float64"),
    "float32-0d+float64-0d": lambda lib: T(lib, 1.0) + T(lib, 1.5, "float64"),
    "float64+float32": lambda lib: T(lib, [1.0], "float64") + T(lib, [2.0]),
    "float16+int64": lambda lib: T(lib, [1.5, 2.5], "float16") + T(lib, [1, 2]),
    "float16+float": lambda lib: T(lib, [1.5, 2.5], "float16") + 2.5,
    "float16+float32-0d": lambda lib: T(lib, [1.5, 2.5], "float16") + T(lib, 2.0),
    "bool+int": lambda lib: T(lib, [True, False]) + 1,
    "bool+bool": lambda lib: T(lib, [True, False]) + T(lib, [True, True]),
    "bool*float": lambda lib: T(lib, [True, False]) * 2.5,
    "int*bool": lambda lib: T(lib, [3, 4]) * True,
    "uint8+int8": lambda lib: T(lib, [1, 200], "uint8") + T(lib, [-1, 3], "int8"),
    "uint8+int": lambda lib: T(lib, [1, 2], "uint8") + 3,
    "int32+int64": lambda lib: T(lib, [1, 2], "int32") + T(lib, [1, 2]),
    "int32+int64-0d": lambda lib: T(lib, [1, 2], "int32") + T(lib, 5),
    "int64-0d*int32": lambda lib: T(lib, 5) * T(lib, [1, 2], "int32"),
    "int16-int64": lambda lib: T(lib, [1, 2]) - T(lib, [3, 1], "int16"),
    # true division always gives a float
    "int/int": lambda lib: T(lib, [1, 2, 3]) / T(lib, [2, 2, 2]),
    "int/number": lambda lib: T(lib, [1, 2, 3]) / 2,
    "number/int": lambda lib: 3 / T(lib, [1, 2, 4]),
    "int*float": lambda lib: T(lib, [1, 2, 3]) * 2.5,
    "int32*float": lambda lib: T(lib, [1, 2, 3], "int32") * 2.5,
    "int**int": lambda lib: T(lib, [1, 2, 3]) ** 2,
    "number**int": lambda lib: 2 ** T(lib, [1, 2, 3]),
    "float32**float64-0d": lambda lib: T(lib, [1.0, 2.0]) ** T(lib, 2.0, "float64"),
    "int%int": lambda lib: T(lib, [5, -5, 7]) % T(lib, [3, 3, -2]),
    "float32%int": lambda lib: T(lib, [5.5, -5.5]) % 2,
    "int//int": lambda lib: T(lib, [5, -5, 7]) // T(lib, [2, 2, -2]),
    "float32//int": lambda lib: T(lib, [5.5, -5.5]) // 2,
    "div(int,trunc)": lambda lib: lib.div(T(lib, [5, -5]), 2, rounding_mode="trunc"),
    "where(bool,int,float)": lambda lib: lib.where(T(lib, [True, False]), T(lib, [1, 2]),
                                                   T(lib, [0.5, 1.5])),
    "where(bool,float64,int-number)": lambda lib: lib.where(T(lib, [True, False]),
                                                            T(lib, [1.5, 2.5], "float64"), 0),
    "maximum(int32,float32)": lambda lib: lib.maximum(T(lib, [1, 5], "int32"),
                                                      T(lib, [2.5, 0.5])),
    "minimum(int,bool)": lambda lib: lib.minimum(T(lib, [1, -5]), T(lib, [True, False])),
    # unary ops: float functions of integers give the default dtype
    "-int8": lambda lib: -T(lib, [1, -2], "int8"),
    "abs(int)": lambda lib: T(lib, [1, -2]).abs(),
    "exp(int)": lambda lib: T(lib, [0, 1]).exp(),
    "sqrt(int)": lambda lib: T(lib, [1, 4]).sqrt(),
    "log(int32)": lambda lib: T(lib, [1, 4], "int32").log(),
    "sigmoid(int)": lambda lib: T(lib, [0, 1]).sigmoid(),
    "sin(bool)": lambda lib: T(lib, [True, False]).sin(),
    "reciprocal(int)": lambda lib: T(lib, [1, 4]).reciprocal(),
    "relu(int)": lambda lib: T(lib, [-1, 4]).relu(),
    "clamp(int,int)": lambda lib: T(lib, [-3, 4]).clamp(-1, 1),
    "clamp(float32,int)": lambda lib: T(lib, [-3.5, 4.5]).clamp(max=1),
    # reductions: integer sums widen to int64
    "sum(int32)": lambda lib: T(lib, [1, 2], "int32").sum(),
    "sum(bool)": lambda lib: T(lib, [True, True, False]).sum(),
    "sum(uint8,dim)": lambda lib: T(lib, [[200, 100]], "uint8").sum(1),
    "sum(float16)": lambda lib: T(lib, [1.5, 2.5], "float16").sum(),
    "mean(float16)": lambda lib: T(lib, [1.5, 2.5], "float16").mean(),
    "max(int)": lambda lib: T(lib, [1, 7, 3]).max(),
    "max(int,dim)": lambda lib: T(lib, [[1, 7, 3]]).max(1).values,
    "max(int,dim).indices": lambda lib: T(lib, [[1, 7, 3]]).max(1).indices,
    "matmul(int,int)": lambda lib: T(lib, [[1, 2]]) @ T(lib, [[3], [4]]),
    "norm(float16)": lambda lib: T(lib, [3.0, 4.0], "float16").norm(),
    "int.double()": lambda lib: T(lib, [1, 2]).double(),
    "float.to(int32)": lambda lib: T(lib, [1.7, -1.7]).to(lib.int32),
    "float.to(bool)": lambda lib: T(lib, [0.0, -1.7]).to(lib.bool),
    "gather(int)": lambda lib: T(lib, [[1, 2], [3, 4]]).gather(1, T(lib, [[1], [0]])),
    "getitem(int,mask)": lambda lib: T(lib, [1, 2, 3])[T(lib, [True, False, True])],
    # comparisons give bool
    "int<float": lambda lib: T(lib, [1, 2]) < 1.5,
    "float32==float64": lambda lib: T(lib, [1.0, 2.0]) == T(lib, [1.0, 3.0], "float64"),
    "bool==int": lambda lib: T(lib, [True, False]) == T(lib, [1, 1]),
    "uint8>int8": lambda lib: T(lib, [200], "uint8") > T(lib, [-1], "int8"),
    "int>=float64-0d": lambda lib: T(lib, [1, 2]) >= T(lib, 1.5, "float64"),
    "float!=number": lambda lib: T(lib, [1.0, 2.0]) != 2,
    "float32<=int64": lambda lib: T(lib, [1.0, 2.0]) <= T(lib, [1, 1]),
    "bool&bool": lambda lib: T(lib, [True, False]) & T(lib, [True, True]),
    "int64|int32": lambda lib: T(lib, [1, 2]) | T(lib, [4, 4], "int32"),
    "~bool": lambda lib: ~T(lib, [True, False]),
    "uint8+negative-int": lambda lib: T(lib, [1, 2], "uint8") + (-3),
    "int8+large-int": lambda lib: T(lib, [1, 2], "int8") + 200,
    "int**float": lambda lib: T(lib, [1, 2, 3]) ** 2.5,
    "float**int": lambda lib: 2.5 ** T(lib, [1, 2, 3]),
    "clamp(int,float)": lambda lib: T(lib, [-3, 4]).clamp(min=0.5),
    "number%tensor": lambda lib: 5.0 % T(lib, [2.0, 3.0]),
    "number%int": lambda lib: 5 % T(lib, [2, 3]),
}
PROMOTION_BUGS = {
}


def promotion_cases():
    params = [pytest.param(fn, id=label) for label, fn in PROMOTIONS.items()]
    for label, (fn, reason) in PROMOTION_BUGS.items():
        params.append(pytest.param(fn, id=label, marks=pytest.mark.xfail(
            strict=True, reason="bug: " + reason)))
    return params


@pytest.mark.parametrize("fn", promotion_cases())
def test_promotion_matches_torch(fn):
    torch = pytest.importorskip("torch")
    ours, theirs = fn(tapegrad), fn(torch)
    assert str(ours.dtype) == str(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    if theirs.dtype.is_floating_point:
        # float16 keeps 11 bits: compare at its precision
        rtol = {torch.float16: 1e-3, torch.float32: 1e-5}.get(theirs.dtype, 1e-6)
        np.testing.assert_allclose(numpy_of(ours), numpy_of(theirs), rtol=rtol)
    else:
        np.testing.assert_array_equal(numpy_of(ours), numpy_of(theirs))


# ---- errors --------------------------------------------------------------------------------

def Z(lib, *shape, dtype="float32"):
    return lib.zeros(*shape, dtype=getattr(lib, dtype))


def ones_leaf(lib, *shape):
    return lib.ones(*shape, dtype=lib.float64, requires_grad=True)


def backward_twice(lib):
    y = ones_leaf(lib, 3).exp().sum()
    y.backward()
    y.backward()


ERRORS = {
    "broadcast-add": lambda lib: Z(lib, 2, 3) + Z(lib, 4),
    "broadcast-mul-2d": lambda lib: Z(lib, 2, 3) * Z(lib, 3, 2),
    "broadcast-maximum": lambda lib: lib.maximum(Z(lib, 2, 3), Z(lib, 2)),
    "mm-shapes": lambda lib: lib.mm(Z(lib, 2, 3), Z(lib, 2, 3)),
    "mm-1d": lambda lib: lib.mm(Z(lib, 3), Z(lib, 3, 2)),
    "mm-mat2-1d": lambda lib: lib.mm(Z(lib, 2, 3), Z(lib, 3)),
    "matmul-2d-shapes": lambda lib: Z(lib, 2, 3) @ Z(lib, 2, 3),
    "matmul-1d-2d-shapes": lambda lib: Z(lib, 2) @ Z(lib, 3, 4),
    "matmul-2d-1d-shapes": lambda lib: Z(lib, 2, 3) @ Z(lib, 4),
    "matmul-1d-1d-shapes": lambda lib: Z(lib, 2) @ Z(lib, 3),
    "matmul-3d-shapes": lambda lib: Z(lib, 2, 2, 3) @ Z(lib, 2, 2, 3),
    "matmul-3d-2d-shapes": lambda lib: Z(lib, 2, 2, 3) @ Z(lib, 2, 3),
    "matmul-batch-broadcast": lambda lib: Z(lib, 2, 2, 3) @ Z(lib, 3, 3, 2),
    "matmul-0d": lambda lib: lib.tensor(1.0) @ Z(lib, 3),
    "matmul-0d-right": lambda lib: Z(lib, 3) @ lib.tensor(1.0),
    "dot-sizes": lambda lib: lib.dot(Z(lib, 3), Z(lib, 4)),
    "dot-2d": lambda lib: lib.dot(Z(lib, 2, 3), Z(lib, 3)),
    "mv-sizes": lambda lib: lib.mv(Z(lib, 2, 3), Z(lib, 4)),
    "bmm-sizes": lambda lib: lib.bmm(Z(lib, 2, 2, 3), Z(lib, 2, 2, 3)),
    "bmm-batch": lambda lib: lib.bmm(Z(lib, 2, 2, 3), Z(lib, 3, 3, 2)),
    "bmm-2d": lambda lib: lib.bmm(Z(lib, 2, 3), Z(lib, 2, 3, 2)),
    "sum-dim-out-of-range": lambda lib: Z(lib, 2, 3).sum(dim=2),
    "sum-negative-dim-out-of-range": lambda lib: Z(lib, 2, 3).sum(-3),
    "sum-dims-repeated": lambda lib: Z(lib, 2, 3).sum((0, -2)),
    "sum-0d-dim-1": lambda lib: lib.tensor(1.0).sum(1),
    "mean-dim-out-of-range": lambda lib: Z(lib, 2, 3).mean(5),
    "max-dim-out-of-range": lambda lib: Z(lib, 2, 3).max(2),
    "max-empty": lambda lib: Z(lib, 0, 3).max(),
    "min-empty": lambda lib: Z(lib, 0).min(),
    "norm-dim-out-of-range": lambda lib: Z(lib, 2, 3).norm(dim=3),
    "norm-int": lambda lib: lib.tensor([3, 4]).norm(),
    "mean-int": lambda lib: lib.tensor([1, 2]).mean(),
    "mean-bool-dim": lambda lib: lib.tensor([True]).mean(0),
    "mean-int-dtype": lambda lib: Z(lib, 2).mean(dtype=lib.int64),
    "view-incompatible": lambda lib: Z(lib, 2, 3).t().view(6),
    "view-invalid-size": lambda lib: Z(lib, 2, 3).view(4, 2),
    "view-two-inferred": lambda lib: Z(lib, 2, 3).view(-1, -1),
    "reshape-invalid-size": lambda lib: Z(lib, 2, 3).reshape(4, 2),
    "reshape-infer-impossible": lambda lib: Z(lib, 2, 3).reshape(4, -1),
    "index-out-of-range": lambda lib: Z(lib, 3)[5],
    "index-negative-out-of-range": lambda lib: Z(lib, 3, 2)[-4],
    "index-second-dim-out-of-range": lambda lib: Z(lib, 3, 2)[:, 7],
    "index-too-many": lambda lib: Z(lib, 3, 2)[0, 0, 0],
    "index-float-tensor": lambda lib: Z(lib, 3)[lib.tensor([0.0])],
    "index-negative-step": lambda lib: Z(lib, 3)[::-1],
    "gather-dim-out-of-range": lambda lib: Z(lib, 2, 3).gather(2, lib.tensor([[0]])),
    "expand-size": lambda lib: Z(lib, 3, 2).expand(3, 4),
    "permute-length": lambda lib: Z(lib, 2, 3).permute(0),
    "permute-repeated": lambda lib: Z(lib, 2, 3).permute(0, 0),
    "permute-out-of-range": lambda lib: Z(lib, 2, 3).permute(0, 2),
    "transpose-out-of-range": lambda lib: Z(lib, 2, 3).transpose(0, 2),
    "t-3d": lambda lib: Z(lib, 2, 3, 4).t(),
    "unsqueeze-out-of-range": lambda lib: Z(lib, 2, 3).unsqueeze(3),
    "squeeze-out-of-range": lambda lib: Z(lib, 2, 3).squeeze(2),
    "squeeze-dims-repeated": lambda lib: Z(lib, 1, 3).squeeze((0, 0)),
    "flatten-start-after-end": lambda lib: Z(lib, 2, 3, 4).flatten(2, 1),
    "flatten-out-of-range": lambda lib: Z(lib, 2, 3).flatten(0, 2),
    "clamp-no-bounds": lambda lib: Z(lib, 2).clamp(),
    "neg-bool": lambda lib: -lib.tensor([True]),
    "sub-bools": lambda lib: lib.tensor([True]) - lib.tensor([False]),
    "int-negative-power": lambda lib: lib.tensor([2]) ** -1,
    "requires-grad-int": lambda lib: lib.tensor([1, 2], requires_grad=True),
    "requires-grad-int-method": lambda lib: lib.tensor([1, 2]).requires_grad_(),
    "backward-non-scalar": lambda lib: (ones_leaf(lib, 3) * 2).backward(),
    "backward-no-grad": lambda lib: Z(lib, 2).sum().backward(),
    "backward-twice": backward_twice,
    "backward-grad-shape": lambda lib: (ones_leaf(lib, 3) * 2).backward(lib.ones(2,
                                                                            dtype=lib.float64)),
    "requires-grad-non-leaf-off": lambda lib: (ones_leaf(lib, 2) * 2).requires_grad_(False),
    "expand-fewer-dims": lambda lib: Z(lib, 2, 3, dtype="float64").expand(3),
    "remainder-int-by-zero": lambda lib: lib.tensor([1]) % 0,
    # torch has no derivative for number % tensor: its node is called NotImplemented
    "rremainder-backward": lambda lib: (5.0 % lib.ones(2, requires_grad=True)).sum().backward(),
    "index-0d": lambda lib: lib.tensor(1.0)[0],
    "index-tensor-out-of-range": lambda lib: Z(lib, 3)[lib.tensor([0, 5])],
    "index-tensor-negative-out-of-range": lambda lib: Z(lib, 3, 2)[lib.tensor([-4])],
    "index-mask-shape": lambda lib: Z(lib, 3, 2)[lib.tensor([True, False])],
    "index-step-zero": lambda lib: Z(lib, 3)[::0],
    "broadcast-where": lambda lib: lib.where(Z(lib, 3) > 0, Z(lib, 2), Z(lib, 3)),
    "where-int-condition": lambda lib: lib.where(lib.tensor([1, 0]), Z(lib, 2), Z(lib, 2)),
    "mm-dtypes": lambda lib: lib.mm(Z(lib, 2, 3), Z(lib, 3, 2, dtype="float64")),
    "matmul-dtypes": lambda lib: Z(lib, 2, 3) @ Z(lib, 3, 2, dtype="float64"),
    "dot-dtypes": lambda lib: lib.dot(Z(lib, 3), Z(lib, 3, dtype="float64")),
    "mv-1d": lambda lib: lib.mv(Z(lib, 3), Z(lib, 3)),
    "max-dim-empty": lambda lib: Z(lib, 0, 3).max(0),
    "reshape-empty-infer": lambda lib: Z(lib, 0, 3).reshape(0, -1),
    "gather-index-out-of-range": lambda lib: Z(lib, 2, 3).gather(1, lib.tensor([[0, 3]])),
    "gather-float-index": lambda lib: Z(lib, 2, 3).gather(1, lib.tensor([[0.0]])),
    "gather-index-ndim": lambda lib: Z(lib, 2, 3).gather(1, lib.tensor([0])),
    "expand-negative-new-dim": lambda lib: Z(lib, 3).expand(-1, 3),
    "permute-no-dims": lambda lib: Z(lib, 2, 3).permute(),
}
ERROR_BUGS = {
}


def error_cases():
    params = [pytest.param(fn, id=label) for label, fn in ERRORS.items()]
    for label, (fn, reason) in ERROR_BUGS.items():
        params.append(pytest.param(fn, id=label, marks=pytest.mark.xfail(
            strict=True, reason="bug: " + reason)))
    return params


def raised(fn, lib):
    try:
        fn(lib)
    except Exception as error:  # noqa: BLE001 - the point is to compare any error
        return type(error).__name__, str(error)
    return None


def assert_raises_like_torch(fn):
    """fn(lib) raises the same error type with the same text in tapegrad as in torch."""
    torch = pytest.importorskip("torch")
    theirs = raised(fn, torch)
    assert theirs is not None, "the case must raise in torch"
    assert raised(fn, tapegrad) == theirs


@pytest.mark.parametrize("fn", error_cases())
def test_error_matches_torch(fn):
    assert_raises_like_torch(fn)


# ---- in-place ops --------------------------------------------------------------------------

def labelled_params(cases, several=False):
    """pytest params from {label: case}; a case is one argument, a tuple of them (several),
    or a ready pytest.param (one with an xfail mark)."""
    params = []
    for label, case in cases.items():
        if hasattr(case, "marks"):
            params.append(case)
        else:
            params.append(pytest.param(*case, id=label) if several
                          else pytest.param(case, id=label))
    return params


def leaf_of(lib, values):
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def grad_fn_name(tensor):
    return node_name(tensor.grad_fn)


def assert_same_observation(our, their, what):
    """Tensors (also inside tuples) compare as tensors; names, numbers and errors exactly."""
    torch = pytest.importorskip("torch")
    if isinstance(their, torch.Tensor):
        assert isinstance(our, tapegrad.Tensor), what
        assert_same_tensor(our, their, TOLERANCE["float64"], what)
    elif isinstance(their, tuple) and any(isinstance(t, torch.Tensor) for t in their):
        assert len(our) == len(their), what
        for i, (o, t) in enumerate(zip(our, their)):
            assert_same_observation(o, t, f"{what}[{i}]")
    else:
        assert our == their, what


def assert_same_observations(ours, theirs):
    """Two dicts of what a scenario observed."""
    assert ours.keys() == theirs.keys()
    for key, their in theirs.items():
        assert_same_observation(ours[key], their, key)


def compare_scenario(scenario):
    torch = pytest.importorskip("torch")
    assert_same_observations(scenario(tapegrad), scenario(torch))


def inplace_binary(method, other_requires_grad=True, other=None):
    """a = x * 2 (a non-leaf), a.<method>(y), then backward of a weighted sum."""
    def scenario(lib):
        x = leaf_of(lib, [1.0, -2.0, 3.0])
        y = other if other is not None else lib.tensor(
            [0.5, 4.0, -1.5], dtype=lib.float64, requires_grad=other_requires_grad)
        a = x * 2
        returned = getattr(a, method)(y)
        observed = {"a": a, "returns self": returned is a, "grad_fn": grad_fn_name(a),
                    "next": graph_structure(a), "version": a._version}
        (a * lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)).sum().backward()
        observed["x.grad"] = x.grad
        if isinstance(y, lib.Tensor) and y.requires_grad:
            observed["y.grad"] = y.grad
        return observed
    return scenario


def inplace_operator(operator):
    def scenario(lib):
        x = leaf_of(lib, [1.0, -2.0, 3.0])
        y = leaf_of(lib, [0.5, 4.0, -1.5])
        a = x * 2
        before = a
        if operator == "+=":
            a += y
        elif operator == "-=":
            a -= y
        elif operator == "*=":
            a *= y
        elif operator == "/=":
            a /= y
        observed = {"a": a, "same object": a is before, "grad_fn": grad_fn_name(a),
                    "next": graph_structure(a)}
        (a * a).sum().backward()
        observed.update({"x.grad": x.grad, "y.grad": y.grad})
        return observed
    return scenario


INPLACE_SCENARIOS = {
    "add_": inplace_binary("add_"),
    "add_-number": inplace_binary("add_", other=2.5),
    "add_-no-grad-other": inplace_binary("add_", other_requires_grad=False),
    "sub_": inplace_binary("sub_"),
    "mul_": inplace_binary("mul_"),
    "mul_-number": inplace_binary("mul_", other=-3.0),
    "div_": inplace_binary("div_"),
    "div_-number": inplace_binary("div_", other=4.0),
    "+=": inplace_operator("+="),
    "-=": inplace_operator("-="),
    "*=": inplace_operator("*="),
    "/=": inplace_operator("/="),
}


@pytest.mark.parametrize("scenario", [pytest.param(scenario, id=label)
                                      for label, scenario in INPLACE_SCENARIOS.items()])
def test_inplace_on_non_leaf_matches_torch(scenario):
    compare_scenario(scenario)


def test_inplace_alpha_and_clamp_match_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, -2.0, 3.0, 0.25])
        y = leaf_of(lib, [0.5, 4.0, -1.5, 1.0])
        a = x * 1
        a.sub_(y, alpha=2)
        b = x * 1
        b.add_(y, alpha=-0.5)
        c = x * 1
        c.clamp_(-1.5, 1.5)
        d = x * 1
        d.clamp_(min=0.0)
        (a.sum() + (b * b).sum() + (c * 3).sum() + d.sum()).backward()
        return {"a": a, "b": b, "c": c, "d": d, "names": [grad_fn_name(t) for t in (a, b, c, d)],
                "x.grad": x.grad, "y.grad": y.grad}
    compare_scenario(scenario)


def test_fill_zero_and_copy_on_non_leaves_match_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, -2.0, 3.0])
        y = leaf_of(lib, [0.5, 4.0, -1.5])
        filled, zeroed, copied, row_filled = x * 1, x * 1, x * 1, x * 1
        filled.fill_(2.5)
        zeroed.zero_()
        copied.copy_(y * 3)
        row_filled[1:].fill_(-1.0)
        tensors = (filled, zeroed, copied, row_filled)
        observed = {"values": tensors, "copied": graph_structure(copied),
                    "row_filled": graph_structure(row_filled)}
        weights = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        sum((t * weights).sum() for t in tensors).backward()
        observed.update({"x.grad": x.grad, "y.grad": y.grad})
        return observed
    compare_scenario(scenario)


def test_fill_and_zero_node_names_match_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, -2.0, 3.0])
        value = leaf_of(lib, 4.0)
        filled, zeroed, from_tensor = x * 1, x * 1, x * 1
        filled.fill_(2.5)
        zeroed.zero_()
        from_tensor.fill_(value * 2)
        (from_tensor * leaf_of(lib, [1.0, 2.0, 3.0])).sum().backward()
        return {"filled": graph_structure(filled), "zeroed": graph_structure(zeroed),
                "from_tensor": graph_structure(from_tensor), "value.grad": value.grad,
                "x.grad": x.grad}
    compare_scenario(scenario)


def test_inplace_on_a_tensor_not_requiring_grad_joins_the_graph():
    def scenario(lib):
        y = leaf_of(lib, [0.5, 4.0])
        a = lib.zeros(2, dtype=lib.float64)
        a += y * y
        observed = {"requires_grad": a.requires_grad, "grad_fn": grad_fn_name(a),
                    "is_leaf": a.is_leaf, "next": graph_structure(a)}
        a.sum().backward()
        observed["y.grad"] = y.grad
        return observed
    compare_scenario(scenario)


def leaf_error(fn):
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        return {"error": raised(lambda _: fn(lib, x), lib), "x": x, "version": x._version}
    return scenario


LEAF_ERRORS = {
    "add_": leaf_error(lambda lib, x: x.add_(1)),
    "mul_-tensor": leaf_error(lambda lib, x: x.mul_(x.detach())),
    "+=": leaf_error(lambda lib, x: x.__iadd__(1)),
    "clamp_": leaf_error(lambda lib, x: x.clamp_(0, 1)),
    "view-of-leaf": leaf_error(lambda lib, x: x[0].mul_(2)),
    "setitem-basic": leaf_error(lambda lib, x: x.__setitem__(0, 5.0)),
    "setitem-advanced": leaf_error(lambda lib, x: x.__setitem__(lib.tensor([0, 2]), 5.0)),
    "fill_": leaf_error(lambda lib, x: x.fill_(1.0)),
    "zero_": leaf_error(lambda lib, x: x.zero_()),
    "copy_": leaf_error(lambda lib, x: x.copy_(lib.zeros(3))),
}


@pytest.mark.parametrize("scenario", [pytest.param(scenario, id=label)
                                      for label, scenario in LEAF_ERRORS.items()])
def test_inplace_on_leaf_requiring_grad_raises_like_torch(scenario):
    compare_scenario(scenario)


def test_inplace_on_leaf_under_no_grad_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        with lib.no_grad():
            x.mul_(2)
            x[0] = -1.0
            x += 1
        observed = {"x": x, "grad_fn": grad_fn_name(x), "is_leaf": x.is_leaf,
                    "version": x._version}
        (x * x).sum().backward()
        observed["x.grad"] = x.grad
        return observed
    compare_scenario(scenario)


def test_inplace_on_view_of_non_leaf_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        b = x * 1
        b[0].mul_(2)
        observed = {"b": b, "b.grad_fn": grad_fn_name(b), "b.next": graph_structure(b),
                    "version": b._version}
        b.sum().backward()
        observed["x.grad"] = x.grad
        return observed
    compare_scenario(scenario)


def test_inplace_on_view_with_grad_other_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        y = leaf_of(lib, [0.5, -1.0, 2.0])
        b = x * 1
        row = b[1]
        row.mul_(y)
        observed = {"b": b, "row": row, "b.grad_fn": grad_fn_name(b),
                    "row.grad_fn": grad_fn_name(row), "b.next": graph_structure(b),
                    "versions": (b._version, row._version)}
        weights = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)
        ((b * weights).sum() + (row * row).sum()).backward()
        observed.update({"x.grad": x.grad, "y.grad": y.grad})
        return observed
    compare_scenario(scenario)


def test_inplace_on_a_column_view_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        b = x * 2  # MulBackward0 saves x and the number only, so b may change
        column = b[:, 1]
        column.mul_(3)
        column.add_(lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        observed = {"b": b, "b.grad_fn": grad_fn_name(b), "column.grad_fn": grad_fn_name(column)}
        (b * b).sum().backward()
        observed["x.grad"] = x.grad
        return observed
    compare_scenario(scenario)


SETITEM_CASES = {
    "int": (lambda lib: 1, [9.0, 8.0, 7.0]),
    "slice": (lambda lib: (slice(None), slice(1, None)), [[9.0, 8.0], [7.0, 6.0]]),
    "int-broadcast-number": (lambda lib: (0, slice(None)), None),
    "index-tensor": (lambda lib: lib.tensor([1, 0]), [[9.0, 8.0, 7.0], [6.0, 5.0, 4.0]]),
    "index-tensor-pairs": (lambda lib: (lib.tensor([1, 0]), lib.tensor([0, 2])), [3.0, -3.0]),
    "mask": (lambda lib: lib.tensor([True, False]), [9.0, 8.0, 7.0]),
    "mask-number": (lambda lib: lib.tensor([[True, False, True], [False, False, True]]), None),
    "mask-value-with-leading-1": pytest.param(
        lambda lib: lib.tensor([True, False]), [[9.0, 8.0, 7.0]], id="mask-value-with-leading-1"),
    "index-tensor-broadcast-value": pytest.param(
        lambda lib: (lib.tensor([1, 1]), lib.tensor([0, 2])), [3.0],
        id="index-tensor-broadcast-value"),
}


@pytest.mark.parametrize("key_fn, value", labelled_params(SETITEM_CASES, several=True))
def test_setitem_matches_torch(key_fn, value):
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        b = x * 1
        y = -4.0 if value is None else leaf_of(lib, value)
        b[key_fn(lib)] = y
        observed = {"b": b, "grad_fn": grad_fn_name(b), "next": graph_structure(b),
                    "version": b._version}
        (b * lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=lib.float64)).sum().backward()
        observed["x.grad"] = x.grad
        if value is not None:
            observed["y.grad"] = y.grad
        return observed
    compare_scenario(scenario)


def test_setitem_without_grad_matches_torch():
    def scenario(lib):
        a = lib.zeros(2, 3, dtype=lib.float64)
        a[0] = 1.0
        a[:, 1] = lib.tensor([5.0, 6.0], dtype=lib.float64)
        a[lib.tensor([1])] = 7.0
        return {"a": a, "grad_fn": grad_fn_name(a), "version": a._version}
    compare_scenario(scenario)


def test_modified_saved_tensor_raises_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        b = (x * 1).sigmoid()  # SigmoidBackward0 saves its result, b
        b.add_(1)
        return {"error": raised(lambda _: b.sum().backward(), lib), "b": b,
                "version": b._version, "grad_fn": grad_fn_name(b)}
    compare_scenario(scenario)


def test_modified_saved_input_raises_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        a = x * 1
        c = a * a  # MulBackward0 saves a
        a.mul_(3)
        return {"error": raised(lambda _: c.sum().backward(), lib), "version": a._version}
    compare_scenario(scenario)


def test_modified_saved_leaf_raises_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        y = x.exp()
        c = x * y  # saves the leaf x
        with lib.no_grad():
            x.add_(1)
        return {"error": raised(lambda _: c.sum().backward(), lib), "version": x._version}
    compare_scenario(scenario)


def test_modified_view_of_saved_tensor_raises_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [[1.0, 2.0], [3.0, 4.0]])
        b = x.tanh()
        b[0, 0] = 0.0  # a write through a view bumps the shared version counter
        return {"error": raised(lambda _: b.sum().backward(), lib), "version": b._version}
    compare_scenario(scenario)


def test_data_modification_is_not_tracked_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        c = x * x  # saves x
        x.data.mul_(10)  # .data has its own version counter: no error, new values used
        observed = {"version": x._version, "x": x}
        c.sum().backward()
        observed["x.grad"] = x.grad
        x.data = lib.tensor([5.0, 6.0, 7.0], dtype=lib.float64)
        observed.update({"after assignment": x, "still leaf": x.is_leaf,
                         "requires_grad": x.requires_grad})
        return observed
    compare_scenario(scenario)


def test_inplace_keeps_the_dtype_like_torch():
    def scenario(lib):
        return {"float32 += float64": lib.zeros(2).add_(lib.ones(2, dtype=lib.float64)),
                "int *= bool": lib.tensor([3, 4]).mul_(lib.tensor([True, False])),
                "float64 /= int": lib.ones(2, dtype=lib.float64).div_(lib.tensor([2, 4]))}
    compare_scenario(scenario)


INPLACE_ERRORS = {
    "int-add_-float": lambda lib: lib.tensor([1, 2]).add_(1.5),
    "int-div_-int": lambda lib: lib.tensor([1, 2]).div_(2),
    "bool-add_-int": lambda lib: lib.tensor([True]).add_(1),
    "expanded-write": lambda lib: lib.zeros(1, dtype=lib.float64).expand(3).add_(1),
    "broadcast-into-smaller": lambda lib: lib.zeros(3, 1).add_(lib.zeros(3, 4)),
}


@pytest.mark.parametrize("fn", labelled_params(INPLACE_ERRORS))
def test_inplace_error_matches_torch(fn):
    assert_raises_like_torch(fn)


def test_inplace_after_multiplying_by_a_constant_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0, 3.0])
        a = x * 1
        c = a * 2 + a * lib.tensor([1.0, -1.0, 0.5], dtype=lib.float64)
        a.add_(1)
        c.sum().backward()
        return {"a": a, "x.grad": x.grad}
    compare_scenario(scenario)


def test_version_counter_is_shared_with_views_like_torch():
    def scenario(lib):
        a = lib.zeros(2, 3, dtype=lib.float64)
        row, flat = a[0], a.view(-1)
        a.add_(1)
        row.mul_(2)
        flat[5] = 4.0
        return {"a": a, "versions": (a._version, row._version, flat._version),
                "detached shares": a.detach()._version}
    compare_scenario(scenario)


# ---- node names and dtype conversions ------------------------------------------------------

def test_node_names_of_builtin_nodes():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0])
        b = x * 1
        b[0] = 3.0
        return {"CopySlices": b.grad_fn.name(),
                "AccumulateGrad": (x * 1).grad_fn.next_functions[0][0].name()}
    compare_scenario(scenario)


def test_conversion_to_the_same_dtype_returns_self_like_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0])
        return {"to": x.to(lib.float64) is x, "double": x.double() is x,
                "to(dtype=)": x.to(dtype=lib.float64) is x,
                "float()": grad_fn_name(x.float()), "to(float16)": x.to(lib.float16)}
    compare_scenario(scenario)


def test_to_with_copy_matches_torch():
    def scenario(lib):
        x = leaf_of(lib, [1.0, 2.0])
        y = x.to(lib.float64, copy=True)
        return {"y": y, "same": y is x, "grad_fn": grad_fn_name(y)}
    compare_scenario(scenario)


def test_mean_of_empty_is_silent_like_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(tapegrad.zeros(0).mean().item())
        assert np.isnan(numpy_of(tapegrad.zeros(0, 3).mean(0))).all()
