"""The backward pass: run grad_fn nodes in dependency order, without recursion.

1. Walk the graph from the roots and count, for every node, how many edges point at it.
2. Keep one pending-gradient slot per node output; sum contributions into it.
3. A node runs once every edge into it has delivered (count 0); among ready nodes the newest
   (highest sequence_nr) runs first, as in torch. Its pending entry is popped, so gradients
   are freed as soon as they are used.
"""
from __future__ import annotations

import heapq
import itertools
import threading
from functools import partial
from typing import TYPE_CHECKING, Iterable, Mapping, Sequence

import numpy as np

from .. import _backend
from . import anomaly_mode, grad_mode
from .graph import AccumulateGrad
from .._warnings import warn

if TYPE_CHECKING:
    from typing import TypeAlias

    from .graph import Edge, Grads, Node
    from .._tensor import Tensor

    _TensorOrTensors: TypeAlias = "Tensor | Sequence[Tensor]"

CREATE_GRAPH_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this function, "
    "make sure to reset the .grad fields of your parameters to None after use to break the "
    "cycle and avoid the leak.")


def backward(tensors: _TensorOrTensors,
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             inputs: _TensorOrTensors | None = None) -> None:
    """Accumulate d(tensors)/d(leaf) . grad_tensors into the .grad of every leaf (or `inputs`)."""
    from .._tensor import Tensor
    tensors = (tensors,) if isinstance(tensors, Tensor) else tuple(tensors)
    if inputs is not None:
        inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if create_graph:
        warn(CREATE_GRAPH_WARNING, UserWarning)
    roots, seeds = _roots_and_seeds(tensors, grad_tensors)
    targets = None if inputs is None else {_input_edge(t): t for t in inputs}
    captured = run(roots, seeds, create_graph if retain_graph is None else retain_graph,
                   create_graph, targets)
    for edge, grad in captured.items():  # non-leaf inputs=...: their .grad accumulates too
        if not isinstance(edge[0], AccumulateGrad):
            targets[edge]._accumulate_grad(grad)  # type: ignore[index]  # captured: targets


def grad(outputs: _TensorOrTensors, inputs: _TensorOrTensors,
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor, ...]:
    """The gradients of outputs (weighted by grad_outputs) with respect to inputs, returned
    instead of accumulated into .grad; batched grad_outputs give one gradient per row."""
    from .._creation import zeros_like
    from .._tensor import Tensor
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    outputs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    inputs = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty.")
    retain_graph = create_graph if retain_graph is None else retain_graph
    if is_grads_batched:
        results = _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph)
    else:
        roots, seeds = _roots_and_seeds(outputs, grad_outputs)
        edges = [_input_edge(tensor) for tensor in inputs]
        captured = run(roots, seeds, retain_graph, create_graph, targets=set(edges),
                       accumulate=False)
        results = [captured.get(edge) for edge in edges]
    grads = []
    for i, (result, tensor) in enumerate(zip(results, inputs)):
        if result is None and materialize_grads:
            # unbatched even for batched grad_outputs, as torch
            result = zeros_like(tensor, requires_grad=create_graph)
        elif result is None and not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been "
                               "used in the graph. Set allow_unused=True if this is the desired "
                               "behavior.")
        grads.append(result)
    return tuple(grads)


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph):
    """One backward pass per row of the batched grad_outputs (torch vmaps a single pass); each
    input's gradients stacked along a new first dimension, None for an unused input."""
    from ..ops import stack
    seeds = _batched_seeds(outputs, grad_outputs)
    roots, _ = _roots_and_seeds(outputs, [seed[0] for seed in seeds])
    edges = [_input_edge(tensor) for tensor in inputs]
    size = seeds[0].shape[0]
    rows = []
    for index in range(size):
        # every pass but the last keeps the graph; the last frees it unless retain_graph
        captured = run(roots, [seed[index] for seed in seeds], retain_graph or index < size - 1,
                       create_graph, targets=set(edges), accumulate=False)
        rows.append([captured.get(edge) for edge in edges])
    return [None if column[0] is None else stack(column) for column in zip(*rows)]


_BATCHED_SHAPE_ERROR = (
    "If `is_grads_batched=True`, we interpret the first dimension of each grad_output as the "
    "batch dimension. The sizes of the remaining dimensions are expected to match the shape of "
    "corresponding output, but a mismatch was detected: grad_output[{i}] has a shape of "
    "{grad_shape} and output[{i}] has a shape of {output_shape}. If you only want some tensors "
    "in `grad_output` to be considered batched, consider using vmap.")
