"""In-place ops: any declared op applied to a tensor's own storage, with torch's history rules.

x.op_(...) runs the out-of-place op on a snapshot of x, writes the result into x's storage,
bumps the version counter shared with x's views, and moves x onto the new node. When x is a
view of a base that is part of a graph, the base's history is rebased through a CopySlices
node (as torch does), so gradients flow correctly to everything that shares the storage.
"""
import re

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ..autograd import forward_ad, grad_mode
from ..autograd.graph import Node, SavedTensor
from ._checks import blame, broadcast_shapes, counts_tensor, fill_value, in_place_words
from ._define import _ARG, Op, edge_of, defop
from .shape import zeros_of
from . import strided  # after shape, which loads it
from .._warnings import warn


def inplace(op, target, *args, **kwargs):
    """Apply `op(target, *args, **kwargs)` in place on target; returns target."""
    _check_inference(target)
    name = op.__name__.lstrip("_")
    try:
        return _apply(op, target, args, kwargs,
                      lambda: _check_overlap(name, target, (*args, *kwargs.values())))
    except TypeError as error:  # torch's words name the in-place method: add_(), not add()
        raise in_place_words(error, name, counts_tensor(error)) from None
    except AttributeError as error:  # x.masked_scatter_([True], y): a list for a tensor
        blame(error, name + "_", getattr(op, "__wrapped__", op), (target, *args), kwargs, True)
        raise


def _apply(op, target, args, kwargs, check_memory):
    """inplace, with check_memory() run where torch checks memory (after its autograd checks);
    it tells whether target's elements share memory."""
    tracked = grad_mode.is_recording() and (target.requires_grad or any(
        isinstance(a, Tensor) and a.requires_grad for a in (*args, *kwargs.values())))
    if tracked:
        _check_leaf(target)
    rerun = check_memory() and (op, args, kwargs)
    if not tracked:
        if grad_mode._state.recording:
            with grad_mode.no_grad():
                result = op(target, *args, **kwargs)
        else:  # an optimizer's step: no context to enter
            result = op(target, *args, **kwargs)
        _write(target, result, rerun)
        return target
    # The op runs on a snapshot of target: a copy where its backward may read the old value
    # (x.mul_(y) saves x), target's own array where no formula of the op reads that input.
    data = target._data if _keeps_nothing_of_first_input(op) else target._data.copy()
    snapshot = Tensor._make(data, target.dtype)
    snapshot._grad_fn, snapshot._output_nr = target.grad_fn, target._output_nr
    snapshot._requires_grad = target._requires_grad
    snapshot._accumulator = target._accumulator
    forward_ad.copy_tangent(target, snapshot)
    result = op(snapshot, *args, **kwargs)
    _write(target, result, rerun)
    _save_target_as_result(result, target)
    if target._base is not None:
        _rebase_view(target, result.grad_fn)
    else:
        target._grad_fn, target._output_nr = result._grad_fn, result._output_nr
        target._requires_grad = result._requires_grad
    return target


def _keeps_nothing_of_first_input(op):
    """Whether a declared op saves nothing of its first input (add_, sub_, copy_, fills)."""
    return (isinstance(op, Op) and not op.is_view and op.inputs_lead
            and all(kind is not _ARG or index != 0 for _, kind, index, _ in op.save_plan))


def _save_target_as_result(result, target):
    """torch saves an in-place op's output as the target itself: the output saved by the op's
    node takes target's version counter, so a later write into target fails that backward."""
    for saved in getattr(result._grad_fn, "_saved", {}).values():
        if (isinstance(saved, SavedTensor) and saved.tensor is None
                and getattr(saved, "version_counter", None) is result._version_counter):
            saved.version_counter, saved.version = target._version_counter, target._version


