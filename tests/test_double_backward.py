"""The graph a create_graph=True backward records, against torch's.

1. Node names (tests/double_backward_names.py) for one sample of every op_db row of the
   pointwise, unary, binary, special and activation families: torch's backward kernels
   (tanh_backward -> TanhBackwardBackward0, threshold_backward, elu_backward, ...) are ops
   here too, and formulas multiply by numbers through the Scalar overloads (MulBackward1).
2. Those backward ops to third order, against finite differences.
3. What .grad becomes when a create_graph backward accumulates into it.
"""
import numpy as np
import pytest

import tapegrad
from compare import same, torch_or_skip
from double_backward_names import backward_graph, compare
from op_db import OP_DB
from tapegrad.ops._define import Op
from test_ops import leaf_arrays, requires_grad_of

pytestmark = pytest.mark.filterwarnings(
    "ignore:Using backward\\(\\) with create_graph=True:UserWarning")

FAMILIES = {"pointwise", "unary", "binary_math", "special_unary", "gamma", "complex_parts",
            "activation"}
_NAMESPACES = (tapegrad.ops, tapegrad.nn.functional, tapegrad.linalg, tapegrad, tapegrad.Tensor)

IN_PLACE_CLONE = ("an in-place op whose formula reads its input: torch saves a clone of it "
                  "(CloneBackward0), ours keeps the input as it was (ops/_inplace.py)")
KNOWN_DIFFERENCES = {
    **dict.fromkeys(("relu6_inplace", "hardtanh_inplace", "hardtanh_", "threshold_inplace",
                     "hardswish_inplace", "hardsigmoid_inplace"), IN_PLACE_CLONE),
    "hardsigmoid": "torch's hardsigmoid_backward has no derivative (NotImplemented); ours is "
                   "composed, because forward AD differentiates the backward once more",
    "copysign": "torch divides result by input (DivBackward0 under the MaskedFillBackward0); "
                "ours multiplies the signs, so the second derivative is exactly 0",
    **dict.fromkeys(("linear", "linear_no_bias"),
                    "mm's backward: torch transposes the product (TBackward0 of MmBackward0), "
                    "ours multiplies by the transpose (ops/linalg.py)"),
    "pad_circular": "torch's slice backward is an op (SliceBackwardBackward0); ours puts the "
                    "gradient into zeros (IndexPutBackward0, ops/shape.py)",
}


def _module_of(name):
    for namespace in _NAMESPACES:
        function = getattr(namespace, name, None)
        if function is not None:
            function = function.forward if isinstance(function, Op) else function
            return getattr(function, "__module__", "").rsplit(".", 1)[-1]
    return None


def _first_plain_sample(row):
    """A sample without layouts and with no empty input: one call per row is enough here."""
    for sample in row.samples:
        if not sample.layouts and sample.n_inputs and all(
                np.size(a) for a in leaf_arrays(row, sample)):
            return sample
    return None


def _family_cases():
    cases = []
    for row in OP_DB:
        modules = {_module_of(name) for name in row.ops}
        sample = _first_plain_sample(row)
        if modules and modules <= FAMILIES and sample is not None:
            reason = KNOWN_DIFFERENCES.get(row.name)
            marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
            cases.append(pytest.param(row, sample, id=row.name, marks=marks))
    return cases


@pytest.mark.parametrize("row, sample", _family_cases())
def test_double_backward_graph_matches_torch(row, sample):
    torch = torch_or_skip()
    arrays = leaf_arrays(row, sample)
    flags = requires_grad_of(sample)
    try:
        ours, theirs = compare(row.fn, arrays, sample.constants, requires_grad=flags)
    except RuntimeError as error:  # where torch has no derivative, the same error
        with pytest.raises(RuntimeError) as theirs:
            backward_graph(torch, row.fn, arrays, sample.constants, requires_grad=flags)
        assert str(error) == str(theirs.value)
        return
    assert ours == theirs


SOFTMAXES = {
    "softmax": lambda lib, x: x.softmax(1), "log_softmax": lambda lib, x: x.log_softmax(0),
    "F_softmax_dtype": lambda lib, x: lib.nn.functional.softmax(x, -1, dtype=lib.float32),
    "F_log_softmax": lambda lib, x: lib.nn.functional.log_softmax(x, dim=1),
    "softmax_0d": lambda lib, x: x.sum().softmax(0),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, 2, 1])),
}


@pytest.mark.parametrize("name", SOFTMAXES)
def test_softmax_double_backward_graph_matches_torch(name):
    # torch's _softmax_backward_data and _log_softmax_backward_data have nodes of their own
    values = np.linspace(-1.2, 2.3, 12).reshape(3, 4)
    ours, theirs = compare(SOFTMAXES[name], [values])
    assert ours == theirs


# ---- the backward ops, to third order ------------------------------------------------------

def _f(name, *args, **kwargs):
    return lambda x: getattr(tapegrad.nn.functional, name)(x, *args, **kwargs)


def _in_place(name, *args):
    return lambda x: getattr(tapegrad.nn.functional, name)(x * 1, *args, inplace=True)