_VMAP_PREFIX = "vmap(vjp, in_dims=0, ...)(<inputs>): "


def _batched_seeds(outputs, grad_outputs):
    """Batched grad_outputs in their outputs' dtypes, checked in torch's order: its shape test
    per output, then vmap's (a Tensor with a first dimension, one batch size for all)."""
    grad_outputs = _per_output(grad_outputs, outputs)
    seeds = [_batched_seed(i, output, seed)
             for i, (output, seed) in enumerate(zip(outputs, grad_outputs))]
    for seed in seeds:
        if seed is None:
            raise ValueError(_VMAP_PREFIX + "Got in_dim=0 for an input but the input is of type "
                             "<class 'NoneType'>. We cannot vmap over non-Tensor arguments, "
                             "please use None as the respective in_dim")
        if seed.ndim == 0:
            raise ValueError(_VMAP_PREFIX + "Got in_dim=0 for some input, but that input is a "
                             "Tensor of dimensionality 0 so expected in_dim to satisfy "
                             "0 <= in_dim < 0.")
    sizes = [seed.shape[0] for seed in seeds]
    if any(size != sizes[0] for size in sizes):
        raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    for i, (output, seed) in enumerate(zip(outputs, seeds)):
        if seed.shape[1:] != output.shape:  # the implicit seed of a one-element output
            raise RuntimeError(f"invalid gradient at index {i} - got {list(seed.shape[1:])} but "
                               f"expected shape compatible with {list(output.shape)}")
    return [seed.to(output.dtype) for output, seed in zip(outputs, seeds)]


def _batched_seed(i, output, seed):
    """torch's test of one batched grad_output; None becomes the (unbatched) implicit seed."""
    from .._tensor import Tensor
    if seed is None:
        return _implicit_seed(output) if output._requires_grad else None
    if not isinstance(seed, Tensor):
        raise TypeError("gradients can be either Tensors or None, but got "
                        f"{type(seed).__name__}")
    if seed[0].shape != output.shape:  # seed[0] raises torch's IndexError for 0-d or empty
        # torch strips the batch dimension twice in this message; we copy it
        raise RuntimeError(_BATCHED_SHAPE_ERROR.format(i=i, grad_shape=seed.shape[2:],
                                                       output_shape=output.shape))
    return seed


def _per_output(grad_tensors, tensors):
    """grad_outputs as one entry per output: None for all, or a lone Tensor wrapped."""
    from .._tensor import Tensor
    if grad_tensors is None:
        return (None,) * len(tensors)
    return (grad_tensors,) if isinstance(grad_tensors, Tensor) else grad_tensors


def _implicit_seed(tensor):
    """The gradient backward() assumes for a one-element output: ones."""
    from .._tensor import Tensor
    if tensor.numel() != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs")
    if tensor.dtype.is_complex:  # a complex output has no one gradient of 1 (issue 13)
        raise RuntimeError("grad can be implicitly created only for real scalar outputs but "
                           f"got {tensor.dtype}")
    return Tensor._make(_backend.array_module(tensor._data).ones_like(tensor._data))


def _roots_and_seeds(tensors, grad_tensors):
    from .._tensor import Tensor
    grad_tensors = _per_output(grad_tensors, tensors)
    if len(grad_tensors) != len(tensors):
        raise RuntimeError(f"got {len(tensors)} tensors and {len(grad_tensors)} gradients")
    roots, seeds = [], []
    for i, (tensor, grad) in enumerate(zip(tensors, grad_tensors)):
        if not tensor._requires_grad:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not "
                               "have a grad_fn")
        if grad is None:
            grad = _implicit_seed(tensor)
        else:
            if not isinstance(grad, Tensor):
                grad = Tensor._make(np.asarray(grad, dtype=tensor._data.dtype))
            if grad.shape != tensor.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                                   f"{grad.shape} and output[{i}] has a shape of "
                                   f"{tensor.shape}.")
            grad = grad.to(tensor.dtype)
        roots.append(_input_edge(tensor))
        seeds.append(grad)
    return roots, seeds


