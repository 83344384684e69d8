"""Hooks on tensors and on graph nodes: call order, replaced gradients and errors, as torch.

Each scenario is written once as a function of the library, so the same code runs on
tapegrad and torch and the logs are compared.
"""
import numpy as np

import tapegrad
from compare import error_of, torch_or_skip


def _plain(value):
    """A log entry with tensors turned into nested lists, comparable across libraries."""
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v) for v in value)
    if hasattr(value, "detach"):
        return value.detach().numpy().tolist()
    return value


def hook_order(lib):
    """Every kind of hook on a two-node graph, logging what each sees."""
    log = []
    a = lib.tensor([1., 2.], requires_grad=True)
    c = a * lib.tensor([3., 4.])
    node = c.grad_fn
    node.register_prehook(lambda go: log.append(("node pre", go)))
    node.register_hook(lambda gi, go: log.append(("node post", gi, go)))
    c.register_hook(lambda g: log.append(("tensor", g)))
    accumulator = node.next_functions[0][0]
    accumulator.register_prehook(lambda go: log.append(("accumulate pre", go)))
    accumulator.register_hook(lambda gi, go: log.append(("accumulate post", gi, go)))
    a.register_post_accumulate_grad_hook(lambda t: log.append(("post accumulate", t.grad)))
    a.register_hook(lambda g: log.append(("leaf", g)))
    c.sum().backward()
    return log


def replaced_gradients(lib):
    x = lib.tensor([1., 2.], requires_grad=True)
    y = x * 2
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1, None))
    y.sum().backward()
    return x.grad


def test_hook_order_and_arguments_matchtorch_or_skip():
    torch = torch_or_skip()
    assert _plain(hook_order(tapegrad)) == _plain(hook_order(torch))


def test_hook_order_analytic():
    names = [entry[0] for entry in hook_order(tapegrad)]
    assert names == ["tensor", "node pre", "node post", "leaf", "accumulate pre",
                     "post accumulate", "accumulate post"]


def test_node_hooks_replace_gradients():
    # the pre-hook scales the incoming gradient by 10, the post-hook adds 1 to d/dx
    assert replaced_gradients(tapegrad).tolist() == [21.0, 21.0]
    torch = torch_or_skip()
    assert replaced_gradients(torch).tolist() == replaced_gradients(tapegrad).tolist()


def test_removed_node_hook_does_not_run():
    log = []
    x = tapegrad.tensor([1., 2.], requires_grad=True)
    y = x.exp()
    handle = y.grad_fn.register_hook(lambda gi, go: log.append(gi))
    handle.remove()
    y.sum().backward()
    assert log == [] and np.allclose(x.grad.numpy(), np.exp([1., 2.]))


def test_post_accumulate_hook_sees_the_sum_over_two_backward_calls():
    seen = []
    w = tapegrad.tensor(3., requires_grad=True)
    w.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.item()))
    (w * 2).backward()
    (w * 5).backward()
    assert seen == [2.0, 7.0]


def test_post_accumulate_hook_can_step_the_parameter_in_backward():
    # the optimizer-in-backward pattern this hook exists for
    w = tapegrad.tensor([1., 1.], requires_grad=True)

    def sgd(param):
        with tapegrad.no_grad():
            param -= 0.5 * param.grad
        param.grad = None
    w.register_post_accumulate_grad_hook(sgd)
    (w * tapegrad.tensor([2., 4.])).sum().backward()
    assert w.tolist() == [0.0, -1.0] and w.grad is None


def test_leaf_hook_registered_while_an_accumulator_is_alive():
    x = tapegrad.tensor([1., 2.], requires_grad=True)
    y = x * 3  # the graph already holds x's AccumulateGrad
    x.register_hook(lambda g: g * 0 + 7)
    y.sum().backward()
    assert x.grad.tolist() == [7.0, 7.0]


def test_node_metadata_is_a_persistent_dict():
    y = tapegrad.tensor([1.], requires_grad=True) * 2
    y.grad_fn.metadata["tag"] = "scaled"
    assert y.grad_fn.metadata == {"tag": "scaled"}


def bad_hook_errors(lib):
    x = lib.tensor([1., 2.], requires_grad=True)

    def backward_with(register):
        y = x * 2
        register(y.grad_fn)
        y.sum().backward()
    constant = lib.tensor(1.)
    return [
        error_of(lambda: backward_with(lambda n: n.register_hook(lambda gi, go: (gi[0],)))),
        error_of(lambda: backward_with(lambda n: n.register_prehook(lambda go: (go[0], go[0])))),
        error_of(lambda: backward_with(lambda n: n.register_prehook(lambda go: 3))),
        error_of(lambda: (x * 2).register_post_accumulate_grad_hook(lambda t: None)),
        error_of(lambda: constant.register_post_accumulate_grad_hook(lambda t: None)),
    ]