# torch's in-place variants that overwrite the data with the out-of-place op's result:
# Tensor.X_ for each X here, and torch.X_ for those in IN_PLACE_FUNCTIONS. (The in-place
# ops that change metadata, t_/squeeze_/transpose_/resize_, are declared with their views.)
IN_PLACE_METHODS = frozenset("""
    abs absolute acos acosh add addbmm addcdiv addcmul addmm addmv addr arccos arccosh arcsin
    arcsinh arctan arctan2 arctanh asin asinh atan atan2 atanh baddbmm bitwise_and
    bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor ceil clamp
    clamp_max clamp_min clip conj_physical copysign cos cosh cumprod cumsum deg2rad digamma div
    divide eq erf erfc erfinv exp exp2 expm1 fix float_power floor floor_divide fmod frac gcd ge
    greater greater_equal gt heaviside hypot i0 igamma igammac index_add index_copy index_fill
    index_put index_reduce lcm ldexp le lerp less less_equal lgamma log log10 log1p log2
    logical_and logical_not logical_or logical_xor logit lt masked_fill masked_scatter mul
    multiply mvlgamma nan_to_num ne neg negative nextafter not_equal polygamma pow put rad2deg
    reciprocal relu remainder renorm round rsqrt scatter scatter_add scatter_reduce sgn sigmoid
    sign sin sinc sinh sqrt square sub subtract tan tanh tril triu true_divide trunc xlogy
""".split())
IN_PLACE_FUNCTIONS = frozenset("""
    abs acos acosh addmv arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil
    clamp clamp_max clamp_min clip conj_physical cos cosh deg2rad erf erfc exp exp2 expm1 fix
    floor frac gcd i0 index_put lcm ldexp log log10 log1p log2 logit nan_to_num neg negative
    rad2deg reciprocal relu round rsqrt sigmoid sin sinc sinh sqrt square tan tanh trunc xlogy
""".split())


def in_place_variant(name):
    """X_ for the method X: X computed out of place, then written into the tensor."""
    def variant(self, *args, **kwargs):
        return inplace(getattr(Tensor, name), self, *args, **kwargs)
    variant.__name__ = variant.__qualname__ = name + "_"
    return variant


def _write(target, result, rerun=None):
    """result into target's memory. rerun: (op, args, kwargs) when elements of target share
    memory: torch's kernels then write them one by one (_write_in_turn)."""
    if result._data.shape != target._data.shape:
        raise _shape_mismatch(target.shape, result.shape)
    if not _can_cast(result.dtype, target.dtype):
        raise RuntimeError(f"result type {result.dtype.legacy_name} can't be cast to the "
                           f"desired output type {target.dtype.legacy_name}")
    if rerun:
        _write_in_turn(target, result, *rerun)
    elif not _backend.on_device(target._data):
        np.copyto(strided.writable(target._data), result._data, casting="unsafe")
    else:  # a device array: its library has no read-only arrays
        _backend.array_module(target._data).copyto(target._data, result._data, casting="unsafe")
    target._bump_version()
    if forward_ad._level is not None:
        forward_ad.write_tangent(target, forward_ad.tangent_of(result))


def _write_in_turn(target, first, op, args, kwargs):
    """Write into a target whose elements share memory as torch's kernels do: element by
    element in TensorIterator's order, each reading its memory as the earlier writes left it.
    So the k-th element visited on a memory location is written in round k, from op rerun on
    the values then."""
    xp = _backend.array_module(target._data)
    positions = strided.element_positions(target._data).reshape(-1)
    operands = [target._data.strides] * 2 + [  # the output, self, and the tensor inputs
        xp.broadcast_to(value._data, target.shape).strides for value in (*args, *kwargs.values())
        if isinstance(value, Tensor)
        and broadcast_shapes(value.shape, target.shape) == target.shape]
    visits = strided.iteration_order(target.shape, operands)
    ranks = np.empty_like(visits)
    ranks[visits] = _occurrences(positions[visits])
    positions, ranks = (_backend.beside(target._data, host) for host in (positions, ranks))
    storage = strided.storage_of(target)
    result = first
    with grad_mode.no_grad():
        for rank in range(int(ranks.max()) + 1):
            if rank:
                current = storage[positions].reshape(target.shape)
                result = op(Tensor._make(current, target.dtype), *args, **kwargs)
            chosen = ranks == rank
            storage[positions[chosen]] = result._data.reshape(-1)[chosen]


def _occurrences(sequence):
    """For each entry, how many equal entries come before it."""
    order = np.argsort(sequence, kind="stable")
    starts = np.r_[True, np.diff(sequence[order]) != 0]
    result = np.empty_like(order)
    result[order] = np.arange(order.size) - np.maximum.accumulate(
        np.where(starts, np.arange(order.size), 0))
    return result


_SHARED_ELEMENTS = ("unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.")