def _input_edge(tensor):
    """The (node, output_nr) whose incoming gradient is this tensor's gradient."""
    if tensor.grad_fn is not None:
        return (tensor.grad_fn, tensor._output_nr)
    if not tensor._requires_grad:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return (tensor._grad_accumulator(), 0)


def _dependencies(roots):
    """How many edges lead into each node reachable from the roots."""
    dependencies = {}
    starts = dict.fromkeys(node for node, _ in roots)  # two roots may share a node
    stack = list(starts)
    while stack:
        node = stack.pop()
        for next_node, _ in node.next_functions:
            if next_node is None:
                continue
            count = dependencies.get(next_node)
            if count is None:  # first reached: walk on from it (roots are walked already)
                dependencies[next_node] = 1
                if next_node not in starts:
                    stack.append(next_node)
            else:
                dependencies[next_node] = count + 1
    return dependencies


def _needed(roots, targets, dependencies):
    """Nodes from which some target edge can be reached: the rest need not run."""
    target_nodes = {node for node, _ in targets}
    needed = set()
    order = []  # nodes in an order where each comes after everything that points to it
    remaining = dict(dependencies)
    ready = [node for node, _ in roots if remaining.get(node, 0) == 0]
    seen = set()
    while ready:
        node = ready.pop()
        if node in seen:
            continue
        seen.add(node)
        order.append(node)
        for next_node, _ in node.next_functions:
            if next_node is not None:
                remaining[next_node] -= 1
                if remaining[next_node] == 0:
                    ready.append(next_node)
    for node in reversed(order):
        if node in target_nodes or any(n in needed for n, _ in node.next_functions):
            needed.add(node)
    return needed


class _RunState(threading.local):
    restricted = False  # the running pass is limited to targets (grad(), backward(inputs=))


_run_state = _RunState()


def is_checkpoint_valid() -> bool:
    """Whether a reentrant checkpoint may run its backward now: not inside grad() or a
    backward(inputs=...), whose targets the nested pass could not reach."""
    return not _run_state.restricted


_arrivals = itertools.count()  # ties among ready nodes (leaves) go in order of arrival


def run(roots: Sequence[tuple[Node, int]], seeds: Iterable[Tensor | None], retain_graph: bool,
        create_graph: bool, targets: set[Edge] | Mapping[Edge, Tensor] | None = None,
        accumulate: bool = True) -> dict[Edge, Tensor]:
    """Propagate `seeds` from the `roots` edges; returns gradients reaching `targets` edges.

    targets: None to run every node, or a set/dict of (node, output_nr) edges whose gradient
    is captured; then only nodes that lead to a target run, and leaves accumulate only when
    they are targets and `accumulate` is set.
    """
    dependencies = _dependencies(roots)
    needed = None if targets is None else _needed(roots, targets, dependencies)
    pending: dict[Node, list[Tensor | None]] = {}
    for (node, output_nr), seed in zip(roots, seeds):
        _add_pending(pending, node, output_nr, seed, False)
    ready: list[tuple[float, int, Node]] = []
    for node in dict.fromkeys(node for node, _ in roots):
        if dependencies.get(node, 0) == 0:
            heapq.heappush(ready, (-node._sequence_nr, next(_arrivals), node))
    captured: dict[Edge, Tensor] = {}
    restricted, _run_state.restricted = _run_state.restricted, targets is not None
    try:
        # torch sums NaN and inf gradients silently; one error state for the whole run
        # keeps NumPy quiet in the accumulations between nodes (ops quiet their own)
        with np.errstate(all="ignore"):
            _drain(ready, pending, dependencies, needed, targets, captured, retain_graph,
                   create_graph, accumulate)
    finally:
        _run_state.restricted = restricted
    return captured


