"""`defop`: how an op is declared, and the single path every op call takes.

An op is a NumPy forward plus one derivative formula per differentiable input, written in
tapegrad ops (so backward is itself differentiable), under torch's grad_fn name:

    @defop("MulBackward0", save=("input", "other"), promote="common")
    def mul(xp, input: Tensor, other: Tensor):
        return xp.multiply(input, other)

    mul.derivatives(input=lambda ctx: ctx.grad * ctx.other,
                    other=lambda ctx: ctx.grad * ctx.input)

Parameters annotated `Tensor` are the op's tensor inputs (they arrive in the forward as arrays,
Python numbers allowed in their place); the rest are plain attributes (dims, flags). Formulas
get a ctx with `grad`, the saved names, every attribute, and `<input>_shape` for each input.
They return the gradient in the output's shape: the engine sums it back over broadcast dims
(Note [Broadcast reduction] in engine.py).
"""
import inspect
import os
import types

import numpy as np

from .. import _backend, _dtype
from .._tensor import Tensor
from ..autograd import anomaly_mode, forward_ad, grad_mode
from ..autograd.engine import UNSHARED_SIZE
from ..autograd.graph import FREED_GRAPH, Node, SavedTensor, save, sequence_numbers
from ._checks import broadcast_shapes, counting_tensor, type_name

REGISTRY = {}
# Set by tapegrad.amp while some thread has autocast on (Note [Autocast] in amp/autocast_mode.py)
autocast_hook = None


# torch computes inf/nan without warnings; NumPy would warn. Every op call switches NumPy's
# floating-point errors off around its forward, so the switch must be cheap: NumPy >= 2 keeps
# the error state in a context variable that can be set directly (np.errstate costs ~1.5 us).
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _ERROR_STATE
    from numpy._core._ufunc_config import _make_extobj
    _QUIET = _make_extobj(all="ignore")
except ImportError:  # NumPy 1.x
    class _ERROR_STATE:
        set = staticmethod(lambda quiet: np.seterr(**quiet))
        reset = staticmethod(lambda previous: np.seterr(**previous))
    _QUIET = {"all": "ignore"}

_REQUIRED = object()
_OUTPUT, _ARG = "output", "arg"  # where a saved value comes from (Op.save_plan)

# torch's hand-written C++ nodes (not generated from derivatives.yaml): their name() carries
# the namespace, though their class prints bare (<NotImplemented object at ...>).
CPP_NODES = frozenset({"CopyBackwards", "NotImplemented", "Error", "DelayedError"})


class Context:
    """What a derivative formula sees: ctx.grad, saved tensors, attributes, input shapes."""

    def __getattr__(self, name):
        # <input>_shape, looked up only by the formulas that need it
        if name.endswith("_shape"):
            index = self._node.op.input_names.index(name[:-len("_shape")])
            return self._node._input_metadata[index][0]
        raise AttributeError(name)


# Note [Formulas on arrays]
# Derivative formulas are written once, in tapegrad ops, so a recorded backward
# (create_graph=True) differentiates them. In the usual backward nothing records, and the same
# formula runs on raw arrays instead: `ctx.grad * ctx.other` is then one NumPy multiply, and
# the ops a formula calls (cos, where, mul_scalar, ...) run their forward on arrays directly
# (Op._on_arrays). Floating arrays are all of the gradient's dtype and integer ones (indices)
# go only into ops that do no promotion, so NumPy's promotion cannot differ from torch's; a
# formula that meets anything else (a method only Tensors have, an integer result, a dtype
# NumPy promoted, a Tensor made by a factory) raises, and its op goes back to Tensors for
# good. TAPEGRAD_CHECK_ARRAYS=1 (set for the whole test suite) runs both and compares them.
CHECK_ARRAYS = os.environ.get("TAPEGRAD_CHECK_ARRAYS") == "1"


class OnTensorsOnly(Exception):
    """A formula running on arrays met something that only a Tensor can do."""