# In-place ops torch lets write a tensor whose elements share memory (an expanded one), and
# those that skip its check that an input partly overlaps the written-to tensor (the others
# run on TensorIterator, which checks both). By the op's name, leading underscores dropped.
_SHARING_ALLOWED = frozenset("""
    fill zero index_put index_put_method index_fill masked_fill tril triu threshold_inplace addmv
""".split())
# ... of which these warn (torch's deprecation), with the indexing they stand for
_SHARING_DEPRECATED = {"index_put": ("index_put_", "tensor[indices] = tensor"),
                       "index_put_method": ("index_put_", "tensor[indices] = tensor"),
                       "index_fill": ("index_fill_", "tensor[mask] = scalar"),
                       "masked_fill": ("masked_fill_", "tensor[mask] = scalar")}
_ALIASING_ALLOWED = frozenset("""
    fill fill_with_tensor zero masked_fill index_add index_copy index_fill index_reduce scatter
    scatter_add scatter_reduce put masked_scatter cumsum cumprod tril triu renorm addmm addmv
    addr addbmm baddbmm embedding_renorm polygamma mvlgamma ldexp
""".split())


def _check_overlap(name, target, inputs, array=None):
    """torch's refusals of a write into memory that two elements, or an input and the written
    array (target's, unless given), share; True when its elements share memory and torch
    writes them anyway."""
    array = target._data if array is None else array
    shared = not array.flags.c_contiguous and strided.shared_positions(array) is not None
    if shared and _has_expanded_dim(array):
        if name not in _SHARING_ALLOWED:
            raise RuntimeError(_SHARED_ELEMENTS)
        if name in _SHARING_DEPRECATED:
            op_name, example = _SHARING_DEPRECATED[name]
            warn(f"Use of {op_name} on expanded tensors is deprecated. Please clone() "
                 "the tensor before performing this operation. This also applies to "
                 f"advanced indexing e.g. {example}", UserWarning)
    if name not in _ALIASING_ALLOWED:
        for value in inputs:  # only tensors on target's storage (its version counter) can
            if (isinstance(value, Tensor) and value._version_counter is target._version_counter
                    and _partly_overlaps(array, value._data)):
                raise RuntimeError(_PARTLY_SHARED)
    return shared


_PARTLY_SHARED = ("unsupported operation: some elements of the input tensor and the written-to "
                  "tensor refer to a single memory location. Please clone() the tensor before "
                  "performing the operation.")


def _has_expanded_dim(array):
    # torch refuses only these (its MemOverlap::Yes); other overlaps are "too hard" to check
    return array.size and any(s == 0 and n > 1 for n, s in zip(array.shape, array.strides))


def _partly_overlaps(a, b):
    """torch's get_overlap_status is Partial: both dense, sharing memory, not the very same."""
    if a is b or not a.size or not b.size:
        return False
    if not (strided.is_non_overlapping_and_dense(a) and strided.is_non_overlapping_and_dense(b)):
        return False
    a_start, a_end, a_owner = strided.storage_bytes(a)
    b_start, b_end, b_owner = strided.storage_bytes(b)
    if a_owner is not b_owner:
        return False
    if (a_start, a_end) == (b_start, b_end):
        return a.strides != b.strides
    return a_start < b_end and b_start < a_end


def _shape_mismatch(shape, broadcast_shape):
    return RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape "
                        f"{list(broadcast_shape)}")


def _can_cast(source, destination):
    # torch allows any cast within or down a category (float64 -> float32) but not from a
    # higher category to a lower one (float -> int, int -> bool).
    rank = {"bool": 0, "int": 1, "float": 2, "complex": 3}
    def category(d):
        return ("complex" if d.is_complex else "float" if d.is_floating_point
                else "bool" if d is _dtype.bool else "int")
    return rank[category(source)] <= rank[category(destination)]


def _check_inference(target):
    if target._is_inference and not grad_mode._state.inference:
        raise RuntimeError(
            "Inplace update to inference tensor outside InferenceMode is not allowed.You can "
            "make a clone to get a normal tensor before doing inplace update.See "
            "https://github.com/pytorch/rfcs/pull/17 for more details.")


def _check_leaf(target):
    """torch's refusals of an in-place op that autograd records (its check_inplace)."""
    if target._base is not None:
        _check_creation(target, indirect=False)
        if target.requires_grad and target._base._grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
    if target.requires_grad and target.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