def _drain(ready, pending, dependencies, needed, targets, captured, retain_graph, create_graph,
           accumulate):
    """Run ready nodes, newest first, until none is left. A node that is the only one ready
    runs next without a trip through the heap (the common chain x -> f -> g)."""
    pop, push = heapq.heappop, heapq.heappush
    following = None  # the one node made ready by the last node, while the heap is empty
    with grad_mode.set_grad_enabled(create_graph):
        while following is not None or ready:
            if following is not None:
                node, following = following, None
            else:
                node = pop(ready)[2]
            grads = pending.pop(node, None) or [None]
            if node._pre_hooks or node._retained or node._node_hooks:
                unmark(grads)
                grads = _call_pre_hooks(node, grads)
            if targets is not None:
                for output_nr, grad in enumerate(grads):
                    if (node, output_nr) in targets and grad is not None:
                        unmark((grad,))
                        captured[(node, output_nr)] = grad
            if needed is None or (node in needed and (
                    not isinstance(node, AccumulateGrad) or accumulate and (node, 0) in targets)):
                if grads[0] is None and all(grad is None for grad in grads):
                    outputs = (None,) * len(node.next_functions)
                else:
                    wanted = needed is not None and getattr(node, "_needs_input_grad", None)
                    if wanted:  # only the formulas of inputs that lead to a target run
                        node._needs_input_grad = [w and edge[0] in needed for w, edge in
                                                  zip(wanted, node.next_functions)]
                    try:
                        outputs = (anomaly_mode.checked_apply(node, partial(node.apply, grads))
                                   if anomaly_mode._enabled else node.apply(grads))
                    finally:
                        if wanted:
                            node._needs_input_grad = wanted
                    if len(outputs) != len(node.next_functions):
                        raise RuntimeError(
                            f"function {node.name()} returned an incorrect number of gradients "
                            f"(expected {len(node.next_functions)}, got {len(outputs)})")
                if not retain_graph:
                    node.release_saved()
                if node._node_hooks and node._node_hooks[1]:
                    unmark(outputs)
                    outputs = _call_post_hooks(node, _validated(node, outputs), grads)
            else:
                outputs = (None,) * len(node.next_functions)
            for (next_node, output_nr), grad, metadata in zip(node.next_functions, outputs,
                                                              node._input_metadata):
                if next_node is None:
                    continue
                if grad is not None:
                    if grad._data.shape != metadata[0] or grad.dtype is not metadata[1]:
                        grad = _validate(grad, metadata)
                    if output_nr == 0 and next_node not in pending:  # the first to arrive
                        pending[next_node] = [grad]
                    else:
                        _add_pending(pending, next_node, output_nr, grad, create_graph)
                count = dependencies[next_node] - 1
                dependencies[next_node] = count
                if count == 0:
                    if following is None and not ready:
                        following = next_node
                    else:
                        if following is not None:
                            push(ready, (-following._sequence_nr, next(_arrivals), following))
                            following = None
                        push(ready, (-next_node._sequence_nr, next(_arrivals), next_node))


def summed_dims(shape: tuple[int, ...], size: tuple[int, ...]) -> tuple[int, ...] | None:
    """Note [Broadcast reduction]: the dims of `shape` that broadcasting from `size` added or
    stretched; None when size does not broadcast to shape."""
    lead = len(shape) - len(size)
    if lead < 0:
        return None
    dims = list(range(lead))
    for i, n in enumerate(size):
        if n != shape[lead + i]:
            if n != 1:
                return None
            dims.append(lead + i)
    return tuple(dims)


def recorded_first_grad(tensor: Tensor, grad: Tensor) -> Tensor:
    """What a create_graph backward stores as tensor.grad when it had none: a copy that stays
    in the graph, as torch's. A leaf gets `empty.copy_(grad)` in its own layout (CopyBackwards,
    with no edge for the empty tensor), a retained or `inputs=` non-leaf a clone."""
    from ..ops import clone  # type: ignore[attr-defined]  # ops binds it at import
    from ..ops._inplace import _copy
    if tensor.grad_fn is not None:
        return clone(grad)
    copied = _copy(tensor.detach(), grad)
    # torch's copy keeps the leaf's strides
    layout = _backend.array_module(tensor._data).empty_like(tensor._data)
    layout[...] = copied._data
    copied._data = layout
    copied._bump_version()  # copy_ wrote into it
    return copied


# Note [Unshared gradients]
# A gradient may be held by several owners (add's backward hands one gradient to both inputs;
# a formula may return its incoming gradient), so summing into it or making it a leaf's .grad
# would need a copy. A large gradient known to be held by the engine alone is marked
# _unshared: one a formula computed afresh (ops/_define.py) or a sum the engine allocated.
# Later gradients are added into it in place, and AccumulateGrad takes it as the leaf's .grad
# without a copy (as torch steals a gradient no one else holds). Hooks see gradients as
# anyone's, so they unmark them.
UNSHARED_SIZE = 4096  # below this, a copy costs less than the bookkeeping


