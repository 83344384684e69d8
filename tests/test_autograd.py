"""Engine and graph semantics: accumulation, graph structure, grad modes, errors, memory.

Each regression test is named for the bug it prevents in other small engines
(see ../shared/anchors/aesthetics.md, section 5).
"""
import gc
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import tapegrad


def _torch():
    return pytest.importorskip("torch")


def _error(fn):
    """(type, message) raised by fn()."""
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value), str(info.value)


def _same_error(make):
    """make(lib) raises the same exception type and text under tapegrad and torch."""
    torch = _torch()
    ours, theirs = _error(lambda: make(tapegrad)), _error(lambda: make(torch))
    assert (ours[0].__name__, ours[1]) == (theirs[0].__name__, theirs[1])


# ---- engine regressions ---------------------------------------------------------------------

def test_shared_subexpression_gets_every_contribution():
    # tinygrad 2020 overwrote grads here (3 instead of 12)
    x = tapegrad.tensor([3.0], requires_grad=True)
    y = x * x
    z = (y + y).sum()
    z.backward()
    assert x.grad.tolist() == [12.0]


def test_two_backward_calls_accumulate_not_compound():
    # micrograd gives 36 instead of 24: intermediate grads were never reset
    x = tapegrad.tensor(3.0, requires_grad=True)
    y = x * x
    z = y + y
    z.backward(retain_graph=True)
    z.backward()
    assert x.grad.item() == 24.0


