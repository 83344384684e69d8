"""Recurrent layers (RNN, LSTM, GRU) and their single-step cells, as torch.nn's.

A layer projects the whole input sequence through weight_ih in one matmul, then runs the
recurrence step by step; the backward pass is the recorded graph of those steps, node for
node torch's. Where torch's CPU LSTM runs oneDNN (float32, no projections), each layer and
direction is one fused op instead (mkldnn_rnn_layer, one MkldnnRnnLayerBackward0 node).
A PackedSequence input runs each step on the sequences still running only; the others keep
their state (their last one, or the initial one until a reversed direction reaches them).
"""
from __future__ import annotations

import math
import numbers
from typing import Any, overload

import tapegrad
from tapegrad._dtype import dtype as _dtype
from tapegrad._tensor import Tensor

from .. import functional as F
from .. import init
from ..common_types import DeviceLikeType
from ..parameter import Parameter
from .module import Module
from ..._warnings import warn
from ...ops.functional_rnn import gru_step, lstm_step, rnn_relu_step, rnn_tanh_step
from ...ops.rnn import mkldnn_rnn_layer
from ..utils.rnn import PackedSequence

__all__ = ["GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase"]


# one time step of each mode (tapegrad.ops.functional_rnn, whose cells nn's cells run)
_STEPS = {"RNN_TANH": rnn_tanh_step, "RNN_RELU": rnn_relu_step, "LSTM": lstm_step,
          "GRU": gru_step}
_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _run_direction(step, input_gates, state, weights, reverse):
    """Run the recurrence over time-major input_gates; returns (stacked outputs, last state)."""
    gates_per_step = input_gates.unbind(0)
    outputs = [None] * len(gates_per_step)
    order = range(len(outputs) - 1, -1, -1) if reverse else range(len(outputs))
    for time in order:
        outputs[time], state = step(gates_per_step[time], state, *weights)
    return tapegrad.stack(outputs), state


def _run_packed_direction(step, gates, sizes, state, weights, reverse):
    """The recurrence over packed steps (gates: one per step, sizes[t] rows each); returns
    (the outputs as packed data, the final state of every sequence)."""
    outputs = [None] * len(sizes)
    for time in (range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))):
        size = sizes[time]
        outputs[time], new = step(gates[time], tuple(part[:size] for part in state), *weights)
        state = tuple(done if size == part.shape[0] else tapegrad.cat([done, part[size:]])
                      for done, part in zip(new, state))
    return tapegrad.cat(outputs), state


def _check_fused_states(input, hx):
    """torch's errors when oneDNN's LSTM is given initial states it cannot take: it converts
    h_0 then c_0 (float32, bfloat16, float16 only), then needs all in the input's dtype."""
    for state in hx:
        if state.dtype.name not in ("float32", "bfloat16", "float16", "uint8", "int8"):
            raise RuntimeError("get_mkldnn_dtype: unsupported data type")
        if state.dtype.name in ("uint8", "int8"):
            raise RuntimeError(
                "itensor_view_from_dense expects float, bfloat16 or half tensor input")
    if any(state.dtype is not input.dtype for state in hx):
        raise RuntimeError(
            "could not create a primitive descriptor for the LSTM forward propagation "
            "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
            "additional diagnostic information.")


def _reset_uniform(module):
    stdv = 1.0 / math.sqrt(module.hidden_size) if module.hidden_size > 0 else 0
    for weight in module.parameters():
        init.uniform_(weight, -stdv, stdv)


def _check_init_args(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                     proj_size):
    if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
            or isinstance(dropout, bool)):
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if dropout > 0 and num_layers == 1:
        warn("dropout option adds dropout after all but last recurrent layer, so "
             "non-zero dropout expects num_layers greater than 1, but got "
             f"dropout={dropout} and num_layers={num_layers}")
    for name, value, kind in (("bias", bias, bool), ("batch_first", batch_first, bool),
                              ("input_size", input_size, int),
                              ("hidden_size", hidden_size, int)):
        if not isinstance(value, kind):
            raise TypeError(f"{name} should be of type {kind.__name__}, got: "
                            f"{type(value).__name__}")
        if kind is int and value <= 0:
            raise ValueError(f"{name} must be greater than zero")
    if num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")


