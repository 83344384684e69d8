"""mkldnn_rnn_layer: one LSTM layer-direction as one node (MkldnnRnnLayerBackward0), the op
torch's CPU nn.LSTM runs for float32 input through oneDNN.

The forward loops over time on arrays: one matmul projects every step's input, then each step
multiplies h by W_hh. The backward is backpropagation through time on arrays. Both are written
once over a small vocabulary (`_ArrayOps` or `_TensorOps`): when the backward is itself recorded
(create_graph), the recurrence is recomputed from the saved inputs with tapegrad ops and
differentiated with them, as torch's mkldnn_rnn_layer_differentiable_backward does.
"""
from .. import _backend
from .._tensor import Tensor
from ..autograd.grad_mode import is_recording
from ._define import defop
from .joining import cat, stack
from .shape import zeros_of
from .unary import sigmoid, tanh


class _ArrayOps:
    """The recurrence's vocabulary on the arrays of one array module (NumPy's, a device's)."""

    def __init__(self, xp):
        self.xp, self.tanh, self.cat, self.stack = xp, xp.tanh, xp.concatenate, xp.stack
        self.zeros_like = xp.zeros_like

    def transposed(self, weight):
        # OpenBLAS multiplies a small h by a row-major W_hh^T about 3x faster than by a view
        return self.xp.ascontiguousarray(weight.T)

    def activation(self, hidden_size, dtype):
        """The gates' activation: sigmoid on i, f, o and tanh on g, in one tanh over
        contiguous memory, as a * tanh(a * x) + b per column: sigmoid for a = b = 1/2 (which
        never overflows), tanh for a = 1, b = 0."""
        xp = self.xp
        is_candidate = xp.repeat(xp.asarray([False, False, True, False]), hidden_size)
        scale = xp.where(is_candidate, 1, 0.5).astype(dtype)
        offset = xp.where(is_candidate, 0, 0.5).astype(dtype)

        def activate(gates):
            active = xp.tanh(gates * scale)
            active *= scale
            active += offset
            return active
        return activate


class _TensorOps:
    """The same vocabulary in tapegrad ops, for a backward that is being recorded."""
    tanh = staticmethod(tanh)
    cat = staticmethod(cat)
    stack = staticmethod(stack)
    zeros_like = staticmethod(zeros_of)

    @staticmethod
    def transposed(weight):
        return weight.T

    @staticmethod
    def activation(hidden_size, dtype):
        size = hidden_size
        return lambda gates: cat([sigmoid(gates[:, :2 * size]),
                                  tanh(gates[:, 2 * size:3 * size]),
                                  sigmoid(gates[:, 3 * size:])], 1)


def _time_order(steps, reverse):
    return range(steps - 1, -1, -1) if reverse else range(steps)


def _chunks(gates, hidden_size):
    """The i, f, g, o parts of gates along the last dim."""
    return [gates[..., k * hidden_size:(k + 1) * hidden_size] for k in range(4)]


def _states_before(ops, states, initial, reverse):
    """The state each step starts from, in time order: states (time order) shifted by one
    step of the recurrence, the initial state first."""
    first = initial.reshape(1, *initial.shape)
    return ops.cat([states[1:], first], 0) if reverse else ops.cat([first, states[:-1]], 0)


def _recurrence(ops, input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx, reverse):
    """Lists in time order of the outputs, activated gates (i f g o) and cells of each step,
    from time-major input (steps, batch, input_size)."""
    steps, batch, input_size = input.shape
    hidden_size = weight_hh.shape[1]
    projected = input.reshape(steps * batch, input_size) @ weight_ih.T  # all steps at once
    if bias_ih is not None:
        projected = projected + (bias_ih + bias_hh)
    projected = projected.reshape(steps, batch, 4 * hidden_size)
    recurrent = ops.transposed(weight_hh)
    activate = ops.activation(hidden_size, hx.dtype)
    hidden, cell = hx, cx
    outputs, gates, cells = ([None] * steps for _ in range(3))
    for time in _time_order(steps, reverse):
        active = activate(projected[time] + hidden @ recurrent)
        in_gate, forget_gate, candidate, out_gate = _chunks(active, hidden_size)
        cell = forget_gate * cell + in_gate * candidate
        hidden = out_gate * ops.tanh(cell)
        outputs[time], gates[time], cells[time] = hidden, active, cell
    return outputs, gates, cells