# Why torch refuses to rebase the history of a view made this way (_mark_view records it).
_CREATION_ADVICE = {
    "multi_output": " This view is the output of a function that returns multiple views. Such "
                    "functions do not allow the output views to be modified inplace. You should "
                    "replace the inplace operation by an out-of-place one.",
    "no_grad": " Given that this use case is ambiguous and error-prone, it is forbidden. You can "
               "clarify your code by moving both the view and the inplace either both inside the "
               "no_grad block (if you don't want the inplace to be tracked) or both outside (if "
               "you want the inplace to be tracked).",
    "inference": " Given that this use case is ambiguous and error-prone, it is forbidden. You "
                 "can clarify your code by moving both the view and the inplace either both "
                 "inside the inference_mode block (if you don't want the inplace to be tracked) "
                 "or both outside (if you want the inplace to be tracked).",
}


def _check_creation(view, indirect):
    """torch's error for a view whose history may not be rebased: one of several outputs,
    or made in no_grad or inference mode. indirect: the write went to another view or the
    base."""
    meta = view.__dict__.get("_creation_meta")
    if meta is None:
        return
    node = view._grad_fn
    # torch's short name: SqueezeBackward0 is Squeeze, SqueezeBackward1 is Squeeze1
    name = node is not None and re.sub(r"Backward(0$)?", "", type(node).__name__)
    modified = "its base or another view of its base has been" if indirect else "is being"
    if meta == "multi_output" and node is not None:
        message = f"Output {view._output_nr} of {name} is a view and {modified} modified inplace."
    else:
        message = (f"Output {view._output_nr} of {name} is a view of a view which was created in"
                   if node is not None else "A view was created in")
        message += (f" inference mode and {modified} modified inplace in normal mode."
                    if meta == "inference" else
                    f" no_grad mode and {modified} modified inplace with grad mode enabled.")
    raise RuntimeError(message + _CREATION_ADVICE[meta])


# ---- views written in place ----------------------------------------------------------------

# A view is related to its base by where its elements lie in the base (strided.positions_in:
# flat indices into the base's elements), read from their memory when needed, as torch reads
# the view's sizes, strides and offset: so a base that changed shape in place keeps its views.

def _positions(view):  # computed on the host from geometry alone, used on the view's device
    return _backend.beside(view._data, strided.positions_in(view._data, view._base._data))


@defop("AsStridedBackward0", save=("positions",))
def _view_of_base(xp, input: Tensor, positions):
    return input.reshape(-1)[positions]


_view_of_base.derivatives(input=lambda ctx: _view_put(
    zeros_of(ctx.grad, ctx.input_shape), ctx.positions, ctx.grad, True))


@defop("AsStridedScatterBackward0", save=("positions", "accumulate"))
def _view_put(xp, input: Tensor, positions, value: Tensor, accumulate, visits=None):
    """input with value written at positions; where several elements of the view share one
    of input's, accumulate sums their values (as_strided's backward), else the one written
    last stays (CopySlices' copy into the view, as torch's: visits is its order)."""
    result = input.copy()
    if getattr(value, "shape", None) != positions.shape:
        value = xp.broadcast_to(value, positions.shape)
    if accumulate:
        xp.add.at(result.reshape(-1), positions, value)
    elif visits is None:
        result.reshape(-1)[positions] = value
    else:
        result.reshape(-1)[positions.reshape(-1)[visits]] = value.reshape(-1)[visits]
    return result


_view_put.derivatives(
    input=lambda ctx: ctx.grad if ctx.accumulate else _view_put(ctx.grad, ctx.positions, 0.0,
                                                                False),
    value=lambda ctx: _view_of_base(ctx.grad, ctx.positions))


