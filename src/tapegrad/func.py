"""tapegrad.func: torch.func's function transforms on top of the tape.

grad, vjp, jvp, jacrev, jacfwd and hessian call the function on fresh differentiable copies
of its inputs and ask the tape for derivatives; where an input already takes part in a graph
(an enclosing transform, or a tensor that requires grad) the copy is a view of it and the
derivatives are recorded (create_graph), so the transforms compose: grad(grad(f)), jacfwd of
jacrev. vmap maps the function over a dimension by calling it once per slice and stacking the
results. functional_call runs a module with other parameters and buffers.
"""
from __future__ import annotations

import contextlib
import functools
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, Callable, ParamSpec, TypeVar, cast

from . import _random, random
from ._tensor import Tensor
from .autograd import enable_grad
from .autograd import grad as autograd_grad

if TYPE_CHECKING:
    from typing import TypeAlias

    from .nn import Module, ModuleList

    # torch.func's: which positional arguments to differentiate, and vmap's mapped dims
    argnums_t: TypeAlias = "int | tuple[int, ...]"
    in_dims_t: TypeAlias = "int | tuple[Any, ...]"
    out_dims_t: TypeAlias = "int | tuple[int, ...] | None"

_P = ParamSpec("_P")
_R = TypeVar("_R")

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "stack_module_state", "vjp", "vmap"]


# ---- pytrees: tensors nested in tuples, lists and dicts ------------------------------------

def _flatten(tree: Any) -> tuple[list[Any], Callable[[Sequence[Any]], Any]]:
    """(leaves, rebuild): the leaves of nested tuples/lists/dicts, and a function that puts
    new leaves back in the same structure."""
    if isinstance(tree, (tuple, list)):
        parts = [_flatten(item) for item in tree]
        counts = [len(leaves) for leaves, _ in parts]

        def rebuild(leaves: Sequence[Any]) -> Any:
            items, start = [], 0
            for (_, build), count in zip(parts, counts):
                items.append(build(leaves[start:start + count]))
                start += count
            return type(tree)(items) if type(tree) in (tuple, list) else type(tree)(*items)
        return [leaf for leaves, _ in parts for leaf in leaves], rebuild
    if isinstance(tree, dict):
        keys = list(tree)
        leaves, build = _flatten([tree[key] for key in keys])
        return leaves, lambda new: dict(zip(keys, build(new)))
    return [tree], lambda new: new[0]


# ---- differentiable copies of the inputs -----------------------------------------------------

def _differentiable_copy(tensor: Any) -> Any:
    """A new variable for the transform: an alias of a tensor already in a graph (so the
    enclosing graph sees through it), else a fresh leaf."""
    if not isinstance(tensor, Tensor):
        return tensor
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise RuntimeError("only Tensors of floating point dtype can require gradients")
    return tensor.view_as(tensor) if tensor.requires_grad else tensor.detach().requires_grad_()


def _is_recorded(tensors: Iterable[Any]) -> bool:
    """Whether some input is part of a graph: the derivatives must then be recorded."""
    return any(isinstance(t, Tensor) and t.requires_grad for t in tensors)


def _argnums_tuple(argnums: argnums_t, args: Sequence[Any], name: str) -> tuple[int, ...]:
    numbers: tuple[int, ...]
    if isinstance(argnums, int):
        numbers = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(n, int) for n in argnums):
        numbers = argnums
    else:
        raise RuntimeError(f"{name}: argnums must be int or Tuple[int, ...], got: "
                           f"{type(argnums).__name__}")
    for number in numbers:
        if not -len(args) <= number < len(args):
            raise RuntimeError(f"Got argnum={number}, but only {len(args)} positional inputs")
    return numbers