class RNNBase(Module):
    """What RNN, LSTM and GRU share: parameters per layer and direction, checks, the loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        _check_init_args(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         proj_size)
        if mode not in _GATES:
            raise ValueError("Unrecognized RNN mode: " + mode)
        self._flat_weights_names: list[str] = []
        self._all_weights: list[list[str]] = []
        for layer in range(num_layers):
            for direction in range(2 if bidirectional else 1):
                self._add_direction(layer, direction, device, dtype)
        self.reset_parameters()

    def _add_direction(self, layer, direction, device, dtype):
        """Register weight_ih_l{k}, weight_hh_l{k}... (suffix _reverse) in torch's order."""
        gate_size = _GATES[self.mode] * self.hidden_size
        real_hidden_size = self.proj_size or self.hidden_size
        layer_input_size = (self.input_size if layer == 0
                            else real_hidden_size * (2 if self.bidirectional else 1))
        shapes = {"weight_ih": (gate_size, layer_input_size),
                  "weight_hh": (gate_size, real_hidden_size)}
        if self.bias:
            shapes.update(bias_ih=(gate_size,), bias_hh=(gate_size,))
        if self.proj_size > 0:
            shapes["weight_hr"] = (self.proj_size, self.hidden_size)
        suffix = "_reverse" if direction == 1 else ""
        names = [f"{kind}_l{layer}{suffix}" for kind in shapes]
        for name, shape in zip(names, shapes.values()):
            setattr(self, name, Parameter(tapegrad.empty(shape, dtype=dtype, device=device)))
        self._flat_weights_names.extend(names)
        self._all_weights.append(names)

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters of each layer and direction, as lists."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self) -> None:
        """Does nothing: there is no fused (cuDNN) weight buffer to compact."""

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _reset_uniform(self)

    def extra_repr(self) -> str:
        shown = [("proj_size", self.proj_size != 0), ("num_layers", self.num_layers != 1),
                 ("bias", self.bias is not True), ("batch_first", self.batch_first is not False),
                 ("dropout", self.dropout != 0),
                 ("bidirectional", self.bidirectional is not False)]
        return ", ".join([f"{self.input_size}, {self.hidden_size}"]
                         + [f"{name}={getattr(self, name)}" for name, show in shown if show])

    # ---- argument checks, as torch's ------------------------------------------------------------
    def check_input(self, input: Tensor, batch_sizes: Tensor | None = None) -> None:
        """Raise torch's error for an input of the wrong dtype, rank or feature size."""
        weight_dtype = self._flat_weights[0].dtype
        if input.dtype != weight_dtype:
            raise ValueError(f"RNN input dtype ({input.dtype}) does not match weight dtype "
                             f"({weight_dtype}). Convert input: input.to({weight_dtype}), or "
                             f"convert model: model.to({input.dtype})")
        expected_input_dim = 2 if batch_sizes is not None else 3
        if input.dim() != expected_input_dim:
            raise RuntimeError(
                f"input must have {expected_input_dim} dimensions, got {input.dim()}")
        if self.input_size != input.size(-1):
            raise RuntimeError("input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")

    def _mini_batch(self, input: Tensor, batch_sizes: Tensor | None) -> int:
        if batch_sizes is not None:  # packed: the first step has every sequence
            return int(batch_sizes[0])
        return input.size(0) if self.batch_first else input.size(1)

    def get_expected_hidden_size(self, input: Tensor,
                                 batch_sizes: Tensor | None = None) -> tuple[int, int, int]:
        """(num_layers * num_directions, batch, proj_size or hidden_size)."""
        mini_batch = self._mini_batch(input, batch_sizes)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch,
                self.proj_size if self.proj_size > 0 else self.hidden_size)

    def check_hidden_size(self, hx: Tensor, expected_hidden_size: tuple[int, int, int],
                          msg: str = "Expected hidden size {}, got {}") -> None:
        """Raise torch's error when hx's shape is not the expected one."""
        if hx.size() != expected_hidden_size:
            raise RuntimeError(msg.format(expected_hidden_size, list(hx.size())))

    def check_forward_args(self, input: Tensor, hidden: Tensor,
                           batch_sizes: Tensor | None = None) -> None:
        """Check the input and the initial hidden state together."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden, self.get_expected_hidden_size(input, batch_sizes))

    def permute_hidden(self, hx: Tensor, permutation: Tensor | None) -> Tensor:
        """Reorder the batch of hx (identity without a permutation)."""
        if permutation is None:
            return hx
        return hx.index_select(1, permutation)

    # ---- the computation ------------------------------------------------------------------------
    def _direction_weights(self, index):
        """(weight_hh, bias_hh, weight_hr) and (weight_ih, bias_ih) of one layer-direction."""
        by_kind = {name.rsplit("_l", 1)[0]: getattr(self, name)
                   for name in self._all_weights[index]}
        return ((by_kind["weight_hh"], by_kind.get("bias_hh"), by_kind.get("weight_hr")),
                (by_kind["weight_ih"], by_kind.get("bias_ih")))

    def _composite_direction(self, index, input, state):
        """One layer-direction as recorded steps: (output, final state)."""
        recurrent, (weight_ih, bias_ih) = self._direction_weights(index)
        return _run_direction(_STEPS[self.mode], F.linear(input, weight_ih, bias_ih), state,
                              recurrent, self.bidirectional and index % 2 == 1)

    def _fused_direction(self, index, input, state):
        """One LSTM layer-direction as one fused op, with torch's arguments."""
        (weight_hh, bias_hh, _), (weight_ih, bias_ih) = self._direction_weights(index)
        output, hidden, cell, _ = mkldnn_rnn_layer(
            input, weight_ih, weight_hh, bias_ih, bias_hh, *state,
            self.bidirectional and index % 2 == 1, [], 2, self.hidden_size, self.num_layers,
            self.bias, self.bidirectional, False, self.training)
        return output, (hidden, cell)

    def _uses_fused_layers(self, input):
        """torch's CPU LSTM takes its oneDNN path for non-empty float32 input unless it has
        projections."""
        return (self.mode == "LSTM" and not self.proj_size and input.dtype is tapegrad.float32
                and input.device.type == "cpu" and input.numel() > 0)

    def _run(self, input, states, run_direction):
        """All layers over time-major input; states: one initial state tuple per
        layer-direction; run_direction(index, input, state) -> (output, final state).
        Returns the last layer's output and the final states, stacked."""
        directions = 2 if self.bidirectional else 1
        final_states = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                output, state = run_direction(index, input, states[index])
                outputs.append(output)
                final_states.append(state)
            input = outputs[0] if directions == 1 else tapegrad.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                input = F.dropout(input, self.dropout, True)
        return input, tuple(tapegrad.stack(parts) for parts in zip(*final_states))

    def _zero_state(self, input, size, batch=None):
        batch = (input.size(0) if self.batch_first else input.size(1)) if batch is None else batch
        return tapegrad.zeros(self.num_layers * (2 if self.bidirectional else 1), batch, size,
                              dtype=input.dtype, device=input.device)

    def _forward_packed(self, packed, hx):
        """forward of a PackedSequence: (output PackedSequence, final states in the batch's
        original order)."""
        data, batch_sizes, sorted_indices, unsorted_indices = packed
        is_lstm = self.mode == "LSTM"
        if hx is None:
            batch = int(batch_sizes[0])
            hx = ((self._zero_state(data, self.proj_size or self.hidden_size, batch),
                   self._zero_state(data, self.hidden_size, batch)) if is_lstm
                  else (self._zero_state(data, self.hidden_size, batch),))
        else:
            hx = self.permute_hidden(hx, sorted_indices)
            hx = tuple(hx) if is_lstm else (hx,)
        self.check_forward_args(data, hx if is_lstm else hx[0], batch_sizes)
        sizes = batch_sizes.tolist()
        states = list(zip(*(part.unbind(0) for part in hx)))
        directions = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                index = layer * directions + direction
                recurrent, (weight_ih, bias_ih) = self._direction_weights(index)
                gates = F.linear(data, weight_ih, bias_ih).split(sizes)
                output, state = _run_packed_direction(_STEPS[self.mode], gates, sizes,
                                                      states[index], recurrent, direction == 1)
                outputs.append(output)
                finals.append(state)
            data = outputs[0] if directions == 1 else tapegrad.cat(outputs, -1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                data = F.dropout(data, self.dropout, True)
        final = tuple(tapegrad.stack(parts) for parts in zip(*finals))
        output = PackedSequence(data, batch_sizes, sorted_indices, unsorted_indices)
        return output, self.permute_hidden(final if is_lstm else final[0], unsorted_indices)

    def _forward_states(self, input, hx, is_batched):
        """Run on batched input from the checked initial states hx (a tuple)."""
        self.check_forward_args(input, hx if self.mode == "LSTM" else hx[0])
        time_major = input.transpose(0, 1) if self.batch_first else input
        if self._uses_fused_layers(time_major):
            _check_fused_states(time_major, hx)
            # as torch: a contiguous input, and each layer's initial state selected from hx
            states = [tuple(part[index] for part in hx) for index in range(len(hx[0]))]
            output, final = self._run(time_major.contiguous(), states, self._fused_direction)
        else:
            output, final = self._run(time_major, list(zip(*(part.unbind(0) for part in hx))),
                                      self._composite_direction)
        if self.batch_first:  # torch transposes RNN's and GRU's output in place, LSTM's not
            output = output.transpose(0, 1) if self.mode == "LSTM" else output.transpose_(0, 1)
        if not is_batched:
            output = output.squeeze(0 if self.batch_first else 1)
            final = tuple(part.squeeze(1) for part in final)
        return output, final

    def _forward_hidden(self, input, hx, input_dim_message):
        """forward of RNN and GRU, whose state is one hidden tensor."""
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(input_dim_message.format(input.dim()))
        is_batched = input.dim() == 3
        if hx is not None and hx.dim() != input.dim():
            raise RuntimeError(
                f"For {'batched 3-D' if is_batched else 'unbatched 2-D'} input, hx should "
                f"also be {input.dim()}-D but got {hx.dim()}-D tensor")
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
            hx = None if hx is None else hx.unsqueeze(1)
        hx = self._zero_state(input, self.hidden_size) if hx is None else hx
        output, (hidden,) = self._forward_states(input, (hx,), is_batched)
        return output, hidden


class RNN(RNNBase):
    """Elman RNN: h_t = tanh or relu(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)."""

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
                 dropout: float = 0.0, bidirectional: bool = False,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        else:
            nonlinearity = kwargs.pop("nonlinearity", "tanh")
        modes = {"tanh": "RNN_TANH", "relu": "RNN_RELU"}
        if nonlinearity not in modes:
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'.")
        super().__init__(modes[nonlinearity], *args, **kwargs)
        self.nonlinearity = nonlinearity

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(self, input: PackedSequence,
                hx: Tensor | None = None) -> tuple[PackedSequence, Tensor]: ...

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None) -> Any:
        return self._forward_hidden(
            input, hx, "RNN: Expected input to be 2D or 3D, got {}D tensor instead")