def _made_afresh(array, values, earlier):
    """Whether a formula's result owns its memory and is none of its inputs or other results."""
    if array.base is not None:
        return False
    for value in values.values():
        if value is array:
            return False
    for grad in values["grads"]:
        if grad is array:
            return False
    for grad in earlier:
        if grad is not None and grad._data is array:
            return False
    return True


def _compare_with_tensors(node, array_grads, tensor_grads):
    for i, (got, expected) in enumerate(zip(array_grads, tensor_grads)):
        if got is None or expected is None:
            same = got is expected
        else:
            got, expected = got._data, expected._data
            same = (got.dtype == expected.dtype and got.shape == expected.shape and bool(
                _backend.array_module(got).allclose(got, expected, rtol=1e-6, atol=0,
                                                    equal_nan=True)))
        if not same:
            raise AssertionError(f"{node.name()}: the formula for input {i} gives {got!r} on "
                                 f"arrays but {expected!r} on Tensors")


class OpNode(Node):
    """The grad_fn of a declared op; each op gets a subclass named after torch's node."""

    __slots__ = ("_saved", "_needs_input_grad", "_n_outputs")
    op = None

    def apply(self, grad_outputs):
        if self._saved is None:
            raise RuntimeError(FREED_GRAPH)
        if len(grad_outputs) < self._n_outputs:  # outputs no gradient reached
            grad_outputs = list(grad_outputs) + [None] * (self._n_outputs - len(grad_outputs))
        state = grad_mode._state
        if state.recording:
            return self._apply_tensors(grad_outputs, self)
        if self.op.on_arrays:
            grads = self._apply_arrays(grad_outputs, state)
            if grads is not None:
                if CHECK_ARRAYS:
                    _compare_with_tensors(self, grads, self._apply_tensors(grad_outputs, None))
                return grads
        return self._apply_tensors(grad_outputs, None)

    def _apply_tensors(self, grad_outputs, owner):
        """The formulas on Tensors: owner is the node when the backward is being recorded."""
        values = {"_node": self, "grad": grad_outputs[0], "grads": grad_outputs}
        for name, value in self._saved.items():
            values[name] = value.unpack(owner, Tensor) if type(value) is SavedTensor else value
        ctx = object.__new__(Context)
        ctx.__dict__ = values
        return [formula(ctx) if needed else None
                for formula, needed in zip(self.op.formulas, self._needs_input_grad)]

    def _apply_arrays(self, grad_outputs, state):
        """Note [Formulas on arrays]: the formulas on the gradients' and saved tensors' arrays,
        all of one floating dtype; None (the op then stays on Tensors) if they are not, or if a
        formula needs what only Tensors have."""
        first = grad_outputs[0]
        if len(grad_outputs) == 1 and first is not None:
            arrays = [first._data]
        else:
            first, arrays = None, []
            for grad in grad_outputs:
                if grad is not None:
                    if first is None:
                        first = grad
                    elif grad.dtype is not first.dtype:
                        return None
                    grad = grad._data
                arrays.append(grad)
            if first is None:
                return None
        dtype = first._data.dtype
        if dtype.kind != "f":
            return None
        values = {"_node": self, "grad": arrays[0], "grads": arrays}
        for name, value in self._saved.items():
            if type(value) is SavedTensor:
                value = value.unpack_array()  # the gradient's dtype, or indices and masks
                if value is None or (value.dtype is not dtype and value.dtype != dtype
                                     and value.dtype.kind not in "biu"):
                    return None
            elif isinstance(value, Tensor) or type(value) in (list, tuple) and any(
                    isinstance(item, Tensor) for item in value):
                return None
            values[name] = value
        ctx = object.__new__(Context)
        ctx.__dict__ = values
        grads = []
        state.raw = True
        try:
            for formula, needed in zip(self.op.formulas, self._needs_input_grad):
                if needed:
                    grad = formula(ctx)
                    if type(grad) is not np.ndarray and not _backend.on_device(grad):
                        if not isinstance(grad, np.generic):
                            raise OnTensorsOnly(type(grad).__name__)
                        grad = np.asarray(grad)
                    if grad.dtype is not dtype and grad.dtype != dtype:
                        raise OnTensorsOnly(str(grad.dtype))  # NumPy promoted, torch would not
                    result = Tensor._make(grad, first.dtype)
                    if grad.size >= UNSHARED_SIZE and _made_afresh(grad, values, grads):
                        result._unshared = True  # Note [Unshared gradients] in engine.py
                    grads.append(result)
                else:
                    grads.append(None)
        except Exception:  # noqa: BLE001 - any failure: the formula runs again on Tensors
            self.op.on_arrays = False
            return None
        finally:
            state.raw = False
        return grads

    def release_saved(self):
        if self.op.saves_tensors:
            self._saved = None

    def __getattr__(self, name):
        """torch's `_saved_<name>` views of what backward kept (torch calls `input` self)."""
        key = "input" if name == "_saved_self" else name[len("_saved_"):]
        if not name.startswith("_saved_") or key not in self._kept_names():
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        if self._saved is None:
            raise RuntimeError(FREED_GRAPH)
        value = self._saved.get(key)
        return value.unpack(self, Tensor) if type(value) is SavedTensor else value

    def __dir__(self):
        names = ("_saved_self" if n == "input" else "_saved_" + n for n in self._kept_names())
        return [*super().__dir__(), *names]

    def _kept_names(self):
        return [plan[0] for plan in self.op.save_plan]