class CopySlices(Node):
    """The base's new grad_fn after an in-place op on one of its views.

    Backward: the view's region of the base gradient goes through the in-place op's own node
    (`fn`); the rest of the base gradient passes straight to the base's old history.
    """

    __slots__ = ("positions", "fn", "expanded", "visits")

    def __init__(self, base_edge, base_metadata, view, fn, positions):
        super().__init__((base_edge,) + fn.next_functions[1:],
                         (base_metadata,) + fn._input_metadata[1:])
        self.positions, self.fn = positions, fn
        # torch copies the gradient back into the view's geometry: refused for an expanded one
        self.expanded = _has_expanded_dim(view._data)
        self.visits = None if strided.shared_positions(view._data) is None else (
            _backend.beside(view._data, strided.iteration_order(
                view.shape, (view._data.strides, strided.contiguous_strides(view.shape)))))

    def name(self):
        return "torch::autograd::CopySlices"

    def apply(self, grad_outputs):
        if self.expanded:
            raise RuntimeError(_SHARED_ELEMENTS)
        grad = grad_outputs[0]
        fn_grads = self.fn.apply([_view_of_base(grad, self.positions)])
        view_grad = 0.0 if fn_grads[0] is None else fn_grads[0]
        return ((_view_put(grad, self.positions, view_grad, False, self.visits),)
                + tuple(fn_grads[1:]))

    def release_saved(self):
        self.fn.release_saved()


def _rebase_view(view, fn):
    base, positions = view._base, _positions(view)
    base._grad_fn = CopySlices(edge_of(base), (base._data.shape, base.dtype), view, fn,
                               positions)
    base._requires_grad, base._output_nr = True, 0
    regenerate_view_node(view, positions)


# Note [View regeneration]
# A view's node was made for the storage as it was then. Each view keeps the version of the
# shared counter its node was made at (_view_version). Once the counter has moved on (the base
# or any view of it was written in place), the next read of the view's grad_fn, or its use as
# an op input (edge_of), replaces the node by an AsStridedBackward0 of the base's current
# history, as torch does; views made where torch forbids this raise torch's error instead.
# torch does so even when the base does not require grad but the view had a node: a view of
# a leaf that is itself a view (t.view(2, 3).requires_grad_()[0]) then loses its way back.

def regenerate_view_node(view, positions=None):
    _check_creation(view, indirect=True)
    base = view._base
    if not base._requires_grad:  # a view of a leaf that is itself a view (Note above)
        base = Tensor._make(base._data, base.dtype)
        base._requires_grad = True
    with grad_mode.enable_grad():
        regenerated = _view_of_base(base, _positions(view) if positions is None else positions)
    if base is not view._base:  # torch's node then leads nowhere: no gradient flows back
        regenerated._grad_fn.next_functions = ((None, 0),)
        regenerated._grad_fn._needs_input_grad = [False]
    view._grad_fn, view._output_nr = regenerated._grad_fn, 0
    view._requires_grad = regenerated._requires_grad
    view._view_version = view._version_counter[0]


# ---- copy_, fill_, setitem -----------------------------------------------------------------

@defop("CopyBackwards")
def _copy(xp, input: Tensor, src: Tensor):
    return xp.broadcast_to(xp.asarray(src, dtype=input.dtype), input.shape)


# The old values are overwritten: their gradient is zero (a zero tensor, as torch gives).
_copy.derivatives(input=lambda ctx: zeros_of(ctx.grad), src=lambda ctx: ctx.grad)


def fill_ops(number_node, tensor_node, name):
    """full_like(input, value) as two ops under torch's node names: value a number, or a 0-d
    tensor (which gets the summed gradient). The old values' gradient is zero."""
    def with_number(xp, input: Tensor, value):
        return xp.full_like(input, value)

    def with_tensor(xp, input: Tensor, value: Tensor):
        return xp.full_like(input, value)
    number_op = defop(number_node, name=name)(with_number)
    tensor_op = defop(tensor_node, name=name + "_with_tensor")(with_tensor)
    number_op.derivatives(input=lambda ctx: zeros_of(ctx.grad))
    tensor_op.derivatives(input=lambda ctx: zeros_of(ctx.grad), value=lambda ctx: ctx.grad.sum())
    return number_op, tensor_op


def fill_op_for(value, number_op, tensor_op):
    """The one of a fill_ops pair that takes value (a tensor value must be 0-d, as torch's)."""
    if not isinstance(value, Tensor):
        return number_op
    if value.ndim:
        raise RuntimeError("fill_ only supports 0-dimension value tensor but got tensor with "
                           f"{value.ndim} dimensions.")
    return tensor_op


_fill, _fill_with_tensor = fill_ops("FillBackward2", "FillBackward3", "_fill")


@defop("ZeroBackward0")
def _zero(xp, input: Tensor):
    return xp.zeros_like(input)


_zero.derivatives(input=lambda ctx: zeros_of(ctx.grad))