class GRU(RNNBase):
    """Gated recurrent unit layers, gates in torch's order (reset, update, new)."""

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if "proj_size" in kwargs:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        super().__init__("GRU", *args, **kwargs)

    @overload
    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]: ...

    @overload
    def forward(self, input: PackedSequence,
                hx: Tensor | None = None) -> tuple[PackedSequence, Tensor]: ...

    def forward(self, input: Tensor | PackedSequence, hx: Tensor | None = None) -> Any:
        return self._forward_hidden(input, hx,
                                    "GRU: Expected input to be 2D or 3D, got {}D instead")


class LSTM(RNNBase):
    """Long short-term memory layers (gates i, f, g, o), with optional projection of h."""

    @overload
    def __init__(self, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None: ...

    @overload
    def __init__(self, *args: Any, **kwargs: Any) -> None: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def get_expected_cell_size(self, input: Tensor,
                               batch_sizes: Tensor | None = None) -> tuple[int, int, int]:
        """(num_layers * num_directions, batch, hidden_size)."""
        mini_batch = self._mini_batch(input, batch_sizes)
        return (self.num_layers * (2 if self.bidirectional else 1), mini_batch,
                self.hidden_size)

    # these two take LSTM's (h, c) pair where RNNBase's take one tensor, as torch's do
    def check_forward_args(self, input: Tensor,  # type: ignore[override]
                           hidden: tuple[Tensor, Tensor],
                           batch_sizes: Tensor | None = None) -> None:
        """Check the input, h_0 and c_0."""
        self.check_input(input, batch_sizes)
        self.check_hidden_size(hidden[0], self.get_expected_hidden_size(input, batch_sizes),
                               "Expected hidden[0] size {}, got {}")
        self.check_hidden_size(hidden[1], self.get_expected_cell_size(input, batch_sizes),
                               "Expected hidden[1] size {}, got {}")

    def permute_hidden(self, hx: tuple[Tensor, Tensor],  # type: ignore[override]
                       permutation: Tensor | None) -> tuple[Tensor, Tensor]:
        """Reorder the batch of h and c (identity without a permutation)."""
        if permutation is None:
            return hx
        return hx[0].index_select(1, permutation), hx[1].index_select(1, permutation)

    @overload
    def forward(self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[Tensor, tuple[Tensor, Tensor]]: ...

    @overload
    def forward(self, input: PackedSequence, hx: tuple[Tensor, Tensor] | None = None
                ) -> tuple[PackedSequence, tuple[Tensor, Tensor]]: ...

    def forward(self, input: Tensor | PackedSequence,
                hx: tuple[Tensor, Tensor] | None = None) -> Any:
        if isinstance(input, PackedSequence):
            return self._forward_packed(input, hx)
        if input.dim() not in (2, 3):
            raise ValueError(f"LSTM: Expected input to be 2D or 3D, got {input.dim()}D instead")
        is_batched = input.dim() == 3
        rank = input.dim()
        if not is_batched:
            input = input.unsqueeze(0 if self.batch_first else 1)
        if hx is None:
            hx = (self._zero_state(input, self.proj_size or self.hidden_size),
                  self._zero_state(input, self.hidden_size))
        elif hx[0].dim() != rank or hx[1].dim() != rank:
            raise RuntimeError(
                f"For {'batched 3-D' if is_batched else 'unbatched 2-D'} input, hx and cx "
                f"should also be {rank}-D but got ({hx[0].dim()}-D, {hx[1].dim()}-D) tensors")
        elif not is_batched:
            hx = (hx[0].unsqueeze(1), hx[1].unsqueeze(1))
        return self._forward_states(input, tuple(hx), is_batched)


# ---- cells --------------------------------------------------------------------------------------
def _check_cell_ranks(name, input, states, labels):
    if input.dim() not in (1, 2):
        raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
    for label, state in zip(labels, states or ()):
        if state.dim() not in (1, 2):
            raise ValueError(
                f"{name}: Expected {label} to be 1D or 2D, got {state.dim()}D instead")


class RNNCellBase(Module):
    """What RNNCell, LSTMCell and GRUCell share: weight_ih, weight_hh, bias_ih, bias_hh."""

    weight_ih: Parameter
    weight_hh: Parameter
    bias_ih: Parameter | None
    bias_hh: Parameter | None

    def __init__(self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        gates = num_chunks * hidden_size
        self.weight_ih = Parameter(tapegrad.empty((gates, input_size), dtype=dtype,
                                                  device=device))
        self.weight_hh = Parameter(tapegrad.empty((gates, hidden_size), dtype=dtype,
                                                  device=device))
        for name in ("bias_ih", "bias_hh"):
            self.register_parameter(name, Parameter(tapegrad.empty(
                gates, dtype=dtype, device=device)) if bias else None)
        self.reset_parameters()

    def extra_repr(self) -> str:
        text = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            text += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            text += f", nonlinearity={self.nonlinearity}"
        return text

    def reset_parameters(self) -> None:
        """Draw every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        _reset_uniform(self)

    def _forward_step(self, cell, input, states, state_count):
        """One step of cell (tapegrad.lstm_cell, ...) on (batch, input_size) or unbatched
        input; states: a tuple or None."""
        is_batched = input.dim() == 2
        if not is_batched:
            input = input.unsqueeze(0)
            states = None if states is None else tuple(part.unsqueeze(0) for part in states)
        if states is None:
            states = (tapegrad.zeros(input.size(0), self.hidden_size, dtype=input.dtype,
                                     device=input.device),) * state_count
        states = cell(input, states if state_count == 2 else states[0], self.weight_ih,
                      self.weight_hh, self.bias_ih, self.bias_hh)
        states = states if state_count == 2 else (states,)
        return states if is_batched else tuple(part.squeeze(0) for part in states)


class RNNCell(RNNCellBase):
    """One Elman RNN step: h' = tanh or relu(W_ih x + b_ih + W_hh h + b_hh)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: DeviceLikeType | None = None,
                 dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=1, device=device,
                         dtype=dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        states = None if hx is None else (hx,)
        _check_cell_ranks("RNNCell", input, states, ("hidden",))
        cells = {"tanh": tapegrad.rnn_tanh_cell, "relu": tapegrad.rnn_relu_cell}
        if self.nonlinearity not in cells:
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._forward_step(cells[self.nonlinearity], input, states, 1)[0]


class LSTMCell(RNNCellBase):
    """One LSTM step; returns (h', c')."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=4, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor,
                hx: tuple[Tensor, Tensor] | None = None) -> tuple[Tensor, Tensor]:
        states = None if hx is None else tuple(hx)
        _check_cell_ranks("LSTMCell", input, states, ("hx[0]", "hx[1]"))
        return self._forward_step(tapegrad.lstm_cell, input, states, 2)


class GRUCell(RNNCellBase):
    """One GRU step: h' = (1 - z) * n + z * h."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLikeType | None = None, dtype: _dtype | None = None) -> None:
        super().__init__(input_size, hidden_size, bias, num_chunks=3, device=device,
                         dtype=dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        states = None if hx is None else (hx,)
        _check_cell_ranks("GRUCell", input, states, ("hidden",))
        return self._forward_step(tapegrad.gru_cell, input, states, 1)[0]
