"""tapegrad.explain: every number in the report is the real backward pass's (leaf .grad,
gradients flowing between nodes, torch's per-node gradients from its own Node.register_hook),
the Jacobian is autograd.functional.jacobian's, and the text is stable."""
import html

import numpy as np
import pytest

import tapegrad
from tapegrad import explain
from tapegrad.autograd import functional
from test_viz import SEEDS, seed_copyslices, seed_mean, seed_pow, seed_x6_x7


def _torch():
    return pytest.importorskip("torch")


def seed_broadcast(lib):
    """A (3,) leaf times a (2, 3) constant: the gradient sent to it is summed to (3,)."""
    a = lib.tensor([1.0, -2.0, 0.5], requires_grad=True)
    return (a * lib.ones(2, 3)).sum(), {"a": a}, None


def seed_common_ops(lib):
    """sin, exp, tanh, sigmoid, relu, matmul, view, expand, pow, sum and mean in one graph."""
    x = lib.tensor([[0.5, -1.0], [1.5, 2.0]], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([[1.0, 0.5], [-0.5, 2.0]], dtype=lib.float64, requires_grad=True)
    h = (x.sin() + x.exp()).tanh() @ w
    h = lib.sigmoid(h).view(4).expand(2, 4) ** 2
    return lib.relu(h - 0.3).sum() + h.mean(), {"x": x, "w": w}, None


CASES = SEEDS + [seed_broadcast, seed_common_ops]



def _explained(build, lib=tapegrad, **options):
    output, params, gradient = build(lib)
    return explain.backward(output, gradient, params=params, **options), params


def _array(tensor):
    return tensor.detach().numpy()


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_explain_leaf_grads_equal_a_plain_backward(build):
    report, params = _explained(build)
    output, plain_params, gradient = build(tapegrad)
    output.backward(gradient)
    by_name = {leaf.name: leaf for leaf in report.leaves}
    assert set(by_name) == set(params)
    for name, tensor in params.items():
        expected = _array(plain_params[name].grad)
        assert np.array_equal(_array(tensor.grad), expected)  # explain changed nothing
        assert np.array_equal(_array(by_name[name].grad), expected)
        assert by_name[name].before is None


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_explain_incoming_grad_is_the_sum_of_what_was_sent(build):
    report, _ = _explained(build)
    received = {}
    for step in report.steps:
        for sent, (next_node, output_nr) in zip(step.sent, step.node.next_functions):
            if sent.grad is not None:
                key = (next_node, output_nr)
                received[key] = received.get(key, 0) + _array(sent.grad)
    for step in report.steps[1:]:  # the first step receives the seed (tested below)
        for output_nr, grad in enumerate(step.incoming):
            np.testing.assert_allclose(_array(grad), received[(step.node, output_nr)],
                                       rtol=1e-6, atol=0)


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_explain_first_step_receives_the_seed_and_leaves_receive_their_grad(build):
    report, params = _explained(build)
    np.testing.assert_array_equal(_array(report.steps[0].incoming[0]), _array(report.gradient))
    leaf_steps = {step.leaf: step for step in report.steps if step.leaf is not None}
    for name, tensor in params.items():
        assert np.array_equal(_array(leaf_steps[name].incoming[0]), _array(tensor.grad))


def test_explain_incoming_grad_equals_retained_grad_of_intermediate():
    x = tapegrad.ones(2, 2, requires_grad=True)
    y = x + 2
    y.retain_grad()
    z = y * y * 3
    report = explain.backward(z.mean(), params={"x": x})
    (add_step,) = [step for step in report.steps if step.title == "AddBackward0"]
    assert np.array_equal(_array(add_step.incoming[0]), _array(y.grad))
    np.testing.assert_allclose(_array(y.grad), np.full((2, 2), 4.5))


def test_explain_broadcast_input_gets_gradient_summed_to_its_shape():
    report, _ = _explained(seed_broadcast)
    (mul,) = [step for step in report.steps if step.title == "MulBackward0"]
    assert tuple(mul.incoming[0].shape) == (2, 3)
    assert tuple(mul.sent[0].grad.shape) == (3,)
    np.testing.assert_array_equal(_array(mul.sent[0].grad), [2.0, 2.0, 2.0])


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_explain_matches_torch_per_node_grads_from_its_register_hook(build):
    torch = _torch()
    ours, _ = _explained(build)
    theirs, _ = _explained(build, lib=torch)  # the same code, on torch's Node.register_hook
    assert _op_order(ours) == _op_order(theirs)
    by_title = {step.title: step for step in theirs.steps}
    assert sorted(by_title) == sorted(step.title for step in ours.steps)
    for our in ours.steps:
        their = by_title[our.title]
        assert our.forward == their.forward
        for our_grad, their_grad in zip(our.incoming, their.incoming):
            np.testing.assert_allclose(_array(our_grad), _array(their_grad), rtol=1e-6)
        assert [(s.input, s.target, s.derivative) for s in our.sent] == [
            (s.input, s.target, s.derivative) for s in their.sent]
        for our_sent, their_sent in zip(our.sent, their.sent):
            assert (our_sent.grad is None) == (their_sent.grad is None)
            if our_sent.grad is not None:
                np.testing.assert_allclose(_array(our_sent.grad), _array(their_sent.grad),
                                           rtol=1e-6)
    for our, their in zip(ours.leaves, theirs.leaves):
        np.testing.assert_allclose(_array(our.grad), _array(their.grad), rtol=1e-6)


def _op_order(report):
    """Step titles in execution order, leaves left out: leaves that are ready together run in
    an order that the engine does not fix (see the lead's notes on the tie-break)."""
    return [step.title for step in report.steps if step.leaf is None]


@pytest.mark.parametrize("expression, title, derivative", [
    (lambda x: x.sin(), "SinBackward0", "d(sin(a))/da = cos(a)"),
    (lambda x: x.exp(), "ExpBackward0", "d(exp(a))/da = exp(a)"),
    (lambda x: x.tanh(), "TanhBackward0", "d(tanh(a))/da = 1 - tanh(a)^2"),
    (lambda x: x.sigmoid(), "SigmoidBackward0",
     "d(sigmoid(a))/da = sigmoid(a) * (1 - sigmoid(a))"),
    (lambda x: x.relu(), "ReluBackward0", "d(relu(a))/da = 1 where a > 0, else 0"),
    (lambda x: x ** 3, "PowBackward0", "d(a^p)/da = p * a^(p-1)"),
    (lambda x: x.mean(), "MeanBackward0", "d(mean(a))/da = 1/n, n = 6"),
    (lambda x: x.mean(0), "MeanBackward1", "d(mean(a, dim))/da = 1/n, n = 2"),
    (lambda x: x.sum(), "SumBackward0", "d(sum(a))/da = 1 for every element"),
    (lambda x: x @ x.t(), "MmBackward0", "grad_a = grad @ b.T"),
    (lambda x: x.view(6), "ViewBackward0", "grad_a = grad viewed in a's shape"),
    (lambda x: x.expand(4, 2, 3), "ExpandBackward0",
     "grad_a = grad summed over the expanded dims"),
])
def test_explain_names_the_local_derivative_of_common_ops(expression, title, derivative):
    x = tapegrad.tensor(np.linspace(-1, 1, 6).reshape(2, 3), requires_grad=True)
    output = expression(x)
    report = explain.backward(output, tapegrad.ones_like(output))
    assert report.steps[0].title == title
    assert report.steps[0].sent[0].derivative == derivative


def test_explain_unknown_node_is_a_vector_jacobian_product():
    class Triple(tapegrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3

        @staticmethod
        def backward(ctx, grad):
            return grad * 3

    x = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    report = explain.backward(Triple.apply(x).sum())
    (step,) = [step for step in report.steps if step.title == "TripleBackward"]
    assert step.forward is None
    assert step.sent[0].derivative == "vector-Jacobian product of TripleBackward"
    np.testing.assert_array_equal(_array(x.grad), [3.0, 3.0])


def test_explain_copyslices_sends_region_grads_and_nothing_to_a_constant_base():
    report, params = _explained(seed_copyslices)
    first = report.steps[0]
    assert first.title == "CopySlices #1"
    np.testing.assert_allclose(_array(first.sent[0].grad), [0.1, 0.2, 0.0], rtol=1e-6)
    np.testing.assert_allclose(_array(first.sent[1].grad), 0.3, rtol=1e-6)
    (innermost,) = [step for step in report.steps if step.title == "CopySlices #3"]
    assert innermost.sent[0].target is None and innermost.sent[0].grad is None
    grads = [float(params[name].grad) for name in ("x1", "x2", "x3")]
    np.testing.assert_allclose(grads, [1.1, 1.4, 1.0], rtol=1e-6)  # the tutorial's numbers


# ---- Jacobian -------------------------------------------------------------------------------

def _f_mean(x):
    return (3 * (x + 2) * (x + 2)).mean()


def _f_doubling(x):
    return x * 2 * 2 * 2


def _f_square(x):
    return x * x


@pytest.mark.parametrize("function, value, gradient", [
    (_f_mean, np.ones((2, 2)), None),
    (_f_doubling, np.array([0.6344, 0.8409, 2.2294]), np.array([1, 0.1, 0.01])),
    (_f_square, np.array([0., 1., 2., 3.]), np.ones(4)),
])
def test_explain_jacobian_equals_functional_jacobian_and_jtv_equals_backward(
        function, value, gradient):
    x = tapegrad.tensor(value, requires_grad=True)
    v = None if gradient is None else tapegrad.tensor(gradient)
    report = explain.backward(function(x), v, jacobian=True, params={"x": x})
    (check,) = report.jacobians
    expected = functional.jacobian(function, tapegrad.tensor(value))
    np.testing.assert_allclose(_array(check.jacobian), _array(expected), rtol=1e-12)
    seed = np.ones(()) if gradient is None else gradient
    np.testing.assert_allclose(_array(check.vjp), np.tensordot(seed, _array(expected),
                                                               seed.ndim), rtol=1e-12)
    assert np.array_equal(_array(check.backward), _array(x.grad))
    assert check.ok and check.max_abs_error < 1e-12


def test_explain_jacobian_of_two_leaves_with_accumulated_grads():
    output, params, gradient = seed_pow(tapegrad)
    output.backward(gradient, retain_graph=True)  # .grad already holds one pass
    report = explain.backward(output, gradient, jacobian=True, params=params)
    x_check, y_check = report.jacobians
    assert (x_check.title, y_check.title) == ("x", "y")
    eye = np.eye(4).reshape(2, 2, 2, 2)
    np.testing.assert_array_equal(_array(x_check.jacobian), 2 * eye * np.eye(2)[None, None])
    np.testing.assert_array_equal(_array(y_check.jacobian), 3 * eye)
    np.testing.assert_array_equal(_array(y_check.backward), np.full((2, 2), 3.0))
    np.testing.assert_array_equal(_array(params["y"].grad), np.full((2, 2), 6.0))
    assert x_check.ok and y_check.ok


def test_explain_non_scalar_without_gradient_raises_before_any_pass():
    x = tapegrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        explain.backward(x * 2, jacobian=True)
    assert x.grad is None


def test_explain_of_a_leaf_has_no_steps():
    x = tapegrad.tensor(3.0, requires_grad=True)
    report = explain.backward(x)
    assert report.steps == []
    assert float(report.leaves[0].grad) == 1.0


# ---- text -----------------------------------------------------------------------------------

def test_explain_report_text_golden():
    report, _ = _explained(seed_mean)
    assert str(report) == """\
Backward pass from MeanBackward0 (output: shape (), float32)
starting gradient: tensor(1.)

Step 1: MeanBackward0    out = mean(a)
  incoming grad: tensor(1.)
  a = MulBackward0 #1: d(mean(a))/da = 1/n, n = 4
    sends tensor([[0.2500, 0.2500],
                  [0.2500, 0.2500]])

Step 2: MulBackward0 #1    out = a*b
  incoming grad: tensor([[0.2500, 0.2500],
                         [0.2500, 0.2500]])
  a = MulBackward0 #2: d(a*b)/da = b
    sends tensor([[0.7500, 0.7500],
                  [0.7500, 0.7500]])
  b: a constant or a tensor without requires_grad: no gradient

Step 3: MulBackward0 #2    out = a*b
  incoming grad: tensor([[0.7500, 0.7500],
                         [0.7500, 0.7500]])
  a = AddBackward0: d(a*b)/da = b
    sends tensor([[2.2500, 2.2500],
                  [2.2500, 2.2500]])
  b = AddBackward0: d(a*b)/db = a
    sends tensor([[2.2500, 2.2500],
                  [2.2500, 2.2500]])

Step 4: AddBackward0    out = a + b  (add(a, b, alpha=k): b's derivative is k)
  incoming grad: tensor([[4.5000, 4.5000],
                         [4.5000, 4.5000]])
  a = AccumulateGrad (x): d(a + b)/da = 1
    sends tensor([[4.5000, 4.5000],
                  [4.5000, 4.5000]])
  b: a constant or a tensor without requires_grad: no gradient

Step 5: AccumulateGrad (x)
  incoming grad: tensor([[4.5000, 4.5000],
                         [4.5000, 4.5000]])
  x.grad += incoming grad

Each leaf's .grad after backward:
  x: tensor([[4.5000, 4.5000],
             [4.5000, 4.5000]])"""


def test_explain_table_golden_with_accumulated_grads():
    output, params, gradient = seed_x6_x7(tapegrad)
    output.backward(retain_graph=True)
    report = explain.backward(output, gradient, params=params)
    assert report.table() == (
        "step | node                   | incoming grad | input                      "
        "| local derivative | grad sent\n"
        "-----+------------------------+---------------+----------------------------"
        "+------------------+----------\n") + """\
1    | AddBackward0           | 1             | a = AccumulateGrad #1 (x6) | d(a + b)/da = 1  | 1
1    | AddBackward0           | 1             | b = MulBackward0           | d(a + b)/db = 1  | 1
2    | AccumulateGrad #1 (x6) | 1             | x6                         | x6.grad += grad  |
3    | MulBackward0           | 1             | a = AccumulateGrad #2 (x7) | d(a*b)/da = b    | 2
3    | MulBackward0           | 1             | b = no grad needed         |                  | None
4    | AccumulateGrad #2 (x7) | 2             | x7                         | x7.grad += grad  |"""
    assert "x6: tensor(2.)\n    (it held tensor(1.) before this pass" in str(report)


@pytest.mark.parametrize("build", CASES, ids=lambda build: build.__name__)
def test_explain_steps_are_stable_across_fresh_graphs(build):
    first, _ = _explained(build)
    second, _ = _explained(build)
    assert _op_order(first) == _op_order(second)
    lines = sorted(line for step in first.steps for line in _step_text(step))
    assert lines == sorted(line for step in second.steps for line in _step_text(step))


def _step_text(step):
    """A step's lines without its number, which ties among leaves may change."""
    return str(explain.Report("", None, [step], [], [])).splitlines()[3:]


def test_report_displays_as_its_text_at_a_prompt_and_in_jupyter():
    y, params, _ = seed_mean(tapegrad)
    report = explain.backward(y, params=params)
    assert repr(report) == str(report) and str(report).startswith("Backward pass from")
    assert report._repr_html_() == f"<pre>{html.escape(str(report))}</pre>"