def _backpropagate(ops, grads, input, weight_ih, weight_hh, hx, cx, output, gates, cells,
                   reverse, needs_input_grad):
    """Gradients of (input, weight_ih, weight_hh, bias_ih, bias_hh, hx, cx) from those of
    (output, hy, cy), None where not needed."""
    grad_output, grad_hidden, grad_cell = grads
    steps, batch, hidden_size = output.shape
    if grad_output is None:
        grad_output = ops.zeros_like(output)
    if grad_hidden is None:
        grad_hidden = ops.zeros_like(hx)
    if grad_cell is None:
        grad_cell = ops.zeros_like(cx)
    # What does not depend on the incoming gradients, for every step at once: how h moves c
    # (h = o * tanh(c)), and how each gate's input moves with c's gradient (i, f, g) or h's (o)
    in_gate, forget_gate, candidate, out_gate = _chunks(gates, hidden_size)
    cell_tanh = ops.tanh(cells)
    cell_slope = out_gate * (1 - cell_tanh * cell_tanh)
    cell_before = _states_before(ops, cells, cx, reverse)
    gate_slopes = ops.cat([candidate * in_gate * (1 - in_gate),
                           cell_before * forget_gate * (1 - forget_gate),
                           in_gate * (1 - candidate * candidate),
                           cell_tanh * out_gate * (1 - out_gate)], 2)
    grad_gates = [None] * steps
    for time in reversed(_time_order(steps, reverse)):
        grad_h = grad_output[time] + grad_hidden
        grad_cell = grad_cell + grad_h * cell_slope[time]
        grad_gates[time] = (ops.cat([grad_cell, grad_cell, grad_cell, grad_h], 1)
                            * gate_slopes[time])
        grad_hidden = grad_gates[time] @ weight_hh
        grad_cell = grad_cell * forget_gate[time]
    flat = ops.stack(grad_gates, 0).reshape(steps * batch, 4 * hidden_size)
    needs = needs_input_grad
    hidden_before = _states_before(ops, output, hx, reverse) if needs[2] else None
    return ((flat @ weight_ih).reshape(steps, batch, -1) if needs[0] else None,
            flat.T @ input.reshape(steps * batch, -1) if needs[1] else None,
            flat.T @ hidden_before.reshape(steps * batch, hidden_size) if needs[2] else None,
            *(flat.sum(0) if needed else None for needed in needs[3:5]),
            grad_hidden, grad_cell)


@defop("MkldnnRnnLayerBackward0",
       save=("input", "weight0", "weight1", "weight2", "weight3", "hx_", "cx_", "reverse",
             "result0", "result3"))
def mkldnn_rnn_layer(xp, input: Tensor, weight0: Tensor, weight1: Tensor, weight2: Tensor,
                     weight3: Tensor, hx_: Tensor, cx_: Tensor, reverse, batch_sizes, mode,
                     hidden_size, num_layers, has_biases, bidirectional, batch_first, train):
    """torch.mkldnn_rnn_layer for an LSTM (weights w_ih, w_hh, b_ih, b_hh; biases None when
    has_biases is false) on time-major input: (output, h_n, c_n, workspace). The workspace
    holds the activated gates and cells for backward, as uint8 bytes like torch's (whose bytes
    are oneDNN's). batch_sizes, mode, num_layers, bidirectional, batch_first and train are
    torch's bookkeeping: its nn.LSTM passes batch_first=False, having transposed the input."""
    outputs, gates, cells = _recurrence(_ArrayOps(xp), input, weight0, weight1, weight2, weight3,
                                        hx_, cx_, reverse)
    steps, batch, hidden_size = len(outputs), *outputs[0].shape
    workspace = xp.empty((steps, batch, 5 * hidden_size), outputs[0].dtype)
    xp.stack(gates, 0, out=workspace[..., :4 * hidden_size])
    xp.stack(cells, 0, out=workspace[..., 4 * hidden_size:])
    last = 0 if reverse else -1
    return (xp.stack(outputs, 0), outputs[last], cells[last],
            workspace.reshape(-1).view(xp.uint8))


def _layer_grads(ctx):
    """The seven input gradients, computed once per node run: on arrays, or recorded in
    tapegrad ops when create_graph is on."""
    if "grads_of_inputs" in vars(ctx):
        return ctx.grads_of_inputs
    input, reverse = ctx.input, ctx.reverse
    weights = (ctx.weight0, ctx.weight1, ctx.weight2, ctx.weight3)
    needs = ctx._node._needs_input_grad
    if is_recording():
        output, gates, cells = (stack(values, 0) for values in _recurrence(
            _TensorOps, input, *weights, ctx.hx_, ctx.cx_, reverse))
        grads = _backpropagate(_TensorOps, ctx.grads[:3], input, weights[0],
                               weights[1], ctx.hx_, ctx.cx_, output, gates, cells, reverse,
                               needs)
    else:
        # Tensors here too: the uint8 workspace keeps this op off the path of formulas on
        # arrays (Note [Formulas on arrays] in _define.py); its arrays are taken below
        output = ctx.result0._data
        steps, batch, hidden_size = output.shape
        workspace = ctx.result3._data.view(output.dtype).reshape(steps, batch, 5 * hidden_size)
        arrays = [None if t is None else t._data
                  for t in (input, *ctx.grads[:3], *weights[:2], ctx.hx_, ctx.cx_)]
        grads = _backpropagate(_ArrayOps(_backend.array_module(output)), arrays[1:4],
                               arrays[0], *arrays[4:], output, workspace[..., :4 * hidden_size],
                               workspace[..., 4 * hidden_size:], reverse, needs)
        grads = [None if g is None else Tensor._make(g) for g in grads]
    ctx.grads_of_inputs = grads
    return grads


mkldnn_rnn_layer.derivatives(input=lambda ctx: _layer_grads(ctx)[0],
                             weight0=lambda ctx: _layer_grads(ctx)[1],
                             weight1=lambda ctx: _layer_grads(ctx)[2],
                             weight2=lambda ctx: _layer_grads(ctx)[3],
                             weight3=lambda ctx: _layer_grads(ctx)[4],
                             hx_=lambda ctx: _layer_grads(ctx)[5],
                             cx_=lambda ctx: _layer_grads(ctx)[6])
