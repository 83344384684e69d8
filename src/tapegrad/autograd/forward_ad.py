"""Forward-mode AD: dual tensors carry a tangent, and every op pushes tangents forward.

One rule serves every op: an op's Jacobian-vector product is the transpose of its
vector-Jacobian product, which its backward formulas already give. For an output
gradient u the formulas return v(u) = J^T u, linear in u; then <v(u), t> = <u, J t>, so
differentiating <v(u), t> with respect to u yields J t (the "double vjp"). The op runs again
on detached primals to build that small graph; only one dual level exists at a time, as in
torch.
"""
from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from .. import _backend

from . import grad_mode
from .engine import grad as autograd_grad

if TYPE_CHECKING:
    from .._tensor import Tensor


class UnpackedDualTensor(NamedTuple):
    primal: Tensor
    tangent: Tensor | None


_level: int | None = None  # the open dual level, or None
# tensors holding a tangent of the open level, by id: Tensor's == is elementwise
_duals: weakref.WeakValueDictionary[int, Tensor] = weakref.WeakValueDictionary()


def enter_dual_level() -> int:
    global _level
    if _level is not None:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    _level = 0
    return _level


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the level: every tangent of it is dropped."""
    global _level
    for tensor in list(_duals.values()):
        tensor.__dict__.pop("_tangent", None)
    _duals.clear()
    _level = None


class dual_level:
    """Context manager for a forward-AD level: `with dual_level(): ...`."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc_info: object) -> None:
        exit_dual_level()


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of tensor that carries `tangent` as its forward gradient."""
    if _level is None:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level exists, "
                           "make sure to enter_dual_level() first.")
    for role, value in (("primal", tensor), ("tangent", tangent)):
        if not (value.dtype.is_floating_point or value.dtype.is_complex):
            raise ValueError(f"Expected {role} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the "
            f"original Tensor, this is not supported. Tensor is of size {list(tensor.shape)} "
            f"while the given forward gradient is of size {list(tangent.shape)}.")
    dual = tensor.view(tensor.shape)
    set_tangent(dual, _laid_out_like(tangent, dual))
    return dual


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """(primal, tangent): inside a level the primal is a tangent-free view of tensor."""
    if _level is None:
        return UnpackedDualTensor(tensor, None)
    from ..ops.shape import alias_view
    return UnpackedDualTensor(alias_view(tensor), tangent_of(tensor))


# Note [Shared tangents]
# As in torch, a base and its views share one tangent memory: a view op's tangent is the same
# view of its input's tangent, a view of a base that has a tangent reads the base's (made on
# first read), an in-place op writes the new tangent into the existing one, and a write
# through a view of a base without a tangent first gives the base a zero tangent. So a write
# through one view shows in the tangents of the base and of every other view. Tangents are
# kept in their primal's layout (same strides, offset and storage size) for this.

def tangent_of(tensor: Tensor) -> Tensor | None:
    tangent = tensor.__dict__.get("_tangent")
    if tangent is None and tensor._base is not None and _level is not None:
        base_tangent = tensor._base.__dict__.get("_tangent")
        if base_tangent is not None:
            tangent = _view_of_tangent(tensor, base_tangent)
            set_tangent(tensor, tangent)
    return tangent


def _view_of_tangent(view: Tensor, base_tangent: Tensor) -> Tensor:
    """The part of the base's tangent that view's elements are of the base, sharing memory."""
    from ..ops import strided
    return _tensor(strided.same_geometry(view._data, base_tangent._data), base_tangent.dtype)


def _tensor(array: Any, dtype: Any) -> Tensor:
    from .._tensor import Tensor
    return Tensor._make(array, dtype)


def copy_tangent(source: Tensor, destination: Tensor) -> None:
    """destination takes source's tangent, if source has one (in-place ops on duals)."""
    tangent = tangent_of(source)
    if tangent is not None:
        set_tangent(destination, tangent)


def set_tangent(tensor: Tensor, tangent: Tensor) -> None:
    """Attach a tangent of the open level to tensor (in place: tensor becomes dual)."""
    tensor.__dict__["_tangent"] = tangent
    _duals[id(tensor)] = tensor


def _laid_out_like(tangent: Tensor, tensor: Tensor) -> Tensor:
    """tangent, or a copy of it in tensor's layout (Note [Shared tangents])."""
    from ..ops import strided
    array = strided.like_layout(tangent._data, tensor._data)
    return tangent if array is tangent._data else _tensor(array, tangent.dtype)


def write_tangent(target: Tensor, tangent: Tensor | None) -> None:
    """An in-place op gave target the tangent `tangent` (Note [Shared tangents])."""
    if tangent is None:
        return
    from ..ops import strided
    current = tangent_of(target)
    if current is None and target._base is not None:
        base = target._base
        set_tangent(base, _tensor(strided.like_layout(None, base._data), tangent.dtype))
        current = tangent_of(target)
    if current is None:
        set_tangent(target, _laid_out_like(tangent, target))
    else:
        current._data[...] = tangent._data


def propagate(op: Any, args: Sequence[Any], input_positions: Sequence[int],
              outputs: Tensor | tuple[Tensor, ...]) -> None:
    """Give op's floating outputs the tangent J t, where t are its inputs' tangents."""
    from .._creation import zeros_like
    from .._tensor import Tensor
    found = {i: tangent_of(args[i]) for i in input_positions if isinstance(args[i], Tensor)}
    tangents = {i: t for i, t in found.items() if t is not None}
    if not tangents:
        return
    if op.is_view:  # the same view of the input's tangent (Note [Shared tangents])
        tangent = tangents[input_positions[0]]._data
        views = op.forward(_backend.array_module(tangent), tangent, *args[1:])
        for output, view in zip(outputs if isinstance(outputs, tuple) else (outputs,),
                                views if isinstance(views, tuple) else (views,)):
            set_tangent(output, Tensor._make(view, output.dtype))
        return
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    replay_args = list(args)
    for i in tangents:
        replay_args[i] = args[i].detach().requires_grad_()
    with grad_mode.enable_grad():
        replayed = op(*replay_args)
        replayed = replayed if isinstance(replayed, tuple) else (replayed,)
        floating = [k for k, r in enumerate(replayed) if r.requires_grad]
        seeds = [zeros_like(replayed[k]).requires_grad_() for k in floating]
        vjps = autograd_grad([replayed[k] for k in floating], [replay_args[i] for i in tangents],
                             grad_outputs=seeds, create_graph=True, allow_unused=True)
        # <vjp, t> as a real number: for a complex input the real part of conj(vjp) * t,
        # whose derivative in the seeds is then J t under the conjugate Wirtinger convention
        pairing = [(vjp.conj() * t.to(vjp.dtype)).real.sum() if vjp.is_complex()
                   else (vjp * t.to(vjp.dtype)).sum() for vjp, t in zip(vjps, tangents.values())
                   if vjp is not None and vjp.requires_grad]
        # sum of tensors: a Tensor, pairing being non-empty here
        jvps = (autograd_grad(sum(pairing), seeds,  # type: ignore[arg-type]
                              allow_unused=True, materialize_grads=True)
                if pairing else [seed.detach() for seed in seeds])
    for k, jvp in zip(floating, jvps):
        set_tangent(outputs[k], _laid_out_like(jvp.detach(), outputs[k]))