THIRD_ORDER = {
    "tanh": tapegrad.tanh, "sigmoid": tapegrad.sigmoid, "relu": tapegrad.relu,
    "threshold": _f("threshold", 0.25, -1.0), "hardtanh": _f("hardtanh", -0.7, 0.8),
    "leaky_relu": _f("leaky_relu", 0.2), "leaky_relu_": _in_place("leaky_relu", 0.2),
    "elu": _f("elu", 0.7), "elu_": _in_place("elu", 0.7), "celu": _f("celu", 0.6),
    "selu": _f("selu"), "gelu": _f("gelu"), "gelu_tanh": _f("gelu", approximate="tanh"),
    "softplus": _f("softplus", 2.0, 1.5), "logsigmoid": _f("logsigmoid"),
    "hardswish": _f("hardswish"), "hardshrink": _f("hardshrink", 0.3),
    "softshrink": _f("softshrink", 0.3), "rrelu_eval": _f("rrelu", 0.1, 0.3),
    "glu": _f("glu", 0), "pad_reflect": _f("pad", (2, 1), mode="reflect"),
    "pad_replicate": _f("pad", (1, 2, 2, 1), mode="replicate"),
    "softmax": _f("softmax", 1), "log_softmax": _f("log_softmax", 0),
}


@pytest.mark.parametrize("name", THIRD_ORDER)
def test_backward_ops_third_order(name):
    function = THIRD_ORDER[name]
    # away from every kink above (0, +-0.25 ... +-3): piecewise rules give exact zeros
    values = np.array([-3.7, -1.3, -0.55, -0.15, 0.12, 0.42, 0.9, 2.1, 3.4, -2.4, 1.6, 0.6])
    shape = (4, 1, 3) if name == "pad_replicate" else (4, 3)
    x = tapegrad.tensor(values.reshape(shape), dtype=tapegrad.float64, requires_grad=True)

    def gradient(x):  # its second derivative is the function's third
        return tapegrad.autograd.grad((function(x) ** 2).sum(), x, create_graph=True)[0]
    assert tapegrad.autograd.gradgradcheck(gradient, (x,))


def test_prelu_kernel_backward_third_order():
    x = tapegrad.tensor([[-1.5, 0.4, -0.3], [2.0, -0.8, 0.7]], dtype=tapegrad.float64,
                        requires_grad=True)
    weight = tapegrad.tensor([0.3, -0.2, 0.5], dtype=tapegrad.float64, requires_grad=True)

    def gradients(x, weight):
        y = tapegrad.nn.functional.prelu(x, weight)
        return tapegrad.autograd.grad((y * y).sum(), (x, weight), create_graph=True)
    assert tapegrad.autograd.gradgradcheck(gradients, (x, weight))


def test_plain_backward_records_nothing():
    x = tapegrad.tensor([0.3, -0.2], requires_grad=True)
    for function in (tapegrad.tanh, tapegrad.relu, _f("elu"), _f("gelu")):
        grad, = tapegrad.autograd.grad(function(x).sum(), x)
        assert grad.grad_fn is None and not grad.requires_grad


# ---- accumulating into .grad ---------------------------------------------------------------

def _names(tensor):
    node = tensor.grad_fn
    if node is None:
        return None
    return type(node).__name__, [n and type(n).__name__ for n, _ in node.next_functions]


def test_create_graph_backward_copies_then_adds_into_a_leaf_grad():
    # the first .grad is a copy in the graph (CopyBackwards), later ones x.grad + new; a plain
    # backward afterwards adds in place and keeps the node
    def scenario(lib):
        x = lib.tensor([0.3, -0.5, 0.7], requires_grad=True)
        seen = []
        for _ in range(3):
            x.tanh().sum().backward(create_graph=True)
            seen.append(_names(x.grad))
        x.tanh().sum().backward()
        return seen + [_names(x.grad)]
    same(scenario)


def test_create_graph_copy_keeps_the_leaf_layout():
    def scenario(lib):
        x = lib.tensor(np.arange(6.0).reshape(3, 2)).t().detach().requires_grad_()
        x.sin().sum().backward(create_graph=True)
        return _names(x.grad), x.grad.stride(), x.grad.tolist()
    same(scenario)


@pytest.mark.filterwarnings("ignore:The .grad attribute of a Tensor that is not a leaf")
@pytest.mark.parametrize("case", ["leaf_root", "retained", "non_leaf_inputs", "preset_grad",
                                  "constant_grad", "grad_function"])
def test_create_graph_grad_as_torch(case):
    def scenario(lib):
        x = lib.tensor([0.3, 0.2], requires_grad=True)
        if case == "leaf_root":  # the seed itself reaches the leaf
            seed = lib.ones(2, requires_grad=True)
            x.backward(seed, create_graph=True)
            return _names(x.grad), x.grad is seed
        if case in ("retained", "non_leaf_inputs"):  # a clone (CloneBackward0), then adds
            h = x.tanh()
            if case == "retained":
                h.retain_grad()
            seen = []
            for _ in range(2):
                (h * h).sum().backward(create_graph=True,
                                       inputs=[h] if case == "non_leaf_inputs" else None)
                seen.append(_names(h.grad))
            return seen
        if case == "preset_grad":
            x.grad = lib.ones(2)
            x.tanh().sum().backward(create_graph=True)
            return _names(x.grad)
        if case == "constant_grad":  # nothing to record: a plain copy
            (x * 2).sum().backward(create_graph=True)
            return _names(x.grad), x.grad.requires_grad
        grad, = lib.autograd.grad(x.tanh().sum(), x, create_graph=True)  # never copied
        return _names(grad)
    same(scenario)