class Op:
    """A declared op: call it with tensors (or numbers) and attributes, as torch's function."""

    def __init__(self, forward, node_name, save, promote, view, name, scalars):
        self.forward = forward
        self.__name__ = name or forward.__name__
        self.__doc__ = forward.__doc__
        params = list(inspect.signature(forward).parameters.values())[1:]
        self.signature = inspect.Signature(params)
        self.positions = {p.name: i for i, p in enumerate(params)}
        self.input_positions = tuple(i for i, p in enumerate(params) if p.annotation is Tensor)
        self.input_names = tuple(params[i].name for i in self.input_positions)
        self.n_inputs = len(self.input_names)
        self.inputs_lead = self.input_positions == tuple(range(self.n_inputs))
        self.defaults = tuple(_REQUIRED if p.default is p.empty else p.default for p in params)
        self.n_params = len(params)
        self.n_required = sum(default is _REQUIRED for default in self.defaults)
        self.has_attributes = self.n_params > self.n_inputs
        names = [p.name for p in params]
        self.scalar_positions = tuple(names.index(name) for name in scalars)
        # (name, where it comes from: _OUTPUT k or _ARG position, the formulas reading it)
        self.save_plan = tuple((name, _OUTPUT, int(name[6:] or 0), 0) if name.startswith("result")
                               else (name, _ARG, names.index(name), 0) for name in save)
        self.saves_tensors = any(name.startswith("result") or name in self.input_names
                                 for name in save)
        self.promote = promote
        self.is_view = view
        self.formulas = (None,) * self.n_inputs
        self.differentiable = False  # until .derivatives(): comparisons, argmax stay so
        self.on_arrays = True  # Note [Formulas on arrays]
        # Ops that are never differentiable (comparisons) declare no node name.
        self.node_class = node_name and type(node_name, (OpNode,),
                                             {"__slots__": (), "op": staticmethod(self)})
        if node_name in CPP_NODES:
            self.node_class.name = lambda node: f"torch::autograd::{node_name}"
        # torch's NotImplemented nodes (their backward raises) keep edges only for the inputs
        # that require grad
        self.edges_of_required_only = node_name == "NotImplemented"
        REGISTRY[self.__name__] = self

    def derivatives(self, **formulas):
        unknown = set(formulas) - set(self.input_names)
        if unknown:
            raise TypeError(f"{self.__name__} has no tensor input named {sorted(unknown)}")
        self.formulas = tuple(formulas.get(name) for name in self.input_names)
        self.differentiable = True
        # Which formulas read each saved tensor: a tensor is saved only when a formula that
        # needs it will run (x * 2 keeps nothing of x), as torch's codegen decides.
        reads = [_names_read(formula) for formula in self.formulas]
        # readers as a bit mask over the inputs: cheap to test against needs_input_grad
        self.save_plan = tuple(
            (name, kind, index, sum(1 << i for i, names in enumerate(reads) if name in names))
            for name, kind, index, _ in self.save_plan)

    def __get__(self, tensor, owner=None):
        # Bound as a Tensor method: x.sum(0) is sum(x, 0).
        return self if tensor is None else types.MethodType(self, tensor)

    def _bind(self, args, kwargs):
        given = len(args)
        if given > self.n_params:
            raise TypeError(f"{self.__name__}() takes {self.n_params} arguments "
                            f"but {given} were given")
        args += self.defaults[given:]
        if not kwargs:
            if given < self.n_required:
                raise TypeError(f"{self.__name__}() missing a required argument")
            return args
        args = list(args)  # by hand: inspect's Signature.bind costs ~20 us a call
        for name, value in kwargs.items():
            position = self.positions.get(name)
            if position is None or position < given:
                self.signature.bind(*args[:given], **kwargs)  # raises Python's TypeError
            args[position] = value
        if any(arg is _REQUIRED for arg in args):
            raise TypeError(f"{self.__name__}() missing a required argument")
        return tuple(args)

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != self.n_params:
            args = self._bind(args, kwargs)
        if args and type(args[0]) is not Tensor and grad_mode._state.raw:
            return self._on_arrays(args)
        if autocast_hook is not None:  # Note [Autocast] in amp/autocast_mode.py
            args = autocast_hook(self.__name__, args)
        n_inputs = self.n_inputs
        if self.inputs_lead:
            inputs = args[:n_inputs] if self.has_attributes else args
            first = inputs[0] if inputs else None
            if n_inputs == 1 and isinstance(first, Tensor) and first.dtype.is_floating_point:
                arrays = (first._data,)  # unary ops: nothing to promote
            else:
                arrays = _same_dtype_arrays(inputs) or self._arrays(inputs, args)
            forward_args = (*arrays, *args[n_inputs:]) if self.has_attributes else arrays
        else:
            inputs = tuple(args[i] for i in self.input_positions)
            forward_args = list(args)
            for i, array in zip(self.input_positions, self._arrays(inputs, args)):
                forward_args[i] = array
        xp = np
        if _backend.active:  # a device backend exists: find the arrays' module, or refuse a mix
            xp, forward_args = _backend.module_of(forward_args)
        quiet = None if self.is_view else _ERROR_STATE.set(_QUIET)  # views do no arithmetic
        try:
            out = self.forward(xp, *forward_args)
        except ValueError:
            # NumPy's broadcasting error, in torch's words; other ValueErrors pass through.
            broadcast_shapes(*(t._data.shape for t in inputs if isinstance(t, Tensor)))
            raise
        except TypeError as error:
            if "'NoneType'" in str(error):  # mul(x, None): torch's words, not Python's
                self.refuse_none(inputs)
            if xp is not np and _backend.refused(error):
                raise NotImplementedError(
                    f"tapegrad's {self.__name__.lstrip('_')} does not run on "
                    f"{_backend.device_of(_backend.first_device_array(forward_args))} yet: "
                    f"it reaches a NumPy-only function ({error})") from error
            raise
        finally:
            if quiet is not None:
                _ERROR_STATE.reset(quiet)
        if type(out) is tuple:
            outputs = tuple(Tensor._make(_as_array(o)) for o in out)
        else:
            outputs = (Tensor._make(_as_array(out)),)
        if self.is_view:
            several = type(out) is tuple  # split, unbind: every output is a view of the input
            for output_nr, result in enumerate(outputs):
                _mark_view(result, inputs[0], self.forward, args[1:],
                           output_nr if several else None)
                # torch: a view made without recording requires grad if its base does
                result._requires_grad = (result._base._requires_grad
                                         and result.dtype.is_differentiable)
        if self.differentiable:
            if grad_mode._state.recording:
                for value in inputs:
                    if isinstance(value, Tensor) and (
                            value._requires_grad
                            or value._base is not None and view_requires_grad(value)):
                        self._record(args, inputs, outputs)
                        break
            if forward_ad._level is not None:
                forward_ad.propagate(self, args, self.input_positions, outputs)
        return outputs if type(out) is tuple else outputs[0]

    def _on_arrays(self, args):
        """Inside a formula running on arrays (Note [Formulas on arrays]): the forward on
        arrays and numbers, floating arrays all of one dtype (and masks, and indices where
        the op does no promotion), as NumPy computes it."""
        dtype = None
        for i in self.input_positions:
            value = args[i]
            if is_array(value):
                kind = value.dtype.kind
                if kind == "f" and (dtype is None or value.dtype == dtype):
                    dtype = value.dtype
                elif kind != "b" and (kind not in "iu" or self.promote is not None):
                    # integers only where the op takes them as they are (indices), never
                    # into arithmetic, where NumPy's promotion is not torch's
                    raise OnTensorsOnly(self.__name__)
            elif type(value) is not float and type(value) is not int and value is not None:
                raise OnTensorsOnly(self.__name__)
        xp = np
        if _backend.active:
            xp, args = _backend.module_of(args)
        out = self.forward(xp, *args)
        if type(out) is tuple:
            return tuple(_float_or_mask(o, self) for o in out)
        return _float_or_mask(out, self)

    def _arrays(self, inputs, args):
        """The general path of argument conversion: type checks, then promotion."""
        for position, value in enumerate(inputs):
            if (self.n_inputs == 1 and not isinstance(value, Tensor)
                    or isinstance(value, (list, tuple, str, np.ndarray))):
                raise TypeError(f"{self.__name__.lstrip('_')}(): argument "
                                f"'{self.input_names[position]}' (position {position + 1}) "
                                f"must be Tensor, not {type_name(value)}")
        return _promoted_arrays(inputs, self.promote, [args[i] for i in self.scalar_positions])

    def refuse_none(self, inputs):
        """torch's TypeError for a None where the op wants a tensor (the forward failed on it,
        or cannot take it): ops with optional tensors (clamp's min, max) let None through."""
        for position, value in enumerate(inputs):
            if value is None:
                raise TypeError(f"{self.__name__.lstrip('_')}(): argument "
                                f"'{self.input_names[position]}' (position {position + 1}) "
                                "must be Tensor, not NoneType") from None

    def _record(self, args, inputs, outputs):
        node = object.__new__(self.node_class)  # every slot is set below: skip Node.__init__
        node._sequence_nr = next(sequence_numbers)
        if anomaly_mode._enabled:
            anomaly_mode.record_forward_trace(node)
        if self.n_inputs == 1:  # unary ops (and views) are the most common: no loop
            value = inputs[0]  # a Tensor: one-input ops take nothing else
            edge = edge_of(value)
            node.next_functions, node._input_metadata = (edge,), ((value._data.shape, value.dtype),)
            needed_mask = edge[0] is not None and self.formulas[0] is not None
            node._needs_input_grad = [needed_mask]
        else:
            edges, metadata, needs, needed_mask, bit = [], [], [], 0, 1
            for value, formula in zip(inputs, self.formulas):
                if isinstance(value, Tensor):
                    edge = edge_of(value)
                    metadata.append((value._data.shape, value.dtype))
                else:
                    edge = _NO_EDGE
                    metadata.append(None)
                edges.append(edge)
                if edge[0] is None or formula is None:
                    needs.append(False)
                else:
                    needs.append(True)
                    needed_mask |= bit
                bit <<= 1
            if self.edges_of_required_only:
                kept = [i for i, edge in enumerate(edges) if edge[0] is not None]
                edges, metadata = [edges[i] for i in kept], [metadata[i] for i in kept]
                needs = [needs[i] for i in kept]
            node.next_functions, node._input_metadata = tuple(edges), tuple(metadata)
            node._needs_input_grad = needs
        node._n_outputs = len(outputs)
        for output_nr, result in enumerate(outputs):
            if result.dtype.is_differentiable:
                result._requires_grad = True
                result._grad_fn = node
                if output_nr:  # 0 is the class default
                    result._output_nr = output_nr
        saved = {}
        for name, kind, index, readers in self.save_plan:
            if readers and not readers & needed_mask:
                continue
            if kind is _OUTPUT:
                saved[name] = save(outputs[index], node)
            else:
                value = args[index]
                saved[name] = save(value) if isinstance(value, Tensor) else value
        node._saved = saved