def _split_aux(output: Any, has_aux: bool, name: str) -> tuple[Any, Any]:
    if not has_aux:
        return output, None
    if not (isinstance(output, tuple) and len(output) == 2):
        raise RuntimeError(f"{name}(f)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return output


def _detached(tree: Any, keep: bool) -> Any:
    """The results of a transform: detached unless an enclosing graph needs them."""
    leaves, rebuild = _flatten(tree)
    return rebuild([leaf.detach() if isinstance(leaf, Tensor) and not keep else leaf
                    for leaf in leaves])


# ---- grad, vjp, jvp ------------------------------------------------------------------------

def grad_and_value(func: Callable[_P, Any], argnums: argnums_t = 0,
                   has_aux: bool = False) -> Callable[_P, tuple[Any, Any]]:
    """A function returning (gradient of func's scalar output w.r.t. args[argnums], output)."""
    call: Callable[..., Any] = func  # called with differentiable copies in place of the args

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        numbers = _argnums_tuple(argnums, args, "grad_and_value")
        recorded = _is_recorded(args)
        arguments = list(args)
        variables = []
        for number in numbers:
            leaves, rebuild = _flatten(arguments[number])
            copies = [_differentiable_copy(leaf) for leaf in leaves]
            variables.append((copies, rebuild))
            arguments[number] = rebuild(copies)
        with enable_grad():
            output, aux = _split_aux(call(*arguments, **kwargs), has_aux, "grad_and_value")
            if not isinstance(output, Tensor):
                raise RuntimeError("grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(output)}")
            if output.dim() != 0:
                raise RuntimeError(
                    "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, "
                    f"got tensor with {output.dim()} dims. Maybe you wanted to use the vjp "
                    "or jacrev APIs instead?")
            flat = [copy for copies, _ in variables for copy in copies]
            grads = autograd_grad(output, flat, create_graph=recorded, allow_unused=True,
                                  materialize_grads=True)
        per_arg, start = [], 0
        for copies, rebuild in variables:
            per_arg.append(rebuild(list(grads[start:start + len(copies)])))
            start += len(copies)
        result = per_arg[0] if isinstance(argnums, int) else tuple(per_arg)
        result, output = _detached(result, recorded), _detached(output, recorded)
        if has_aux:
            return result, (output, _detached(aux, recorded))
        return result, output
    return wrapper


def grad(func: Callable[_P, Any], argnums: argnums_t = 0,
         has_aux: bool = False) -> Callable[_P, Any]:
    """A function returning the gradient of func's scalar output w.r.t. args[argnums]."""
    with_value = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> Any:
        gradient, value = with_value(*args, **kwargs)
        return (gradient, value[1]) if has_aux else gradient
    return wrapper


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False
        ) -> tuple[Any, Callable[..., Any]] | tuple[Any, Callable[..., Any], Any]:
    """(func(*primals), vjp_fn[, aux]): vjp_fn(cotangents) gives one gradient per primal."""
    recorded = _is_recorded(_flatten(list(primals))[0])
    leaves, rebuild = _flatten(list(primals))
    copies = [_differentiable_copy(leaf) for leaf in leaves]
    with enable_grad():
        output, aux = _split_aux(func(*rebuild(copies)), has_aux, "vjp")
    outputs, _ = _flatten(output)

    def vjp_fn(cotangents: Any) -> tuple[Any, ...]:
        cotangent_leaves, _ = _flatten(cotangents)
        if len(cotangent_leaves) != len(outputs):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               "pytree structure of outputs to the function")
        with enable_grad():
            # vjp_fn may be called again (jacrev calls it once per output element)
            grads = autograd_grad(outputs, copies, cotangent_leaves, retain_graph=True,
                                  create_graph=recorded or _is_recorded(cotangent_leaves),
                                  allow_unused=True, materialize_grads=True)
        return tuple(rebuild(list(grads)))
    result = (_detached(output, recorded), vjp_fn)
    return result + (_detached(aux, recorded),) if has_aux else result


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, Any] | tuple[Any, Any, Any]:
    """(func(*primals), the Jacobian-vector product with tangents), by the double-vjp trick:
    the derivative of a linear function of a dummy cotangent."""
    if not isinstance(primals, tuple) or not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be "
                           "tuples. E.g. jvp(f, (x,), (t,))")
    primal_leaves, rebuild = _flatten(list(primals))
    tangent_leaves, _ = _flatten(list(tangents))
    if len(primal_leaves) != len(tangent_leaves):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           "the same python structure.")
    recorded = _is_recorded(primal_leaves) or _is_recorded(tangent_leaves)
    copies = [_differentiable_copy(leaf) for leaf in primal_leaves]
    with enable_grad():
        output, aux = _split_aux(func(*rebuild(copies)), has_aux, "jvp")
        outputs, rebuild_output = _flatten(output)
        dummies = [o.detach().new_zeros(o.shape).requires_grad_() for o in outputs]
        vjps = autograd_grad(outputs, copies, dummies, create_graph=True, allow_unused=True,
                             materialize_grads=True)
        pairing = [v for v in vjps if v.requires_grad]
        jvps = (autograd_grad(pairing, dummies,
                              [t.to(v.dtype) for v, t in zip(vjps, tangent_leaves)
                               if v.requires_grad],
                              create_graph=recorded, allow_unused=True, materialize_grads=True)
                if pairing else [d.detach().zero_() for d in dummies])
    result = (_detached(output, recorded), _detached(rebuild_output(list(jvps)), recorded))
    return result + (_detached(aux, recorded),) if has_aux else result


