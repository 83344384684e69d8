"""The graph a `create_graph=True` backward records, as node names, to compare with torch.

`backward_graph(lib, fn, arrays)` runs `fn(lib, *inputs, **constants)` on float64 leaves made
from `arrays`, takes the first-order gradients with `lib.autograd.grad(..., create_graph=True)`
(the cotangent is a fixed leaf that requires grad, so the graph shows where it flows) and
describes each gradient's grad_fn: a backward node is `(name, (child, ...))` down to `depth`
levels (`(name,)` when the walk stops there), a node of the forward graph or an AccumulateGrad
is its bare name (the walk stops at it), and no node is None.

    compare(lambda lib, x: x.tanh(), [np.ones(3)])
    # (('TanhBackwardBackward0', ('AccumulateGrad', 'TanhBackward0')),)  on both sides
"""
import numpy as np
import pytest

import tapegrad


def backward_graph(lib, fn, arrays, constants=None, depth=3, requires_grad=None):
    """One description per input that requires grad (None where no gradient has a node).
    requires_grad: a flag per array (all True by default); constants: fn's keyword arguments,
    NumPy arrays among them become lib tensors."""
    flags = requires_grad or (True,) * len(arrays)
    leaves = [lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=flag)
              for a, flag in zip(arrays, flags)]
    constants = {name: lib.tensor(value) if isinstance(value, np.ndarray) else value
                 for name, value in (constants or {}).items()}
    result = fn(lib, *leaves, **constants)
    outputs = [out for out in (result if isinstance(result, (tuple, list)) else [result])
               if out.requires_grad]
    rng = np.random.default_rng(0)
    seeds = [lib.tensor(rng.uniform(0.5, 1.5, tuple(out.shape)), dtype=out.dtype,
                        requires_grad=True) for out in outputs]
    wanted = [leaf for leaf in leaves if leaf.requires_grad]
    grads = lib.autograd.grad(outputs, wanted, seeds, create_graph=True, allow_unused=True)
    forward = _forward_nodes(outputs)
    return tuple(None if g is None else _describe(g.grad_fn, forward, depth) for g in grads)


def compare(fn, arrays, constants=None, depth=3, requires_grad=None):
    """(tapegrad's description, torch's) of the same call; skips when torch is absent."""
    torch = pytest.importorskip("torch")
    return tuple(backward_graph(lib, fn, arrays, constants, depth, requires_grad)
                 for lib in (tapegrad, torch))


def _forward_nodes(outputs):
    """Every node reachable from the outputs' grad_fns (a set of ids: nodes stay alive while
    the outputs do)."""
    stack = [out.grad_fn for out in outputs if out.grad_fn is not None]
    seen = set()
    while stack:
        node = stack.pop()
        if id(node) not in seen:
            seen.add(id(node))
            stack.extend(n for n, _ in node.next_functions if n is not None)
    return seen


def _describe(node, forward, depth):
    if node is None:
        return None
    name = type(node).__name__
    if id(node) in forward or name == "AccumulateGrad":
        return name
    if depth <= 1:
        return (name,)
    return (name, tuple(_describe(n, forward, depth - 1) for n, _ in node.next_functions))