counting_tensor(Op._arrays)  # their texts count the tensor as position 1 (torch.<name>'s)
counting_tensor(Op.refuse_none)


def _names_read(function, depth=2):
    """Attribute and global names a formula's code uses, following module-level helpers it
    calls (so `lambda ctx: _inside_bounds(ctx)` counts what _inside_bounds reads)."""
    if function is None:
        return set()
    names, codes = set(), [function.__code__]
    while codes:
        code = codes.pop()
        names.update(code.co_names)
        codes.extend(c for c in code.co_consts if isinstance(c, types.CodeType))
    if depth:
        for name in list(names):
            helper = function.__globals__.get(name)
            if isinstance(helper, types.FunctionType):
                names |= _names_read(helper, depth - 1)
    return names


_NO_EDGE = (None, 0)


def edge_of(value):
    if value._base is not None and value._view_version != value._version_counter[0]:
        regenerate_view(value)  # Note [View regeneration] in _inplace.py
    if value._grad_fn is not None:
        return (value._grad_fn, value._output_nr)
    if value._requires_grad:
        return (value._grad_accumulator(), 0)
    return _NO_EDGE


def regenerate_view(view):
    """A view's node after its storage was written (Note [View regeneration] in _inplace.py).
    None is needed while neither the view nor its base is differentiable: the version is
    checked again later, as in torch."""
    if view._grad_fn is not None or view._base._requires_grad:
        from ._inplace import regenerate_view_node  # _inplace builds on this module
        regenerate_view_node(view)