# ---- Jacobians and Hessians ----------------------------------------------------------------

def _basis(tensor: Tensor) -> list[Tensor]:
    """The standard basis of tensor's space, one tensor of its shape per element."""
    eye = tensor.new_zeros((tensor.numel(), tensor.numel()))
    eye.diagonal().fill_(1)
    return [row.reshape(tensor.shape) for row in eye]


def jacrev(func: Callable[..., Any], argnums: argnums_t = 0, *, has_aux: bool = False,
           chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """The Jacobian of func w.r.t. args[argnums] by reverse mode, one vjp per output element;
    each output's Jacobian has shape output.shape + input.shape."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        numbers = _argnums_tuple(argnums, args, "jacrev")

        def of_selected(*selected: Any) -> Any:
            full = list(args)
            for number, value in zip(numbers, selected):
                full[number] = value
            return func(*full, **kwargs)
        output, pullback, *aux = vjp(of_selected, *(args[n] for n in numbers), has_aux=has_aux)
        outputs, rebuild = _flatten(output)
        jacobians = []
        for index, out in enumerate(outputs):
            rows = []
            for direction in _basis(out):
                cotangents = [direction if i == index else o.new_zeros(o.shape)
                              for i, o in enumerate(outputs)]
                rows.append(pullback(rebuild(cotangents)))
            per_input = [_stack_rows([row[k] for row in rows], out.shape, args[n])
                         for k, n in enumerate(numbers)]
            jacobians.append(per_input[0] if isinstance(argnums, int) else tuple(per_input))
        result = rebuild(jacobians)
        return (result, aux[0]) if has_aux else result
    return wrapper


def _stack_rows(rows: list[Tensor], output_shape: Sequence[int], input: Tensor) -> Tensor:
    """Gradients, one per output element, as one tensor of output_shape + input's shape."""
    from .ops.joining import stack
    if not rows:
        return input.new_zeros(tuple(output_shape) + tuple(input.shape))
    return stack(rows).reshape(tuple(output_shape) + tuple(input.shape))


def jacfwd(func: Callable[..., Any], argnums: argnums_t = 0, has_aux: bool = False, *,
           randomness: str = "error") -> Callable[..., Any]:
    """The Jacobian of func w.r.t. args[argnums] by forward mode, one jvp per input element;
    each output's Jacobian has shape output.shape + input.shape."""
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        numbers = _argnums_tuple(argnums, args, "jacfwd")
        primals = tuple(args[n] for n in numbers)

        def of_selected(*selected: Any) -> Any:
            full = list(args)
            for number, value in zip(numbers, selected):
                full[number] = value
            return func(*full, **kwargs)
        per_input, aux = [], None
        for k, primal in enumerate(primals):
            columns = []
            for direction in _basis(primal):
                tangents = tuple(direction if j == k else p.new_zeros(p.shape)
                                 for j, p in enumerate(primals))
                output, tangent_out, *aux = jvp(of_selected, primals, tangents,
                                                has_aux=has_aux)
                columns.append(tangent_out)
            per_input.append(_columns_to_jacobian(columns, output, primal))
        if isinstance(argnums, int):
            result = per_input[0]
        else:  # each output: a tuple over the inputs
            outputs, rebuild = _flatten(output)
            flats = [_flatten(jacobian)[0] for jacobian in per_input]
            result = rebuild([tuple(flat[i] for flat in flats) for i in range(len(outputs))])
        return (result, aux[0]) if has_aux else result
    return wrapper


def _columns_to_jacobian(columns: list[Any], output: Any, input: Tensor) -> Any:
    """Jacobian-vector products, one per input element, as output.shape + input.shape."""
    from .ops.joining import stack
    outputs, rebuild = _flatten(output)
    jacobians = []
    for index, out in enumerate(outputs):
        column_leaves = [_flatten(column)[0][index] for column in columns]
        stacked = (stack(column_leaves, dim=-1) if column_leaves
                   else out.new_zeros(tuple(out.shape) + (0,)))
        jacobians.append(stacked.reshape(tuple(out.shape) + tuple(input.shape)))
    return rebuild(jacobians)


def hessian(func: Callable[..., Any], argnums: argnums_t = 0) -> Callable[..., Any]:
    """The Hessian of func's scalar output: jacfwd of jacrev."""
    return jacfwd(jacrev(func, argnums), argnums)


# ---- vmap ----------------------------------------------------------------------------------

def vmap(func: Callable[_P, _R], in_dims: in_dims_t = 0, out_dims: out_dims_t = 0,
         randomness: str = "error", *, chunk_size: int | None = None) -> Callable[_P, _R]:
    """func mapped over dimension in_dims of its inputs, results stacked along out_dims.
    randomness: "error" refuses random ops inside, "same" gives every slice the same random
    numbers, "different" draws for each slice in turn (torch draws for the whole batch at
    once, so the numbers differ from torch's)."""
    if randomness not in ("error", "same", "different"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    name = getattr(func, "__name__", type(func).__name__)
    call: Callable[..., _R] = func  # called with slices in place of the args

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> _R:
        dims = _in_dims_per_leaf(in_dims, args, name)
        leaves, rebuild = _flatten(list(args))
        sizes = {leaf.shape[dim] for leaf, dim in zip(leaves, dims) if dim is not None}
        if not sizes:
            raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): at least one "
                             "input must be a Tensor mapped over a dimension")
        if len(sizes) > 1:
            found = [leaf.shape[dim] for leaf, dim in zip(leaves, dims) if dim is not None]
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {found} for the mapped dimension")
        size = sizes.pop()
        results = []
        # "same": every slice draws what the first drew, from the cpu's and each device's
        devices = random.every_device() if randomness == "same" else []
        state = random.states_of(devices) if randomness == "same" else None
        for index in range(size):
            if state is not None:
                random.restore_states(devices, state)
            sliced = [leaf.select(dim, index) if dim is not None else leaf
                      for leaf, dim in zip(leaves, dims)]
            with _random_guard(randomness):
                results.append(call(*rebuild(sliced), **kwargs))
        return _stacked(results, out_dims, name)
    return wrapper