def _add_pending(pending, node, output_nr, grad, create_graph):
    """Sum a gradient into the node's input buffer (shapes and dtypes already match)."""
    slots = pending.get(node)
    if slots is None:
        slots = pending[node] = [None] * (output_nr + 1)
    elif len(slots) <= output_nr:
        slots.extend([None] * (output_nr + 1 - len(slots)))
    current = slots[output_nr]
    if current is None:
        slots[output_nr] = grad
    elif create_graph:
        slots[output_nr] = current + grad
    elif current._unshared:
        current._data += grad._data
    else:
        total = current._data + grad._data
        if type(total) is not type(grad._data):  # NumPy's 0-d sum is a scalar
            total = np.asarray(total)
        total = type(grad)._make(total, grad.dtype)
        if total._data.size >= UNSHARED_SIZE:
            total._unshared = True
        slots[output_nr] = total


def unmark(grads: Grads) -> None:
    """Note [Unshared gradients]: these gradients are seen by user code from now on."""
    for grad in grads:
        if grad is not None and grad._unshared:
            grad._unshared = False


def _call_pre_hooks(node, grads):
    """Tensor hooks registered on this node's outputs (they may replace the gradient), then
    retain_grad, which sees the hooked gradient, then the node's own pre-hooks, as in torch."""
    if node._pre_hooks:
        for output_nr, hooks in node._pre_hooks.items():
            for hook in list(hooks.values()):
                if output_nr < len(grads) and grads[output_nr] is not None:
                    replaced = hook(grads[output_nr])
                    if replaced is not None:
                        grads[output_nr] = replaced
    if node._retained:
        for output_nr, ref in node._retained.items():
            tensor = ref()
            if tensor is not None and output_nr < len(grads) and grads[output_nr] is not None:
                tensor._accumulate_grad(grads[output_nr])
    if node._node_hooks and node._node_hooks[0]:
        n_outputs = getattr(node, "_n_outputs", len(grads))
        grads = list(grads) + [None] * (n_outputs - len(grads))
        for hook in list(node._node_hooks[0].values()):
            grads = list(_hook_result(hook, hook(tuple(grads)), grads))
    return grads


def _call_post_hooks(node, grad_inputs, grad_outputs):
    """The node's hooks see (grad_inputs, grad_outputs) and may replace grad_inputs."""
    grad_inputs, grad_outputs = tuple(grad_inputs), tuple(grad_outputs)
    for hook in list(node._node_hooks[1].values()):
        grad_inputs = _hook_result(hook, hook(grad_inputs, grad_outputs), grad_inputs)
    return grad_inputs


def _hook_result(hook, result, values):
    if result is None:
        return values
    if not isinstance(result, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(result).__name__}'")
    if len(result) != len(values):
        name = getattr(hook, "__name__", type(hook).__name__)
        raise RuntimeError(f"hook '{name}' has returned an incorrect number of values (got "
                           f"{len(result)}, but expected {len(values)})")
    return result


def _validated(node, outputs):
    """Every output gradient already in its input's shape and dtype, as node hooks see it."""
    return [grad if grad is None or metadata is None else _validate(grad, metadata)
            for grad, metadata in zip(outputs, node._input_metadata)]


def _validate(grad, metadata):
    """Note [Broadcast reduction]: sum a gradient back to its input's shape; match its dtype."""
    shape, dtype = metadata
    if grad._data.shape != shape:
        summed = (None if grad_mode._state.recording or grad._data.dtype.kind != "f"
                  else summed_dims(grad._data.shape, shape))
        if summed is None:  # recorded, not floating, or not expandable (which it raises)
            from ..ops import sum_to_size
            grad = sum_to_size(grad, shape)
        else:  # not recording: the summation SumBackward1's forward does, on the array
            grad = type(grad)._make(grad._data.sum(axis=summed, keepdims=True)
                                    .reshape(shape), grad.dtype)
            if grad._data.size >= UNSHARED_SIZE:  # a sum the engine allocated
                grad._unshared = True
    if grad.dtype is not dtype:
        if grad.dtype.is_complex and not dtype.is_complex:
            # a real input of a complex op takes the real part (torch's handle_r_to_c): one
            # place for every formula, and no casting warning (issue 13)
            from ..ops import real
            grad = real(grad)
        grad = grad.to(dtype)
    return grad
