"""Module full backward (pre-)hooks, built from identity autograd Functions around a call.

An identity node on the module's outputs sees the output gradients first; an identity node on
its inputs sees the input gradients last and then calls the user's hooks with both, as torch's
BackwardHook does (the node names match torch's: BackwardHookFunctionBackward).
"""

import tapegrad
from tapegrad.autograd import Function
from .._warnings import warn

NO_INPUT_GRAD_WARNING = (
    "Full backward hook is firing when gradients are computed with respect to module outputs "
    "since no inputs require gradients. See https://docs.pytorch.org/docs/main/generated/"
    "torch.nn.Module.html#torch.nn.Module.register_full_backward_hook for more details.")


class BackwardHookFunction(Function):
    """Returns its tensors unchanged; backward passes their gradients through a callback."""

    @staticmethod
    def forward(ctx, on_backward, *tensors):
        ctx.on_backward = on_backward
        ctx.set_materialize_grads(False)  # an unused output's gradient stays None, as in torch
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_backward(grads))


def _pack(indices, values, size):
    packed = [None] * size
    for index, value in zip(indices, values):
        packed[index] = value
    return tuple(packed)


class BackwardHook:
    """Wires one call of a module to its full backward hooks and pre-hooks."""

    def __init__(self, module, hooks, pre_hooks):
        self.module, self.hooks, self.pre_hooks = module, hooks, pre_hooks
        self.grad_outputs = None
        self.input_indices = self.output_indices = None
        self.n_inputs = self.n_outputs = 0

    @staticmethod
    def _wrap(values, on_backward):
        """Route the tensors that need a gradient through the identity node."""
        indices = [i for i, v in enumerate(values)
                   if isinstance(v, tapegrad.Tensor) and v.requires_grad]
        if not (indices and tapegrad.is_grad_enabled()):
            return values, None
        wrapped = BackwardHookFunction.apply(on_backward, *(values[i] for i in indices))
        values = list(values)
        for index, tensor in zip(indices, wrapped):
            values[index] = tensor
        return tuple(values), indices

    def setup_input_hook(self, args):
        self.n_inputs = len(args)
        args, self.input_indices = self._wrap(args, self._on_input_grads)
        return args

    def setup_output_hook(self, result):
        is_tuple = isinstance(result, tuple)
        outputs = result if is_tuple else (result,)
        self.n_outputs = len(outputs)
        outputs, self.output_indices = self._wrap(outputs, self._on_output_grads)
        return outputs if is_tuple else outputs[0]

    def _on_output_grads(self, grads):
        self.grad_outputs = _pack(self.output_indices, grads, self.n_outputs)
        for hook in self.pre_hooks:
            replaced = hook(self.module, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(self.grad_outputs):
                raise RuntimeError("Backward pre hook returned an invalid number of grad_output, "
                                   f"got {len(replaced)}, but expected {len(self.grad_outputs)}")
            self.grad_outputs = replaced
        grad_outputs = self.grad_outputs
        if self.input_indices is None:
            warn(NO_INPUT_GRAD_WARNING)
            for hook in self.hooks:
                result = hook(self.module, (None,) * self.n_inputs, self.grad_outputs)
                if result is not None and not (isinstance(result, tuple)
                                               and all(r is None for r in result)):
                    raise RuntimeError("Backward hook for Modules where no input requires "
                                       "gradient should always return None or None for all "
                                       "gradients.")
            self.grad_outputs = None
        return tuple(grad_outputs[i] for i in self.output_indices)

    def _on_input_grads(self, grads):
        if self.grad_outputs is None:
            return grads
        grad_inputs = _pack(self.input_indices, grads, self.n_inputs)
        for hook in self.hooks:
            replaced = hook(self.module, grad_inputs, self.grad_outputs)
            if replaced is None:
                continue
            if len(replaced) != len(grad_inputs):
                raise RuntimeError("Backward hook returned an invalid number of grad_input, got "
                                   f"{len(replaced)}, but expected {len(grad_inputs)}")
            grad_inputs = replaced
        self.grad_outputs = None
        return tuple(grad_inputs[i] for i in self.input_indices)