@contextlib.contextmanager
def _random_guard(randomness):
    if randomness != "error":
        yield
        return
    previous = _random.Generator.forbidden
    _random.Generator.forbidden = (
        "vmap: called random operation while in randomness error mode. Please either use the "
        "'same' or 'different' randomness flags on vmap or perform the randomness operation "
        "out of vmap")
    try:
        yield
    finally:
        _random.Generator.forbidden = previous


def _in_dims_per_leaf(in_dims: in_dims_t | None, args: tuple[Any, ...], name: str
                      ) -> list[int | None]:
    """One mapped dim (or None) per input leaf, checked, in_dims broadcast over the args."""
    per_arg = (in_dims,) * len(args) if isinstance(in_dims, int) or in_dims is None else in_dims
    if not isinstance(per_arg, (tuple, list)) or len(per_arg) != len(args):
        raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"of length {len(per_arg) if isinstance(per_arg, (tuple, list)) else 1}"
                         f" but inputs has structure of length {len(args)}.")
    dims: list[int | None] = []
    for arg, dim in zip(args, per_arg):
        leaves, _ = _flatten(arg)
        dim_leaves = _flatten(dim)[0] if isinstance(dim, (tuple, list, dict)) else [dim] * len(
            leaves)
        for leaf, leaf_dim in zip(leaves, dim_leaves):
            if leaf_dim is None:
                dims.append(None)
                continue
            if not isinstance(leaf, Tensor):
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got "
                                 f"in_dim={leaf_dim} for an input but the input is of type "
                                 f"{type(leaf)}. We cannot vmap over non-Tensor arguments, "
                                 "please use None as the respective in_dim")
            if not -leaf.dim() <= leaf_dim < leaf.dim():
                raise ValueError(f"vmap({name}, in_dims={in_dims}, ...)(<inputs>): Got "
                                 f"in_dim={leaf_dim} for some input, but that input is a Tensor "
                                 f"of dimensionality {leaf.dim()} so expected in_dim to satisfy "
                                 f"-{leaf.dim()} <= in_dim < {leaf.dim()}.")
            dims.append(leaf_dim % leaf.dim())
    return dims