def view_requires_grad(view):
    """Whether an op must record a view that has no requires_grad of its own: torch's views
    require grad whenever their base does (and take a new node if the storage was written)."""
    if not view._base._requires_grad:
        return False
    if view._view_version != view._version_counter[0]:
        regenerate_view(view)
    return view.dtype.is_differentiable


def is_array(value):
    """Whether value is an array (NumPy's, a device's) or a NumPy scalar: a formula's value
    running on arrays."""
    return isinstance(value, (np.ndarray, np.generic)) or (
        _backend.active and type(value) in _backend.ARRAY_TYPES)


def array_of(value):
    """A tensor's array; an array as it is (a formula's value running on arrays)."""
    return value._data if isinstance(value, Tensor) else value


def _float_or_mask(value, op):
    """An op's result inside a formula on arrays: integers (a count of a mask, an index)
    would meet NumPy's promotion rules, not torch's, so the formula goes back to Tensors."""
    value = _as_array(value)
    if value.dtype.kind not in "fb":
        raise OnTensorsOnly(op.__name__)
    return value


def _as_array(value):
    """An op's result as an array: NumPy's scalars become 0-d arrays, device arrays stay."""
    if type(value) is np.ndarray:
        return value
    return _backend.array_module(value).asarray(value) if _backend.active else np.asarray(value)