def test_chain_of_100000_ops_has_no_recursion_limit():
    x = tapegrad.tensor(0.5, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y + 1
    y.backward()
    assert x.grad.item() == 1.0


def test_backward_twice_without_retain_graph_raises_torch_text():
    def make(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * x).sum()
        y.backward()
        y.backward()
    _same_error(make)
    x = tapegrad.ones(2, requires_grad=True)
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_backward_twice_through_graph_that_saves_nothing_accumulates():
    x = tapegrad.ones(2, requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_graph_is_freed_when_dropped_no_reference_cycles():
    gc.disable()
    try:
        x = tapegrad.ones(3, requires_grad=True)
        y = (x * 2).exp().sigmoid().sum()
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()


def test_memory_flat_over_10000_iterations():
    w = tapegrad.randn(8, 8, requires_grad=True)

    def step():
        loss = ((w @ w).tanh() * w).sum()
        loss.backward()
        w.grad = None

    for _ in range(100):
        step()
    gc.collect()
    tracemalloc.start()
    start = tracemalloc.get_traced_memory()[0]
    for _ in range(10_000):
        step()
    grown = tracemalloc.get_traced_memory()[0] - start
    tracemalloc.stop()
    assert gc.collect() == 0  # nothing needed the cycle collector
    assert grown < 64 * 1024


# ---- graph structure ------------------------------------------------------------------------

def test_next_functions_and_accumulate_grad_like_torch():
    x = tapegrad.ones(2, requires_grad=True)
    y = x * 2
    (accumulate, nr), (constant, constant_nr) = y.grad_fn.next_functions
    assert type(accumulate).__name__ == "AccumulateGrad" and nr == 0
    assert accumulate.variable is x
    assert constant is None and constant_nr == 0
    both = (x + x).grad_fn.next_functions
    assert both[0][0] is both[1][0]
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
    assert y.grad_fn.name() == "MulBackward0"


def test_leaf_and_non_leaf_flags():
    x = tapegrad.ones(2, requires_grad=True)
    y = x * 2
    assert x.is_leaf and not y.is_leaf and y.requires_grad and x.grad_fn is None
    with tapegrad.no_grad():
        z = x * 2
    assert z.is_leaf and not z.requires_grad and z.grad_fn is None


def test_non_leaf_grad_warns_and_is_none_unless_retained():
    x = tapegrad.ones(2, requires_grad=True)
    y = x * 2
    y.sum().backward(retain_graph=True)
    with pytest.warns(UserWarning, match="is not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    y.sum().backward()
    assert y.retains_grad and y.grad.tolist() == [1.0, 1.0]


def test_retain_grad_sees_hooked_gradient():
    x = tapegrad.ones(2, requires_grad=True)
    y = x * 1
    y.retain_grad()
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert y.grad.tolist() == [10.0, 10.0]
    assert x.grad.tolist() == [10.0, 10.0]


def test_backward_with_gradient_is_a_vector_jacobian_product():
    x = tapegrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * x
    v = tapegrad.tensor([0.1, 1.0, 0.01])
    y.backward(v)
    np.testing.assert_allclose(x.grad.numpy(), [0.2, 4.0, 0.06], rtol=1e-6)
    assert v.tolist() == pytest.approx([0.1, 1.0, 0.01])  # the caller's tensor is untouched


def test_backward_inputs_accumulates_only_into_those():
    x = tapegrad.ones(2, requires_grad=True)
    w = tapegrad.ones(2, requires_grad=True)
    (x * w * 3).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0, 3.0] and w.grad is None


def test_integer_seed_and_float64_leaf():
    x = tapegrad.tensor([1.0, 2.0], dtype=tapegrad.float64, requires_grad=True)
    (x * 2).backward(tapegrad.tensor([1, 1]))
    assert x.grad.dtype is tapegrad.float64 and x.grad.tolist() == [2.0, 2.0]


def test_broadcast_gradient_is_summed_to_input_shape():
    x = tapegrad.ones(3, 1, requires_grad=True)
    b = tapegrad.ones(4, requires_grad=True)
    (x * b).sum().backward()
    assert x.grad.shape == (3, 1) and x.grad.tolist() == [[4.0]] * 3
    assert b.grad.tolist() == [3.0] * 4


def test_saved_tensors_released_after_backward():
    x = tapegrad.ones(2, requires_grad=True)
    y = x.exp()
    node = y.grad_fn
    y.sum().backward()
    assert node._saved is None
    z = x.exp()
    z.sum().backward(retain_graph=True)
    assert z.grad_fn._saved is not None


def test_create_graph_gives_second_derivative():
    x = tapegrad.tensor(2.0, requires_grad=True)
    y = x ** 3
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        y.backward(create_graph=True)
    first = x.grad
    assert first.item() == 12.0 and first.requires_grad
    x.grad = None
    first.backward()
    assert x.grad.item() == 12.0  # d(3x^2)/dx = 6x


# ---- grad modes -----------------------------------------------------------------------------

def test_no_grad_context_and_decorators():
    x = tapegrad.ones(2, requires_grad=True)
    with tapegrad.no_grad():
        assert not (x * 2).requires_grad
        with tapegrad.enable_grad():
            assert (x * 2).requires_grad
    assert (x * 2).requires_grad

    @tapegrad.no_grad()
    def doubled(t):
        return t * 2

    @tapegrad.no_grad
    def tripled(t):
        return t * 3

    assert not doubled(x).requires_grad and not tripled(x).requires_grad
    assert tapegrad.is_grad_enabled()


def test_set_grad_enabled_as_call_context_and_decorator():
    tapegrad.set_grad_enabled(False)
    assert not tapegrad.is_grad_enabled()
    tapegrad.set_grad_enabled(True)
    with tapegrad.set_grad_enabled(False):
        assert not tapegrad.is_grad_enabled()
    assert tapegrad.is_grad_enabled()

    @tapegrad.set_grad_enabled(False)
    def inside():
        return tapegrad.is_grad_enabled()
    assert inside() is False and tapegrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    seen = []
    with tapegrad.no_grad():
        thread = threading.Thread(target=lambda: seen.append(tapegrad.is_grad_enabled()))
        thread.start()
        thread.join()
    assert seen == [True]


def test_requires_grad_set_inside_no_grad_still_applies_after():
    x = tapegrad.ones(3)
    with tapegrad.no_grad():
        x.requires_grad = True
        assert not (x ** 2).requires_grad
    assert (x ** 2).requires_grad


# ---- data, detach, versions -----------------------------------------------------------------

def test_data_changes_are_invisible_to_autograd():
    x = tapegrad.ones(1, requires_grad=True)
    y = 2 * x
    x.data *= 100
    y.backward()
    assert x.tolist() == [100.0] and x.grad.tolist() == [2.0]
    assert not x.data.requires_grad and x._version == 0


def test_detach_shares_data_and_version_counter():
    a = tapegrad.ones(2, requires_grad=True) * 1
    d = a.detach()
    assert not d.requires_grad
    d.add_(1)
    assert a._version == 1 and a.tolist() == [2.0, 2.0]


def test_numpy_shares_memory_and_refuses_grad_tensors():
    t = tapegrad.zeros(3)
    t.numpy()[0] = 5
    assert t[0].item() == 5
    _same_error(lambda lib: lib.ones(2, requires_grad=True).numpy())


def test_version_counter_error_names_the_forward_op():
    def modified_output(lib):
        x = lib.ones(2, requires_grad=True)
        b = (x * 1).sigmoid()
        b.add_(1)
        b.sum().backward()

    def modified_input(lib):
        x = lib.ones(2, requires_grad=True)
        a = x * 1
        b = a * a
        a.mul_(2)
        b.sum().backward()
    _same_error(modified_output)
    _same_error(modified_input)


# ---- errors with torch's text -----------------------------------------------------------------

@pytest.mark.parametrize("case", [
    "non_scalar", "no_grad_output", "leaf_inplace", "leaf_view_inplace", "int_requires_grad",
    "int_requires_grad_", "non_leaf_requires_grad_false", "seed_shape", "bool_of_many",
    "grad_wrong_size", "grad_wrong_type", "hook_without_grad", "retain_without_grad",
])
def test_error_texts_match_torch(case):
    def make(lib):
        x = lib.ones(2, requires_grad=True)
        if case == "non_scalar":
            (x * 2).backward()
        elif case == "no_grad_output":
            lib.ones(2).sum().backward()
        elif case == "leaf_inplace":
            x.add_(1)
        elif case == "leaf_view_inplace":
            x[0] = 5
        elif case == "int_requires_grad":
            lib.tensor([1, 2], requires_grad=True)
        elif case == "int_requires_grad_":
            lib.tensor([1, 2]).requires_grad_()
        elif case == "non_leaf_requires_grad_false":
            (x * 2).requires_grad_(False)
        elif case == "seed_shape":
            (x * 2).backward(lib.ones(3))
        elif case == "bool_of_many":
            bool(x)
        elif case == "grad_wrong_size":
            x.grad = lib.ones(3)
        elif case == "grad_wrong_type":
            x.grad = [1, 2]
        elif case == "hook_without_grad":
            lib.ones(2).register_hook(lambda g: g)
        elif case == "retain_without_grad":
            lib.ones(2).retain_grad()
    _same_error(make)


def test_leaf_inplace_error_leaves_the_leaf_unchanged():
    x = tapegrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError):
        x.add_(1)
    assert x.tolist() == [1.0, 1.0]
    with tapegrad.no_grad():
        x.add_(1)  # optimizers do this
    assert x.tolist() == [2.0, 2.0] and x.is_leaf


# ---- autograd.grad --------------------------------------------------------------------------

def _grad_results(lib):
    """Values and node names autograd.grad gives in a few standard uses."""
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([0.5, -1.0, 2.0], dtype=lib.float64, requires_grad=True)
    unused = lib.ones(2, requires_grad=True)
    y = (x * x * w).sum()
    (first,) = lib.autograd.grad(y, x, create_graph=True)
    # Hessian-vector product: d/dx (grad . v)
    v = lib.tensor([1.0, 0.0, -1.0], dtype=lib.float64)
    (hvp,) = lib.autograd.grad((first * v).sum(), x, retain_graph=True)
    middle = x * 2
    (through_middle,) = lib.autograd.grad((middle ** 2).sum(), middle)
    vjp = lib.autograd.grad(x * w, [x, w], grad_outputs=lib.ones(3, dtype=lib.float64))
    return {
        "first": first.tolist(), "first node": type(first.grad_fn).__name__,
        "hvp": hvp.tolist(), "through non-leaf": through_middle.tolist(),
        "vjp": [g.tolist() for g in vjp],
        "allow_unused": lib.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)[1],
        "materialized": lib.autograd.grad((x * 2).sum(), [x, unused],
                                          materialize_grads=True)[1].tolist(),
        ".grad untouched": (x.grad, w.grad),
    }


