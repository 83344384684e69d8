"""tapegrad.func against torch.func: grad, grad_and_value, vjp, jvp, jacrev, jacfwd, hessian,
vmap, functional_call and stack_module_state, alone and composed."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

X = np.array([0.3, -1.2, 2.0])
Y = np.array([[0.5, 1.5, -0.7], [1.1, -0.4, 0.9]])


def f(lib, x):
    return (lib.sin(x) * x ** 2).sum()


def g(lib, x, y):
    return lib.tanh(y @ x) * x[0]


def both(build):
    """build(lib) for tapegrad and torch, as NumPy trees."""
    torch = torch_or_skip()
    return [_numpy(build(lib)) for lib in (tapegrad, torch)]


def _numpy(value):
    if isinstance(value, (tuple, list)):
        return [_numpy(v) for v in value]
    if isinstance(value, dict):
        return {k: _numpy(v) for k, v in value.items()}
    if hasattr(value, "detach"):
        return (value.detach().numpy(), value.requires_grad)
    return value


def assert_same(mine, theirs):
    if isinstance(theirs, list):
        assert isinstance(mine, list) and len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            assert_same(a, b)
    elif isinstance(theirs, dict):
        assert isinstance(mine, dict) and list(mine) == list(theirs)
        for key in theirs:
            assert_same(mine[key], theirs[key])
    elif isinstance(theirs, tuple) and len(theirs) == 2 and isinstance(theirs[0], np.ndarray):
        np.testing.assert_allclose(mine[0], theirs[0], rtol=1e-10, atol=1e-12)
        assert mine[0].shape == theirs[0].shape and mine[1] == theirs[1]
    else:
        assert mine == theirs


def t(lib, value):
    return lib.tensor(value, dtype=lib.float64)


TRANSFORMS = {
    "grad": lambda lib: lib.func.grad(lambda x: f(lib, x))(t(lib, X)),
    "grad_and_value": lambda lib: lib.func.grad_and_value(lambda x: f(lib, x))(t(lib, X)),
    "grad_argnums": lambda lib: lib.func.grad(lambda x, y: g(lib, x, y).sum(), argnums=(0, 1))(
        t(lib, X), t(lib, Y)),
    "grad_has_aux": lambda lib: lib.func.grad(lambda x: (f(lib, x), x.cos()), has_aux=True)(
        t(lib, X)),
    "grad_of_grad": lambda lib: lib.func.grad(lambda x: lib.func.grad(
        lambda y: (y ** 3).sum())(x).sum())(t(lib, X)),
    "grad_closing_over": lambda lib: lib.func.grad(lambda x: lib.func.grad(
        lambda y: (x * y).sum())(x).sum())(t(lib, X)),
    "grad_of_dict": lambda lib: lib.func.grad(lambda p: (p["a"] ** 2).sum() + p["b"].sum())(
        {"a": t(lib, X), "b": t(lib, Y)}),
    "vjp": lambda lib: (lambda out, fn: (out, fn(t(lib, [1.0, -2.0]))))(
        *lib.func.vjp(lambda x: g(lib, x, t(lib, Y)), t(lib, X))),
    "jvp": lambda lib: lib.func.jvp(lambda x: g(lib, x, t(lib, Y)), (t(lib, X),),
                                    (t(lib, [1.0, 0.5, -1.0]),)),
    "jacrev": lambda lib: lib.func.jacrev(lambda x: g(lib, x, t(lib, Y)))(t(lib, X)),
    "jacrev_argnums": lambda lib: lib.func.jacrev(lambda x, y: g(lib, x, y), argnums=(0, 1))(
        t(lib, X), t(lib, Y)),
    "jacfwd": lambda lib: lib.func.jacfwd(lambda x: g(lib, x, t(lib, Y)))(t(lib, X)),
    "jacfwd_argnums": lambda lib: lib.func.jacfwd(lambda x, y: g(lib, x, y), argnums=(0, 1))(
        t(lib, X), t(lib, Y)),
    "hessian": lambda lib: lib.func.hessian(lambda x: f(lib, x))(t(lib, X)),
    "vmap": lambda lib: lib.func.vmap(lib.dot)(t(lib, Y), t(lib, Y)),
    "vmap_in_dims": lambda lib: lib.func.vmap(lambda a, b: a * b, in_dims=(1, None))(
        t(lib, Y), t(lib, [2.0, 3.0])),
    "vmap_out_dims": lambda lib: lib.func.vmap(lambda a: (a.exp(), a.sum()), out_dims=(1, 0))(
        t(lib, Y)),
    "vmap_of_grad": lambda lib: lib.func.vmap(lib.func.grad(lambda x: f(lib, x)))(t(lib, Y)),
    "jacrev_of_vmap": lambda lib: lib.func.jacrev(lib.func.vmap(lambda x: x.sin().sum()))(
        t(lib, Y)),
}


@pytest.mark.parametrize("name", TRANSFORMS)
def test_transform_matches_torch(name):
    mine, theirs = both(TRANSFORMS[name])
    assert_same(mine, theirs)


def test_grad_without_torch():
    x = tapegrad.tensor([1.0, 2.0], dtype=tapegrad.float64)
    np.testing.assert_allclose(tapegrad.func.grad(lambda v: (v ** 3).sum())(x).numpy(),
                               [3.0, 12.0])
    second = tapegrad.func.grad(lambda v: tapegrad.func.grad(lambda w: (w ** 3).sum())(v).sum())
    np.testing.assert_allclose(second(x).numpy(), [6.0, 12.0])


def test_results_join_an_enclosing_graph():
    x = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    gradient = tapegrad.func.grad(lambda v: (v ** 3).sum())(x)
    assert gradient.requires_grad
    gradient.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 12.0])


ERRORS = {
    "grad_not_scalar": lambda lib: lib.func.grad(lambda x: x)(t(lib, X)),
    "grad_argnum_range": lambda lib: lib.func.grad(lambda x: x.sum(), argnums=(0, 1))(
        t(lib, X)),
    "grad_aux_not_tuple": lambda lib: lib.func.grad(lambda x: x.sum(), has_aux=True)(
        t(lib, X)),
    "grad_integer": lambda lib: lib.func.grad(lambda x: x.sum())(lib.ones(2, dtype=lib.long)),
    "vmap_sizes": lambda lib: lib.func.vmap(lambda a, b: a + b)(lib.ones(2), lib.ones(3)),
    "vmap_dim_range": lambda lib: lib.func.vmap(lambda a: a, in_dims=1)(lib.ones(2)),
    "vmap_number": lambda lib: lib.func.vmap(lambda a: a)(5),
    "vmap_random": lambda lib: lib.func.vmap(lambda a: lib.rand(2))(lib.ones(2, 3)),
    "vmap_randomness_name": lambda lib: lib.func.vmap(lambda a: a, randomness="sometimes"),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    torch = torch_or_skip()
    raised = []
    for lib in (tapegrad, torch):
        with pytest.raises(Exception) as info:
            ERRORS[name](lib)
        raised.append((type(info.value).__name__, str(info.value)))
    assert raised[0] == raised[1]


def test_vmap_randomness_same_gives_every_slice_the_same_numbers():
    tapegrad.manual_seed(0)
    rows = tapegrad.func.vmap(lambda a: a + tapegrad.rand(3), randomness="same")(
        tapegrad.zeros(4, 3))
    assert all(np.array_equal(rows[0].numpy(), row.numpy()) for row in rows)
    different = tapegrad.func.vmap(lambda a: a + tapegrad.rand(3), randomness="different")(
        tapegrad.zeros(4, 3))
    assert not np.array_equal(different[0].numpy(), different[1].numpy())


def test_functional_call_and_stack_module_state_match_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        lib.manual_seed(0)
        models = [lib.nn.Linear(3, 2).double() for _ in range(3)]
        params, buffers = lib.func.stack_module_state(models)
        x = t(lib, X)

        def run(p, b):
            return lib.func.functional_call(models[0], (p, b), (x,))
        results.append([lib.func.vmap(run)(params, buffers),
                        lib.func.functional_call(models[1], {"weight": params["weight"][2],
                                                             "bias": params["bias"][2]}, x),
                        models[0].weight])
    mine, theirs = (_numpy(r) for r in results)
    assert_same(mine, theirs)


def test_stateless_functional_call_warns_as_torch():
    torch = torch_or_skip()
    messages = []
    for lib in (tapegrad, torch):
        layer = lib.nn.Linear(2, 1)
        with pytest.warns(FutureWarning) as caught:
            out = lib.nn.utils.stateless.functional_call(
                layer, {"weight": lib.ones(1, 2), "bias": lib.zeros(1)}, (lib.ones(1, 2),))
        messages.append((str(caught[0].message), out.item()))
    assert messages[0] == messages[1]