def _promoted_arrays(inputs, promote, scalars=()):
    """The inputs as arrays (numbers stay numbers), cast to the dtype torch computes in;
    `scalars` are number attributes that take part in promotion (x ** 2.5, clamp(x, 0.5))."""
    if promote is None:
        return [t._data if isinstance(t, Tensor) else t for t in inputs]
    tensors = [t for t in inputs if isinstance(t, Tensor)]
    numbers = [v for v in (*inputs, *scalars) if v is not None and not isinstance(v, Tensor)]
    target = _dtype.result_type([t.dtype for t in tensors if t._data.ndim],
                                [t.dtype for t in tensors if not t._data.ndim], numbers)
    if promote == "float" and not (target.is_floating_point or target.is_complex):
        target = _dtype.get_default_dtype()
    arrays = []
    for value in inputs:
        if isinstance(value, Tensor):
            value = value._data if value.dtype is target else value._data.astype(target.numpy)
        elif value is not None and (not target.is_differentiable or isinstance(value, complex)
                                    or isinstance(value, np.generic)):
            # An int/bool result (wrapping around like torch: uint8 - 3 is 253), or a number
            # that would otherwise widen the array dtype (a NumPy scalar keeps its own).
            value = np.asarray(value).astype(target.numpy)
        arrays.append(value)
    return arrays


