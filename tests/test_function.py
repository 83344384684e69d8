"""Custom autograd Functions (tapegrad.autograd.Function), checked against torch.

Each Function is defined once by a factory taking the library (tapegrad or torch), so the
same source runs on both and the results, graph structure and error texts are compared.
"""
import re
import warnings

import numpy as np
import pytest

import tapegrad
from compare import same_error, torch_or_skip
from tapegrad.autograd.function import Function, once_differentiable


def _np(t):
    return t.detach().numpy()


def exp_function(lib):
    class Exp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            result = x.exp()
            ctx.save_for_backward(result)
            return result

        @staticmethod
        def backward(ctx, grad):
            result, = ctx.saved_tensors
            return grad * result
    return Exp


def rep_function(lib):
    class Rep(lib.autograd.Function):  # a non-tensor input in the middle
        @staticmethod
        def forward(ctx, x, k, y):
            ctx.k = k
            ctx.needs = ctx.needs_input_grad
            return x * k + y

        @staticmethod
        def backward(ctx, grad):
            return grad * ctx.k, None, grad
    return Rep


def cube_function(lib):
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x ** 2
    return Cube


def test_public_names():
    assert tapegrad.autograd.Function is Function
    assert tapegrad.autograd.once_differentiable is once_differentiable
    import tapegrad.autograd.function as module
    assert module.Function is Function


def test_exp_values_grads_and_node():
    torch = torch_or_skip()
    data = np.array([0.5, -1.0, 2.0])
    results = {}
    for lib in (tapegrad, torch):
        x = lib.tensor(data, requires_grad=True)
        y = exp_function(lib).apply(x)
        y.sum().backward()
        results[lib] = (y, x.grad)
    (y, g), (ty, tg) = results[tapegrad], results[torch]
    np.testing.assert_allclose(_np(y), _np(ty))
    np.testing.assert_allclose(_np(g), _np(tg))
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__ == "ExpBackward"
    pattern = r"<torch\.autograd\.function\.ExpBackward object at 0x[0-9a-f]+>"
    assert re.fullmatch(pattern, repr(y.grad_fn)) and re.fullmatch(pattern, repr(ty.grad_fn))
    assert "grad_fn=<ExpBackward>" in repr(y) and "grad_fn=<ExpBackward>" in repr(ty)
    assert y.grad_fn.next_functions[0][0].name() == ty.grad_fn.next_functions[0][0].name()


def test_non_tensor_input_has_no_edge_and_needs_input_grad():
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = lib.tensor([3.0, 4.0])
        out = rep_function(lib).apply(x, 3.0, y)
        structure = [(None if n is None else n.name(), nr) for n, nr in out.grad_fn.next_functions]
        out.sum().backward()
        seen[lib] = (structure, out.grad_fn.needs, _np(out), _np(x.grad))
    ours, theirs = seen[tapegrad], seen[torch]
    assert ours[0] == theirs[0] == [("torch::autograd::AccumulateGrad", 0), (None, 0)]
    assert ours[1] == theirs[1] == (True, False, False)
    np.testing.assert_allclose(ours[2], theirs[2])
    np.testing.assert_allclose(ours[3], theirs[3])


def test_no_graph_without_grad():
    x = tapegrad.tensor([1.0], requires_grad=True)
    with tapegrad.no_grad():
        out = rep_function(tapegrad).apply(x, 2.0, x)
    assert out.grad_fn is None and not out.requires_grad
    assert rep_function(tapegrad).apply(tapegrad.tensor([1.0]), 2.0, x.detach()).grad_fn is None