def _stacked(results: list[Any], out_dims: out_dims_t, name: str) -> Any:
    """Per-slice results stacked along out_dims, in the results' structure."""
    from .ops.joining import stack
    flats = [_flatten(result)[0] for result in results]
    _, rebuild = _flatten(results[0])
    count = len(flats[0])
    dims = (_flatten(out_dims)[0] if isinstance(out_dims, (tuple, list)) else [out_dims] * count)
    if len(dims) != count:
        raise ValueError(f"vmap({name}, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                         "compatible with the structure of `outputs`.")
    stacked = []
    for position, dim in enumerate(dims):
        values = [flat[position] for flat in flats]
        if not isinstance(values[0], Tensor):
            raise ValueError(f"vmap({name}, ...): `{name}` must only return Tensors, got type "
                             f"{type(values[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        stacked.append(values[0] if dim is None else stack(values, dim=dim))
    return rebuild(stacked)


# ---- modules as functions ------------------------------------------------------------------

def functional_call(module: Module,
                    parameter_and_buffer_dicts: dict[str, Tensor] | Sequence[dict[str, Tensor]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """module(*args, **kwargs) with the named tensors in place of its own parameters and
    buffers (theirs back afterwards)."""
    dicts = (parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (list, tuple))
             else [cast("dict[str, Tensor]", parameter_and_buffer_dicts)])  # not a list: a dict
    replacements = {}
    for mapping in dicts:
        for key, value in mapping.items():
            if key in replacements:
                raise ValueError(f"{key} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            replacements[key] = value
    own: dict[str, Tensor] = dict(module.named_parameters(remove_duplicate=False))
    own.update(module.named_buffers(remove_duplicate=False))
    if strict:
        missing = sorted(set(own) - set(replacements))
        unexpected = sorted(set(replacements) - set(own))
        if missing or unexpected:
            parts = [f"Unexpected key(s): {', '.join(map(repr, unexpected))}."] if unexpected \
                else []
            parts += [f"Missing key(s): {', '.join(map(repr, missing))}."] if missing else []
            raise RuntimeError("Error(s) in reparametrizing for " f"{module._get_name()}:\n\t"
                               + "\n\t".join(parts))
    if tie_weights:  # a tensor shared under two names takes the replacement of either
        by_identity: dict[int, list[str]] = {}
        for key, value in own.items():
            by_identity.setdefault(id(value), []).append(key)
        for keys in by_identity.values():
            given = [replacements[k] for k in keys if k in replacements]
            if given:
                for key in keys:
                    replacements.setdefault(key, given[0])
    args = () if args is None else args if isinstance(args, tuple) else (args,)
    saved = []
    try:
        for key, value in replacements.items():
            owner, name = _owner_of(module, key)
            # a replacement goes in the parameter's (or buffer's) own slot, a plain tensor too
            slot: dict[str, Any] | None = owner._parameters if name in owner._parameters else (
                owner._buffers if name in owner._buffers else None)
            saved.append((owner, name, slot, slot[name] if slot is not None else None))
            if slot is not None:
                slot[name] = value
            else:
                setattr(owner, name, value)
        return module(*args, **(kwargs or {}))
    finally:
        for owner, name, slot, value in reversed(saved):
            if slot is not None:
                slot[name] = value
            else:
                delattr(owner, name)


def _owner_of(module: Module, key: str) -> tuple[Module, str]:
    *path, name = key.split(".")
    for part in path:
        module = getattr(module, part)
    return module, name


def stack_module_state(models: Sequence[Module] | ModuleList
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(params, buffers): each name's tensors of every model stacked along a new dim 0."""
    from .ops.joining import stack
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/"
                           "eval mode.")
    if len({type(m) for m in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = {name: stack([dict(m.named_parameters())[name] for m in models]).detach()
              .requires_grad_() for name, _ in models[0].named_parameters()}
    buffers = {name: stack([dict(m.named_buffers())[name] for m in models])
               for name, _ in models[0].named_buffers()}
    return params, buffers
