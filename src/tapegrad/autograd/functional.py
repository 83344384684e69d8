"""tapegrad.autograd.functional: jacobian, hessian and vector products of whole functions,
as torch.autograd.functional. Only the reverse-mode strategy exists; `vectorize` computes all
Jacobian rows with one batched grad call, and jvp/hvp use the double-backward trick, as torch
does."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .engine import grad as autograd_grad
from .grad_mode import enable_grad, is_grad_enabled, set_grad_enabled

if TYPE_CHECKING:
    from typing import Callable, TypeAlias

    from .._tensor import Tensor

    # a function's inputs, outputs and vectors: a Tensor or a tuple of them, as given
    _Tensors: TypeAlias = "Tensor | tuple[Tensor, ...]"
    _Function: TypeAlias = "Callable[..., _Tensors]"
    # jacobian and hessian: a block per (output, input) pair, nested as the tuples were given
    _Blocks: TypeAlias = "Tensor | tuple[Tensor, ...] | tuple[tuple[Tensor, ...], ...]"

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def vjp(func: _Function, inputs: _Tensors, v: _Tensors | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[_Tensors, _Tensors]:
    """func's outputs and the product of v with func's Jacobian at inputs."""
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "vjp", strict)
        if v is not None:
            v = _prepare_v(v, outputs, is_outputs_tuple, "vjp", create_graph)
        elif len(outputs) != 1 or outputs[0].nelement() != 1:
            raise RuntimeError("The vector v can only be None if the user-provided function "
                               "returns a single Tensor with a single element.")
    result = _last_backward(outputs, inputs, v, inputs, strict, create_graph, "back")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def jvp(func: _Function, inputs: _Tensors, v: _Tensors | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[_Tensors, _Tensors]:
    """func's outputs and the product of func's Jacobian at inputs with v."""
    with enable_grad():
        is_inputs_tuple, inputs, v = _prepare_inputs_and_v(inputs, v, "jvp", create_graph)
        is_outputs_tuple, outputs = _call(func, inputs, "jvp", strict)
        # The double-backward trick: grad_inputs = J^T u is linear in the dummy u, so its
        # gradient with respect to u, weighted by v, is J v.
        dummies = tuple(_zeros_requiring_grad(output) for output in outputs)
        grad_inputs = _grad_or_none(outputs, inputs, dummies, create_graph=True)
        _check_requires_grad(grad_inputs, "grad_inputs", strict)
    result = _last_backward(grad_inputs, dummies, v, outputs, strict, create_graph, "back_trick")
    return _finish(outputs, is_outputs_tuple, result, is_outputs_tuple, create_graph)


def jacobian(func: _Function, inputs: _Tensors, create_graph: bool = False, strict: bool = False,
             vectorize: bool = False, strategy: str = "reverse-mode") -> _Blocks:
    """The Jacobian of func at inputs, one row of vector-Jacobian products per output element;
    entry [i][j] has shape outputs[i].shape + inputs[j].shape. strategy="forward-mode" is not
    supported."""
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode". '
                             "Hint: If your function has more outputs than inputs, "
                             '"forward-mode" tends to be more performant. Otherwise, prefer to '
                             'use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError(
                "torch.autograd.functional.jacobian: `create_graph=True` and "
                '`strategy="forward-mode"` are not supported together (yet). Please either '
                'set `create_graph=False` or `strategy="reverse-mode"`.')
        _check_forward_mode(strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, "jacobian", strict)
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                                   "`vectorized=True` are not supported together. Please either "
                                   "set `strict=False` or `vectorize=False`.")
            jacobian = _vectorized_jacobian(outputs, inputs, create_graph)
        else:
            jacobian = tuple(_jacobian_of_output(i, output, inputs, create_graph, strict)
                             for i, output in enumerate(outputs))
    jacobian = _grad_postprocess(jacobian, create_graph)
    return _tuple_postprocess(jacobian, (is_outputs_tuple, is_inputs_tuple))


def _check_forward_mode(strict, vectorize):
    """torch's errors for forward-mode arguments; tapegrad has no forward-mode Jacobian yet."""
    if strict:
        raise RuntimeError('torch.autograd.functional.jacobian: `strict=True` and '
                           '`strategy="forward-mode"` are not supported together (yet). Please '
                           'either set `strict=False` or `strategy="reverse-mode"`.')
    if not vectorize:
        # torch's text lacks the space before "only"; we copy it
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian isonly implemented for `vectorize=True`.")
    raise NotImplementedError('tapegrad.autograd.functional.jacobian does not support '
                              'strategy="forward-mode" yet; use strategy="reverse-mode".')