def test_bad_hooks_raise_torchs_errors():
    ours = bad_hook_errors(tapegrad)
    assert ours[0] == ("RuntimeError", "hook '<lambda>' has returned an incorrect number of "
                       "values (got 1, but expected 2)")
    torch = torch_or_skip()
    assert ours == bad_hook_errors(torch)


def test_leaf_hook_applies_to_autograd_grad_results():
    x = tapegrad.tensor([1., 2.], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    grad, = tapegrad.autograd.grad((x * 3).sum(), x)
    assert grad.tolist() == [6.0, 6.0]  # torch 2.13 gives the hooked gradient too


# ---- saved_tensors_hooks -------------------------------------------------------------------

def packing_scenario(lib):
    """Saved tensors travel through numpy and back; returns what backward saw and gave."""
    log = []

    def pack(tensor):
        log.append(("pack", tuple(tensor.shape), tensor.grad_fn is None))
        return tensor.detach().numpy().copy()

    def unpack(array):
        log.append(("unpack", array.shape))
        return lib.tensor(array)
    x = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
    with lib.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = x.exp()  # saves its result
        z = (y * x).sum()  # saves y and x
        x.sin()  # saves x, never unpacked: not in z's graph
    z.backward()
    return sorted(log), x.grad.tolist()


def test_saved_tensors_hooks_pack_and_unpack_astorch_or_skip():
    log, grad = packing_scenario(tapegrad)
    assert [entry[0] for entry in log].count("pack") == 4
    assert [entry[0] for entry in log].count("unpack") == 3
    assert np.allclose(grad, np.exp([1., 2.]) * np.array([2., 3.]))  # d(x e^x) = (x+1) e^x
    assert (log, grad) == packing_scenario(torch_or_skip())


def test_saved_tensors_hooks_skip_the_version_check():
    a = tapegrad.tensor([1., 2.], requires_grad=True)
    with tapegrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        b = a * 1
        d = b.exp() * b
    b.add_(1)  # torch does not check versions of tensors that went through hooks either
    d.sum().backward()
    assert a.grad is not None


def test_saved_tensors_hooks_keep_second_derivatives():
    x = tapegrad.tensor([0.5, 1.5], requires_grad=True)
    with tapegrad.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = (x.exp() * x).sum()
    grad, = tapegrad.autograd.grad(y, x, create_graph=True)
    second, = tapegrad.autograd.grad(grad.sum(), x)
    expected = np.exp([0.5, 1.5]) * (np.array([0.5, 1.5]) + 2)  # d2/dx2 of x e^x
    assert np.allclose(second.numpy(), expected)


def test_the_innermost_saved_tensors_hooks_win_and_contexts_unwind():
    seen = []
    outer = tapegrad.autograd.graph.saved_tensors_hooks(lambda t: seen.append("outer") or t,
                                                          lambda t: t)
    inner = tapegrad.autograd.graph.saved_tensors_hooks(lambda t: seen.append("inner") or t,
                                                          lambda t: t)
    x = tapegrad.tensor([1.], requires_grad=True)
    with outer:
        with inner:
            x.exp()
        x.exp()
    x.exp()
    assert seen == ["inner", "outer"]


def saved_hook_errors(lib):
    graph = lib.autograd.graph
    a = lib.tensor([1., 2.], requires_grad=True)
    with graph.saved_tensors_hooks(lambda t: 5, lambda packed: packed):
        b = a.exp()

    def enter_while_disabled():
        with graph.disable_saved_tensors_hooks("no hooks here"):
            with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                pass
    return [error_of(lambda: b.sum().backward()), error_of(enter_while_disabled)]


def test_saved_tensors_hooks_errors_matchtorch_or_skip():
    ours = saved_hook_errors(tapegrad)
    assert ours[0] == ("TypeError", "Output of saved tensor unpack_hook expected to be a Tensor "
                       "but got result of type int")
    assert ours == saved_hook_errors(torch_or_skip())


def test_save_on_cpu_gives_the_same_gradients():
    a = tapegrad.tensor([1., 2.], requires_grad=True)
    with tapegrad.autograd.graph.save_on_cpu():
        (a.sin() * a).sum().backward()
    assert np.allclose(a.grad.numpy(), np.cos([1., 2.]) * [1., 2.] + np.sin([1., 2.]))