def _same_dtype_arrays(inputs):
    """The common case in one pass: float tensors of one dtype, with int/float numbers;
    None (to take the general path) for anything else."""
    arrays, dtype = [], None
    for value in inputs:
        if type(value) is float or type(value) is int:
            arrays.append(value)
        elif isinstance(value, Tensor) and (dtype is None or value.dtype is dtype):
            dtype = value.dtype
            arrays.append(value._data)
        else:
            return None
    return arrays if dtype is not None and dtype.is_floating_point else None


def _mark_view(result, input, forward, attrs, output_nr=None):
    """Share storage bookkeeping with the input: one version counter, one base.
    output_nr: which of a multi-output view op's results this is (its view_fn picks it)."""
    if output_nr is not None:
        forward = _one_output(forward, output_nr)
    result._version_counter = input._version_counter
    result._view_version = input._version_counter[0]
    if result._is_inference is not input._is_inference:  # a view made in inference mode is
        result._is_inference = input._is_inference     # not an inference tensor
    # How the view was made, when torch refuses in-place writes to it (ops/_inplace.py):
    # torch's CreationMeta, the view's own unless that is the default or the input's is
    # inference mode.
    state = grad_mode._state
    meta = ("inference" if state.inference else "no_grad" if not state.grad_mode
            else "multi_output" if output_nr is not None else None)
    inherited = input.__dict__.get("_creation_meta")
    if inherited == "inference" or meta is None:
        meta = inherited
    if meta is not None:
        result.__dict__["_creation_meta"] = meta
    base_view = input._view_fn
    if input._base is None:
        result._base, result._view_fn = input, (lambda a: forward(_backend.array_module(a), a,
                                                                        *attrs))
    else:
        result._base = input._base
        result._view_fn = lambda a: _view_again(forward, base_view(a), attrs)


def _view_again(forward, array, attrs):
    return forward(_backend.array_module(array), array, *attrs)


def _one_output(forward, output_nr):
    """A multi-output view op's forward, reduced to the view it returns at output_nr."""
    return lambda xp, *args: forward(xp, *args)[output_nr]


def defop(node_name, save=(), promote=None, view=False, name=None, scalars=()):
    """Declare an op; see the module docstring.

    promote: None (inputs as given), "common" (torch's result type) or "float" (common, then
    integers to the default float dtype). view: the output shares the input's storage.
    scalars: names of number attributes that take part in type promotion.
    """
    def wrap(forward):
        return (_OpWithScalars if scalars else Op)(forward, node_name, save, promote, view,
                                                   name, scalars)
    return wrap


class _OpWithScalars(Op):
    """An op with number attributes: NumPy scalars among them become Python numbers before
    the forward sees or saves them (x ** np.float64(2) stays float32, as in torch)."""

    def __call__(self, *args, **kwargs):
        if kwargs or len(args) != self.n_params:
            args = self._bind(args, kwargs)
        for position in self.scalar_positions:
            if isinstance(args[position], np.generic):
                args = tuple(_dtype.python_number(value) if isinstance(value, np.generic)
                             and i in self.scalar_positions else value
                             for i, value in enumerate(args))
                break
        return Op.__call__(self, *args)