def _vectorized_jacobian(outputs, inputs, create_graph):
    """Every Jacobian block from one batched grad call: row k of the stacked identity
    grad_outputs selects element k of the outputs, flattened and concatenated."""
    from .._creation import eye, zeros_like
    numels = [output.numel() for output in outputs]
    total = sum(numels)
    basis = tuple(columns.to(output.dtype)
                  for columns, output in zip(eye(total).split(numels, dim=1), outputs))
    flat_outputs = tuple(output.reshape(-1) for output in outputs)
    grads = _grad_or_none(flat_outputs, inputs, basis, create_graph, is_grads_batched=True)
    blocks_by_input = []
    for grad, input in zip(grads, inputs):
        if grad is None:
            grad = zeros_like(input).expand((total,) + input.shape)
        blocks_by_input.append([rows.view(output.shape + input.shape)
                                for rows, output in zip(grad.split(numels, dim=0), outputs)])
    return tuple(zip(*blocks_by_input))


def _jacobian_of_output(i, output, inputs, create_graph, strict):
    from .._creation import zeros_like
    from ..ops.joining import stack
    rows = tuple([] for _ in inputs)
    flat_output = output.reshape(-1)
    for element in range(output.nelement()):
        grads = _grad_or_none((flat_output[element],), inputs, None, create_graph,
                              retain_graph=True)
        for j, (row, grad, input) in enumerate(zip(rows, grads, inputs)):
            if grad is None:
                if strict:
                    raise RuntimeError(f"Output {i} of the user-provided function is "
                                       f"independent of input {j}. This is not allowed in "
                                       "strict mode.")
                grad = zeros_like(input)
            elif strict and create_graph and not grad.requires_grad:
                # torch reports the output index here, not the input's; we copy it.
                raise RuntimeError(f"The jacobian of the user-provided function is independent "
                                   f"of input {i}. This is not allowed in strict mode when "
                                   "create_graph=True.")
            row.append(grad)
    return tuple(stack(row, dim=0).view(output.size() + input.size())
                 for row, input in zip(rows, inputs))