def copy_(target, src):
    if isinstance(src, Tensor):
        broadcast = broadcast_shapes(target.shape, src.shape)
        if broadcast != target.shape:
            raise _shape_mismatch(target.shape, broadcast)
    return inplace(_copy, target, src)


def fill_(target, value):
    fill_value("fill_", "", (value,))
    from .._creation import check_fill_number
    value = check_fill_number(value, target.dtype)
    return inplace(fill_op_for(value, _fill, _fill_with_tensor), target, value)


def zero_(target):
    return inplace(_zero, target)


def setitem(target, key, value):
    """target[key] = value: a copy into the view target[key] (CopySlices), or index_put_."""
    from .indexing import _index_put, _is_basic, fits, getitem, value_mismatch, written_key
    _check_inference(target)
    items = key if isinstance(key, tuple) else (key,)
    arrays = written_key(items, value)
    tracked = forward_ad._level is not None or grad_mode.is_recording() and (
        target.requires_grad or isinstance(value, Tensor) and value.requires_grad)
    data = target._data
    if not tracked:
        if strided.may_share_elements(data) or isinstance(value, Tensor) and (
                value._version_counter is target._version_counter):
            _check_setitem_overlap(target, arrays, value, all(map(_is_basic, arrays)))
            data = strided.writable(data)
        try:
            with np.errstate(all="ignore"):  # a cast that overflows gives inf, as torch's
                data[arrays] = value._data if isinstance(value, Tensor) else value
        except IndexError:
            getitem(target, key)  # raises torch's error for the key
            raise
        except ValueError:
            raise value_mismatch(target.shape, arrays, value) from None
        target._bump_version()
        return
    if isinstance(value, Tensor) and value.ndim and value.shape[0] == 1:
        # torch drops the value's leading 1-sized dims first (a ViewBackward0)
        value = value.view(value.shape[next(i for i, n in enumerate(value.shape + (0,))
                                            if n != 1):])
    basic = all(map(_is_basic, arrays))
    check_memory = lambda: _check_setitem_overlap(target, arrays, value, basic)  # noqa: E731
    if basic:
        view = target if _takes_no_view(target, arrays) else getitem(target, key)
        if isinstance(value, Tensor) and not fits(value.shape, view.shape):
            raise value_mismatch(target.shape, arrays, value)
        if view.ndim and not (isinstance(value, Tensor) and value.ndim):
            # torch fills with a number or a 0-d value (FillBackward3), else copies
            value = value if isinstance(value, Tensor) else Tensor._make(
                np.asarray(value, view.dtype.numpy), view.dtype)
            _apply(_fill_with_tensor, view, (value,), {}, check_memory)
        else:
            _apply(_copy, view, (value,), {}, check_memory)
    else:
        _apply(_index_put, target, (arrays, value), {}, check_memory)


def _takes_no_view(target, items):
    """Whether torch's setitem writes into target itself: a key of Ellipsis and slices over
    whole dims only (it skips those, even a key that is one slice, unlike getitem)."""
    from .indexing import _spans_dim
    dim = 0
    for item in items:
        if item is Ellipsis:
            dim += target.ndim - (len(items) - 1)
        elif isinstance(item, slice) and dim < target.ndim and _spans_dim(item,
                                                                           target.shape[dim]):
            dim += 1
        else:
            return False
    return True


def _check_setitem_overlap(target, arrays, value, basic):
    """torch's memory checks for target[key] = value: a basic key copies into the region
    (refused where its elements share memory; the value is compared as broadcast to it, and
    not at all when 0-d, which fills), any other key is an index_put_ (allowed there)."""
    if not basic:
        return _check_overlap("index_put", target, (value,))
    aliased = (isinstance(value, Tensor) and value.ndim
               and value._version_counter is target._version_counter)
    if not aliased and 0 not in target._data.strides:
        return False
    region = target._data[arrays]
    if _has_expanded_dim(region):
        raise RuntimeError(_SHARED_ELEMENTS)
    if aliased and isinstance(region, np.ndarray):
        source = value._data
        source = source.reshape(source.shape[next((i for i, n in enumerate(source.shape)
                                                   if n != 1), source.ndim):])
        try:
            source = np.broadcast_to(source, region.shape)
        except ValueError:
            return False  # the value's shape is refused later
        if _partly_overlaps(region, source):
            raise RuntimeError(_PARTLY_SHARED)
    return False