def test_autograd_grad_matches_torch():
    torch = _torch()
    assert _grad_results(tapegrad) == _grad_results(torch)


def test_autograd_grad_hessian_vector_product_analytically():
    # y = sum(x^2 w): grad = 2 x w, Hessian = diag(2 w), so H v = 2 w v
    results = _grad_results(tapegrad)
    assert results["first"] == [1.0, -4.0, 12.0]
    assert results["hvp"] == [1.0, 0.0, -4.0]


@pytest.mark.parametrize("case", ["unused", "materialize_and_disallow", "empty_inputs",
                                  "input_without_grad", "output_without_grad", "seed_shape"])
def test_autograd_grad_errors_match_torch(case):
    def make(lib):
        x = lib.ones(2, requires_grad=True)
        y = (x * 2).sum()
        if case == "unused":
            lib.autograd.grad(y, [x, lib.ones(2, requires_grad=True)])
        elif case == "materialize_and_disallow":
            lib.autograd.grad(y, x, materialize_grads=True, allow_unused=False)
        elif case == "empty_inputs":
            lib.autograd.grad(y, [])
        elif case == "input_without_grad":
            lib.autograd.grad(y, lib.ones(2))
        elif case == "output_without_grad":
            lib.autograd.grad(lib.ones(2).sum(), x)
        elif case == "seed_shape":
            lib.autograd.grad(y, x, grad_outputs=lib.ones(3))
    _same_error(make)


def _non_finite_sums(lib):
    """Gradients that meet as inf + -inf (NaN) or overflow when the engine adds them."""
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    (x * float("inf") + x * float("-inf")).sum().backward()
    y = lib.tensor([1.0], requires_grad=True)
    scaled = y * 1e308
    (scaled * 10 + scaled * 10).sum().backward()
    y.grad = lib.tensor([float("inf")])
    (y * float("-inf")).sum().backward()  # accumulated into an existing .grad
    z = lib.tensor([1.0], requires_grad=True)
    twice = (z * float("inf")).sum() + (z * float("-inf")).sum()
    (grad,) = lib.autograd.grad(twice, z, create_graph=True)
    return [x.grad.tolist(), y.grad.tolist(), grad.tolist()]


def test_nan_and_inf_gradients_accumulate_without_numpy_warnings():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NumPy's "invalid value encountered in add" leaked
        ours = _non_finite_sums(tapegrad)
    theirs = _non_finite_sums(_torch())
    assert str(ours) == str(theirs)