def hessian(func: _Function, inputs: _Tensors, create_graph: bool = False, strict: bool = False,
            vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode") -> _Blocks:
    """The Hessian of a scalar func at inputs: the Jacobian of its Jacobian; entry [i][j] has
    shape inputs[i].shape + inputs[j].shape. `vectorize` applies to the outer Jacobian."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def scalar_func(*inputs):
        is_outputs_tuple, outputs = _call(func, inputs, "hessian", strict)
        _check_single_scalar(outputs, is_outputs_tuple, "hessian")
        return outputs[0].squeeze()

    def jacobian_func(*inputs):
        jacobian_of_inputs = jacobian(scalar_func, inputs, create_graph=True)
        _check_requires_grad(jacobian_of_inputs, "jacobian", strict)
        return jacobian_of_inputs

    result = jacobian(jacobian_func, inputs, create_graph=create_graph, strict=strict,
                      vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(result, (is_inputs_tuple, is_inputs_tuple))


def vhp(func: _Function, inputs: _Tensors, v: _Tensors | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, _Tensors]:
    """A scalar func's output and the product of v with its Hessian at inputs."""
    with enable_grad():
        is_inputs_tuple, inputs, v = _prepare_inputs_and_v(inputs, v, "vhp", create_graph)
        is_outputs_tuple, outputs, first_grads = _scalar_gradient(func, inputs, "vhp", strict)
    result = _last_backward(first_grads, inputs, v, inputs, strict, create_graph, "double_back")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def hvp(func: _Function, inputs: _Tensors, v: _Tensors | None = None, create_graph: bool = False,
        strict: bool = False) -> tuple[Tensor, _Tensors]:
    """A scalar func's output and the product of its Hessian at inputs with v (the
    double-backward trick, so it costs about twice vhp)."""
    with enable_grad():
        is_inputs_tuple, inputs, v = _prepare_inputs_and_v(inputs, v, "hvp", create_graph)
        is_outputs_tuple, outputs, first_grads = _scalar_gradient(func, inputs, "hvp", strict)
        dummies = tuple(_zeros_requiring_grad(input) for input in inputs)
        double_back = _grad_or_none(first_grads, inputs, dummies, create_graph=True)
        _check_requires_grad(double_back, "hessian", strict)
    result = _last_backward(double_back, dummies, v, inputs, strict, create_graph,
                            "double_back_trick")
    return _finish(outputs, is_outputs_tuple, result, is_inputs_tuple, create_graph)


def _as_tuple(value, arg_name, fn_name):
    """(whether value was a tuple, value as a tuple of Tensors), with torch's TypeError."""
    from .._tensor import Tensor
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, element in enumerate(values):
        if not isinstance(element, Tensor):
            where = f"value at index {i}" if is_tuple else f"given {arg_name}"
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where} has type {type(element)}.")
    return is_tuple, values


def _call(func, inputs, fn_name, strict):
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided function",
                                          fn_name)
    _check_requires_grad(outputs, "outputs", strict)
    return is_outputs_tuple, outputs


def _prepare_inputs_and_v(inputs, v, fn_name, create_graph):
    """Inputs and v for the functions whose v has the inputs' shapes (jvp, vhp, hvp)."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph, need_graph=True)
    if v is not None:
        v = _prepare_v(v, inputs, is_inputs_tuple, fn_name, create_graph)
    elif len(inputs) != 1 or inputs[0].nelement() != 1:
        raise RuntimeError("The vector v can only be None if the input to the user-provided "
                           "function is a single Tensor with a single element.")
    return is_inputs_tuple, inputs, v


def _prepare_v(v, others, is_others_tuple, fn_name, create_graph):
    _, v = _as_tuple(v, "v", fn_name)
    v = _grad_preprocess(v, create_graph, need_graph=False)
    if len(v) != len(others):
        if is_others_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(others)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for i, (element, other) in enumerate(zip(v, others)):
        if element.size() != other.size():
            prefix = f"Entry {i} in " if is_others_tuple else ""
            raise RuntimeError(f"{prefix}v has invalid size: should be {other.size()} but got "
                               f"{element.size()}.")
    return v


def _grad_preprocess(tensors, create_graph, need_graph):
    # With create_graph, a view keeps the caller's graph so the result can be differentiated
    # with respect to the caller's tensors; otherwise a fresh leaf cuts it off.
    return tuple(tensor.view_as(tensor) if create_graph and tensor.requires_grad
                 else tensor.detach().requires_grad_(need_graph) for tensor in tensors)


def _grad_postprocess(tensors, create_graph):
    from .._tensor import Tensor
    if isinstance(tensors[0], Tensor):
        return tensors if create_graph else tuple(tensor.detach() for tensor in tensors)
    return tuple(_grad_postprocess(inner, create_graph) for inner in tensors)


def _tuple_postprocess(result, was_tuple):
    """Unwrap the one-element tuples the caller did not pass in (was_tuple is a bool, or a
    pair (outer, inner) for the nested tuples of jacobian and hessian)."""
    if isinstance(was_tuple, tuple):
        if not was_tuple[1]:
            result = tuple(inner[0] for inner in result)
        was_tuple = was_tuple[0]
    return result if was_tuple else result[0]


def _finish(outputs, is_outputs_tuple, result, is_result_tuple, create_graph):
    outputs = _grad_postprocess(outputs, create_graph)
    result = _grad_postprocess(result, create_graph)
    return (_tuple_postprocess(outputs, is_outputs_tuple),
            _tuple_postprocess(result, is_result_tuple))


def _scalar_gradient(func, inputs, fn_name, strict):
    """func's outputs and the gradient of its single element, recorded for a second pass."""
    is_outputs_tuple, outputs = _call(func, inputs, fn_name, strict)
    _check_single_scalar(outputs, is_outputs_tuple, fn_name)
    first_grads = _grad_or_none(outputs, inputs, None, create_graph=True)
    _check_requires_grad(first_grads, "jacobian", strict)
    return is_outputs_tuple, outputs, first_grads