def test_double_backward_through_saved_input():
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        x = lib.tensor([1.5, -2.0], dtype=lib.float64, requires_grad=True)
        y = cube_function(lib).apply(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        seen[lib] = (_np(g), _np(gg))
    for ours, theirs in zip(seen[tapegrad], seen[torch]):
        np.testing.assert_allclose(ours, theirs)


def test_saved_tensors_freed_after_backward():
    def make(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = exp_function(lib).apply(x)
        y.sum().backward()
        return y.grad_fn.saved_tensors
    same_error(make)

    def twice(lib):
        x = lib.tensor([1.0], requires_grad=True)
        y = exp_function(lib).apply(x).sum()
        y.backward()
        y.backward()
    same_error(twice)


def test_retain_graph_keeps_saved_tensors():
    x = tapegrad.tensor([1.0], requires_grad=True)
    y = exp_function(tapegrad).apply(x)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    np.testing.assert_allclose(_np(x.grad), 2 * np.exp([1.0]))


def test_saved_tensor_modified_in_place():
    def make(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = x * 1
        s = cube_function(lib).apply(w)
        w.add_(1)
        s.sum().backward()
    same_error(make)


def dirty_function(lib):
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    return Dirty


def test_mark_dirty():
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        a = x * 1
        b = dirty_function(lib).apply(a)
        assert b is a
        assert type(a.grad_fn).__name__ == "DirtyBackward"
        version = a._version
        a.sum().backward()
        seen[lib] = (_np(a), _np(x.grad), version)
    assert seen[tapegrad][2] == seen[torch][2]
    for ours, theirs in zip(seen[tapegrad][:2], seen[torch][:2]):
        np.testing.assert_allclose(ours, theirs)


def test_mark_dirty_on_leaf():
    same_error(lambda lib: dirty_function(lib).apply(lib.tensor([1.0], requires_grad=True)))


def test_mark_non_differentiable():
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        class MaxArg(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                index = x.argmax()
                ctx.mark_non_differentiable(index)
                ctx.save_for_backward(x, index)
                return x.max(), index

            @staticmethod
            def backward(ctx, grad_value, grad_index):
                x, index = ctx.saved_tensors
                ctx.grad_index = grad_index
                return (lib.arange(x.shape[0]) == index).to(x.dtype) * grad_value

        x = lib.tensor([1.0, 5.0, 2.0], requires_grad=True)
        value, index = MaxArg.apply(x)
        value.backward()
        seen[lib] = (index.requires_grad, index.grad_fn, _np(x.grad),
                     _np(value.grad_fn.grad_index))
    assert seen[tapegrad][:2] == seen[torch][:2] == (False, None)
    for ours, theirs in zip(seen[tapegrad][2:], seen[torch][2:]):
        np.testing.assert_allclose(ours, theirs)


def two_output_function(lib, materialize):
    class Two(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grad_a, grad_b):
            ctx.seen = grad_b
            total = grad_a * 2
            return total if grad_b is None else total + grad_b * 3
    return Two


@pytest.mark.parametrize("materialize", [True, False])
def test_set_materialize_grads(materialize):
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        a, b = two_output_function(lib, materialize).apply(x)
        a.sum().backward()
        grad_b = a.grad_fn.seen
        seen[lib] = (None if grad_b is None else _np(grad_b), _np(x.grad))
    if materialize:
        np.testing.assert_array_equal(seen[tapegrad][0], seen[torch][0])
    else:
        assert seen[tapegrad][0] is None and seen[torch][0] is None
    np.testing.assert_allclose(seen[tapegrad][1], seen[torch][1])


def once_function(lib):
    from importlib import import_module
    decorate = import_module(lib.__name__ + ".autograd.function").once_differentiable

    class Once(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @decorate
        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return 2 * x * grad
    return Once


def test_once_differentiable():
    def make(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        z = once_function(lib).apply(x)
        g, = lib.autograd.grad((z ** 2).sum(), x, create_graph=True)
        assert type(g.grad_fn).__name__ == "Error"
        assert g.grad_fn.name() == "torch::autograd::Error"
        g.sum().backward()
    same_error(make)


def test_once_differentiable_first_order():
    torch = torch_or_skip()
    grads = []
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        (once_function(lib).apply(x) ** 2).sum().backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(*grads)


def test_wrong_number_of_gradients():
    def make(lib):
        class BadCount(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, y):
                return x + y

            @staticmethod
            def backward(ctx, grad):
                return (grad,)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        BadCount.apply(x, x).sum().backward()
    same_error(make)


def test_wrong_gradient_shape():
    def make(lib):
        class BadShape(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return lib.ones(3)
        BadShape.apply(lib.tensor([1.0, 2.0], requires_grad=True)).sum().backward()
    same_error(make)


def test_broadcast_gradient_is_summed_back():
    torch = torch_or_skip()
    grads = []
    for lib in (tapegrad, torch):
        class Wide(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 1

            @staticmethod
            def backward(ctx, grad):
                return grad.expand(3, 2)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        Wide.apply(x).sum().backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(*grads)


def test_setup_context_style():
    torch = torch_or_skip()
    seen = {}
    for lib in (tapegrad, torch):
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(x, factor):
                return x * factor

            @staticmethod
            def setup_context(ctx, inputs, output):
                x, factor = inputs
                ctx.factor = factor
                ctx.save_for_backward(x)

            @staticmethod
            def backward(ctx, grad):
                x, = ctx.saved_tensors
                return grad * ctx.factor * x / x, None
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        out = Scale.apply(x, 4.0)
        out.sum().backward()
        seen[lib] = (type(out.grad_fn).__name__, _np(out), _np(x.grad))
    assert seen[tapegrad][0] == seen[torch][0] == "ScaleBackward"
    for ours, theirs in zip(seen[tapegrad][1:], seen[torch][1:]):
        np.testing.assert_allclose(ours, theirs)


def test_legacy_non_static_forward():
    def make(lib):
        class Old(lib.autograd.Function):
            def forward(self, x):
                return x
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            Old()(lib.tensor([1.0], requires_grad=True))
    same_error(make)


def test_returned_input_is_a_new_tensor():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        class Same(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad
        x = lib.tensor([1.0], requires_grad=True)
        y = Same.apply(x)
        assert y is not x and x.grad_fn is None and type(y.grad_fn).__name__ == "SameBackward"
        # without a graph as well: an alias, detached where the input requires grad
        plain = lib.ones(2)
        with lib.no_grad():
            in_no_grad = Same.apply(x)
        out = Same.apply(plain)
        assert (out is plain, out.requires_grad, in_no_grad is x, in_no_grad.requires_grad) == (
            False, False, False, False)


def test_integer_output_does_not_require_grad():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        class ToLong(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x.long()

            @staticmethod
            def backward(ctx, grad):
                return grad
        out = ToLong.apply(lib.tensor([1.0], requires_grad=True))
        assert not out.requires_grad and out.grad_fn is None


def test_gradcheck_custom_function():
    x = tapegrad.tensor([0.3, -0.7, 1.1], dtype=tapegrad.float64, requires_grad=True)
    assert tapegrad.autograd.gradcheck(exp_function(tapegrad).apply, (x,))
    assert tapegrad.autograd.gradcheck(cube_function(tapegrad).apply, (x,))
    assert tapegrad.autograd.gradgradcheck(cube_function(tapegrad).apply, (x,))


def test_gradient_for_non_tensor_input():
    def make(lib):
        class R(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, k):
                return x * k, k  # a non-tensor output too

            @staticmethod
            def backward(ctx, grad, grad_k):
                return grad, grad
        a, k = R.apply(lib.tensor([1.0, 2.0], requires_grad=True), 2.0)
        assert k == 2.0
        a.sum().backward()
    same_error(make)


def test_double_backward_through_saved_output():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        x = lib.tensor([0.5, -1.0], dtype=lib.float64, requires_grad=True)
        y = exp_function(lib).apply(x)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        seen.append((type(g.grad_fn).__name__, _np(g), _np(gg)))
    assert seen[0][0] == seen[1][0]
    for ours, theirs in zip(seen[0][1:], seen[1][1:]):
        np.testing.assert_allclose(ours, theirs)
    x = tapegrad.tensor([0.3, -0.7], dtype=tapegrad.float64, requires_grad=True)
    assert tapegrad.autograd.gradgradcheck(exp_function(tapegrad).apply, (x,))


def test_hooks_and_retain_grad_on_outputs():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = cube_function(lib).apply(x)
        y.retain_grad()
        y.register_hook(lambda grad: grad * 10)
        (y * 2).sum().backward()
        seen.append((_np(y.grad), _np(x.grad)))
    for ours, theirs in zip(*seen):
        np.testing.assert_allclose(ours, theirs)


def test_graph_is_freed_without_garbage_collection():
    import weakref
    x = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    for make in (exp_function, cube_function):
        y = make(tapegrad).apply(x)
        ref = weakref.ref(y.grad_fn)
        del y
        assert ref() is None
    a = x * 1
    dirty_function(tapegrad).apply(a)
    ref = weakref.ref(a.grad_fn)
    del a
    assert ref() is None


def test_saved_dirty_output_double_backward():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        class SquareInPlace(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(x)
                ctx.mark_dirty(x)
                ctx.save_for_backward(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                squared, = ctx.saved_tensors
                return grad * 2 * squared.sqrt()
        x = lib.tensor([1.5, 3.0], dtype=lib.float64, requires_grad=True)
        a = x * 1
        SquareInPlace.apply(a)
        g, = lib.autograd.grad(a.sum(), x, create_graph=True)
        gg, = lib.autograd.grad(g.sum(), x)
        seen.append((_np(g), _np(gg)))
    for ours, theirs in zip(*seen):
        np.testing.assert_allclose(ours, theirs)


def test_vjp_is_an_alias_of_backward():
    class Double(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, grad):
            return grad * 2
    x = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    Double.apply(x).sum().backward()
    np.testing.assert_allclose(_np(x.grad), [2.0, 2.0])


def test_mark_dirty_on_a_view():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        class Triple(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                x.mul_(3)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx, grad):
                return grad * 3
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        a = x * 1
        view = a[1:]
        assert Triple.apply(view) is view
        names = (type(view.grad_fn).__name__, a.grad_fn.name())
        (a * lib.tensor([1.0, 10.0, 100.0])).sum().backward()
        seen.append((names, _np(a), _np(x.grad)))
    assert seen[0][0] == seen[1][0]
    for ours, theirs in zip(seen[0][1:], seen[1][1:]):
        np.testing.assert_allclose(ours, theirs)


def test_mark_dirty_on_a_view_of_a_leaf():
    same_error(lambda lib: dirty_function(lib).apply(
        lib.tensor([1.0, 2.0], requires_grad=True)[1:]))


def test_save_for_backward_only_saves_tensors():
    def make(lib):
        class SaveNumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, grad):
                return grad
        SaveNumber.apply(lib.tensor([1.0], requires_grad=True))
    same_error(make)


# ---- mark_dirty on several inputs, views among them ------------------------------------------

def _node_names(tensor):
    if tensor.grad_fn is None:
        return None
    return (tensor.grad_fn.name(),
            [(None if node is None else node.name(), nr)
             for node, nr in tensor.grad_fn.next_functions])


def scale_three_function(lib):
    """Scales a by 2, b by 3 and c by 5 in place, marks all three dirty, returns them out of
    order with a new tensor a * b in the middle."""
    class ScaleThree(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, c):
            a.mul_(2)
            b.mul_(3)
            c.mul_(5)
            ctx.mark_dirty(a, b, c)
            return c, a * b, a, b

        @staticmethod
        def backward(ctx, grad_c, grad_product, grad_a, grad_b):
            # no saved values: a * b's gradient is approximated by its factors' scales (a
            # made-up but fixed rule, compared with torch running the same rule)
            return grad_a * 2 + grad_product, grad_b * 3 + grad_product, grad_c * 5
    return ScaleThree


def _scale_three_run(lib, constant_c=False):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
    a, b = x[:2] * 2, x[2:] * 3
    c = lib.tensor([7.0, 8.0], dtype=lib.float64) if constant_c else x[1:3] * 1
    outputs = scale_three_function(lib).apply(a, b, c)
    facts = {"same": [out is t for out, t in zip(outputs, (c, None, a, b))],
             "nodes": [_node_names(out) for out in outputs],
             "output_nr": [out.output_nr for out in outputs],
             "versions": [t._version for t in (a, b, c)],
             "values": [out.tolist() for out in outputs]}
    weights = (1.0, 10.0, 100.0, 1000.0)
    sum(out.sum() * w for out, w in zip(outputs, weights)).backward()
    facts["grad"] = x.grad.tolist()
    return facts


@pytest.mark.parametrize("constant_c", [False, True])
def test_mark_dirty_several_inputs_returned_in_any_order(constant_c):
    torch = torch_or_skip()
    assert _scale_three_run(tapegrad, constant_c) == _scale_three_run(torch, constant_c)


def test_mark_dirty_several_inputs_gradients_by_hand():
    facts = _scale_three_run(tapegrad)
    assert facts["same"] == [True, False, True, True]
    assert {nodes[0] for nodes in facts["nodes"]} == {"ScaleThreeBackward"}
    # one bump from mul_, one from mark_dirty
    assert facts["output_nr"] == [0, 1, 2, 3] and facts["versions"] == [2, 2, 2]
    # grad_a = 100 * 2 + 10, grad_b = 1000 * 3 + 10, grad_c = 1 * 5; then a = 2 x[:2],
    # b = 3 x[2:], c = x[1:3]
    assert facts["grad"] == [420.0, 420.0 + 5.0, 9030.0 + 5.0, 9030.0]


def test_mark_dirty_bumps_version_once_per_mention():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x, x)
                return x, x

            @staticmethod
            def backward(ctx, grad_first, grad_second):
                return grad_first + grad_second

        class OnceTwice(Twice):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x, x
        a = lib.tensor([1.0], requires_grad=True) * 1
        first, second = Twice.apply(a)
        plain = lib.tensor([1.0])
        Twice.apply(plain)
        once = lib.tensor([1.0], requires_grad=True) * 1
        OnceTwice.apply(once)
        seen.append((a._version, plain._version, once._version, first is a, second is a))
    # marked twice: two bumps; marked once and returned twice: one
    assert seen[0] == seen[1] == (2, 2, 1, True, True)


def _dirty_view_and(lib, second_output):
    class ViewAndMore(lib.autograd.Function):
        @staticmethod
        def forward(ctx, view, other):
            view.mul_(2)
            ctx.mark_dirty(view)
            return view, second_output(other)

        @staticmethod
        def backward(ctx, grad, *rest):
            return grad * 2, None
    x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ViewAndMore.apply((x * 1)[1:], lib.ones(2, requires_grad=True))


@pytest.mark.parametrize("second_output", [lambda other: other * 2, lambda other: 3,
                                           lambda other: None])
def test_mark_dirty_view_with_several_outputs_raises(second_output):
    same_error(lambda lib: _dirty_view_and(lib, second_output))


def test_mark_dirty_view_with_several_outputs_message():
    with pytest.raises(RuntimeError, match="your Function cannot return more than one Tensor"):
        _dirty_view_and(tapegrad, lambda other: other * 2)


def mul_into_view_function(lib, view_first):
    """view *= other, in place, with the view as the first or the second argument."""
    class MulIntoView(lib.autograd.Function):
        @staticmethod
        def forward(ctx, first, second):
            view, other = (first, second) if view_first else (second, first)
            ctx.save_for_backward(other)
            view.mul_(other)
            ctx.mark_dirty(view)
            return view

        @staticmethod
        def backward(ctx, grad):
            other, = ctx.saved_tensors
            # the gradient for `other` needs the view's old value: use a made-up rule instead
            grads = (grad * other, grad * 3)
            return grads if view_first else grads[::-1]
    return MulIntoView


def _mul_into_view_run(lib, view_first, base_requires_grad=True):
    x = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=base_requires_grad)
    base = x * 1 if base_requires_grad else x
    other = lib.tensor([5.0, 6.0], dtype=lib.float64, requires_grad=True)
    view = base[2:]
    args = (view, other * 1) if view_first else (other * 1, view)
    out = mul_into_view_function(lib, view_first).apply(*args)
    facts = {"same": out is view, "node": _node_names(out)[0], "base": base.grad_fn.name(),
             "versions": (base._version, view._version), "base_values": base.tolist()}
    (base * lib.tensor([1.0, 10.0, 100.0, 1000.0], dtype=lib.float64)).sum().backward()
    facts["grads"] = [None if t.grad is None else t.grad.tolist()
                      for t in ((x,) if base_requires_grad else ()) + (other,)]
    return facts


@pytest.mark.parametrize("base_requires_grad", [True, False])
def test_mark_dirty_view_first_input_matches_torch(base_requires_grad):
    torch = torch_or_skip()
    assert (_mul_into_view_run(tapegrad, True, base_requires_grad)
            == _mul_into_view_run(torch, True, base_requires_grad))


def test_mark_dirty_view_second_input_graph_matches_torch():
    torch = torch_or_skip()
    ours, theirs = _mul_into_view_run(tapegrad, False), _mul_into_view_run(torch, False)
    ours.pop("grads"), theirs.pop("grads")
    assert ours == theirs
    assert ours["node"] == "AsStridedBackward0"
    assert ours["base"] == "torch::autograd::CopySlices"


def test_mark_dirty_view_second_input_gradients_by_hand():
    # torch's CopySlices takes input 0 for the view and misroutes these gradients (other gets
    # none); tapegrad sends each one where backward put it.
    facts = _mul_into_view_run(tapegrad, False)
    assert facts["base_values"] == [1.0, 2.0, 15.0, 24.0]
    # the view's gradient (100, 1000) * other goes to x[2:], the rest of the base's gradient
    # passes straight through; other gets (100, 1000) * 3
    assert facts["grads"] == [[1.0, 10.0, 500.0, 6000.0], [300.0, 3000.0]]


def _dirty_case(lib, case):
    class Dirty(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            x.mul_(2)
            ctx.mark_dirty(x)
            if case.startswith("not returned"):
                return w * 2
            if case == "view not an input":
                inner = lib.ones(3)[1:]
                ctx.mark_dirty(inner)
                return inner
            return x

        @staticmethod
        def backward(ctx, grad):
            return grad, None
    requires_grad = case != "not returned, no grad"
    x = lib.tensor([1.0, 2.0], requires_grad=requires_grad) * 1
    return Dirty.apply(x, lib.ones(2, requires_grad=requires_grad))


@pytest.mark.parametrize("case", ["not returned", "not returned, no grad",
                                  "view not an input"])
def test_mark_dirty_misuse_errors_match_torch(case):
    same_error(lambda lib: _dirty_case(lib, case))


def test_mark_dirty_not_returned_message():
    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward "
                       "method were not returned as output"):
        _dirty_case(tapegrad, "not returned")


def test_mark_dirty_non_input_warns():
    torch = torch_or_skip()
    messages = []
    for lib in (tapegrad, torch):
        class MarksNew(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                new = x * 3
                ctx.mark_dirty(new)
                return x * 1, new

            @staticmethod
            def backward(ctx, grad, grad_new):
                return grad + 3 * grad_new
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _, new = MarksNew.apply(lib.ones(2, requires_grad=True))
        texts = [str(w.message).split(" (Triggered internally")[0] for w in caught]
        messages.append((texts, [w.category for w in caught], type(new.grad_fn).__name__,
                         new._version))
    assert messages[0] == messages[1]
    assert messages[0][0] == ["ctx.mark_dirty() received a tensor that was not an input. Only "
                              "input Tensors that have been mutated should be passed to "
                              "ctx.mark_dirty()."]


def test_mark_dirty_non_differentiable_returns_a_detached_alias():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        class Hidden(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x, w):
                x.mul_(2)
                ctx.mark_dirty(x)
                ctx.mark_non_differentiable(x)
                return x, w * 2

            @staticmethod
            def backward(ctx, grad_x, grad_w):
                return None, grad_w * 2
        x = lib.tensor([1.0, 2.0], requires_grad=True) * 1
        hidden, _ = Hidden.apply(x, lib.ones(2, requires_grad=True))
        seen.append((hidden is x, hidden.requires_grad, hidden.grad_fn, x._version,
                     hidden.tolist(), type(x.grad_fn).__name__))
    assert seen[0] == seen[1] == (False, False, None, 2, [2.0, 4.0], "MulBackward0")