def _last_backward(outputs, inputs, v, references, strict, create_graph, stage):
    """The v-weighted backward pass that ends vjp, jvp, vhp and hvp; it records only when
    create_graph asks for it or grad mode was on for the caller."""
    with set_grad_enabled(create_graph or is_grad_enabled()):
        grads = _grad_or_none(outputs, inputs, v, create_graph)
        return _fill_in_zeros(grads, references, strict, create_graph, stage)


def _zeros_requiring_grad(like):
    from .._creation import zeros_like
    return zeros_like(like, requires_grad=True)


def _check_single_scalar(outputs, is_outputs_tuple, fn_name):
    if is_outputs_tuple:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


def _grad_or_none(outputs, inputs, grad_outputs, create_graph, retain_graph=None,
                  is_grads_batched=False):
    """autograd.grad over the outputs that require grad, None for every input when none does
    and for each input the outputs do not reach."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    kept = [(output, grad_output) for output, grad_output in zip(outputs, grad_outputs)
            if output is not None and output.requires_grad]
    if not kept:
        return (None,) * len(inputs)
    kept_outputs, kept_grad_outputs = zip(*kept)
    return autograd_grad(kept_outputs, inputs, kept_grad_outputs, retain_graph=retain_graph,
                         create_graph=create_graph, allow_unused=True,
                         is_grads_batched=is_grads_batched)


_REQUIRES_GRAD_ERRORS = {
    "outputs": "Output {i} of the user-provided function does not require gradients. The outputs "
               "must be computed in a differentiable manner from the input when running in "
               "strict mode.",
    "grad_inputs": "The gradient with respect to input {i} is independent of the inputs of the "
                   "user-provided function. This is not allowed in strict mode.",
    "jacobian": "While computing the hessian, found that the jacobian of the user-provided "
                "function with respect to input {i} is independent of the input. This is not "
                "allowed in strict mode. You should ensure that your function is twice "
                "differentiable and that the jacobian depends on the inputs (this would be "
                "violated by a linear function for example).",
    "hessian": "The hessian of the user-provided function with respect to input {i} is "
               "independent of the input. This is not allowed in strict mode. You should ensure "
               "that your function is thrice differentiable and that the hessian depends on "
               "the inputs.",
}


def _check_requires_grad(tensors, kind, strict):
    """In strict mode, every tensor of this stage must exist and depend on the inputs."""
    if not strict:
        return
    for i, tensor in enumerate(tensors):
        if tensor is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not tensor.requires_grad:
            raise RuntimeError(_REQUIRES_GRAD_ERRORS[kind].format(i=i))


_MISSING_GRAD_ERRORS = {
    "back": "The output of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {i} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {i}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry {i} "
                         "in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD.",
}


def _fill_in_zeros(grads, references, strict, create_graph, stage):
    """Zeros for the None gradients (an error in strict mode)."""
    from .._creation import zeros_like
    filled = []
    for i, (grad, reference) in enumerate(zip(grads, references)):
        if grad is None:
            if strict:
                raise RuntimeError(_MISSING_GRAD_ERRORS[stage].format(i=i))
            grad = zeros_like(reference)
        elif strict and create_graph and not grad.requires_grad:
            what = "hessian" if stage.startswith("double") else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        filled.append(grad)
    return tuple(filled)
