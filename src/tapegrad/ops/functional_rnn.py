"""torch's single-step recurrent cells as functions (torch.lstm_cell, gru_cell, rnn_tanh_cell,
rnn_relu_cell), the ops nn.LSTMCell, GRUCell and RNNCell run.

Like torch's, each cell is composed of ordinary ops, so its graph holds torch's nodes with
torch's edges: W_hh h + b_hh first, then the input's part W_ih x + b_ih is added. The steps
below take the input's part already projected, because nn.RNN, LSTM and GRU project every
time step's input at once and then run the same steps.
"""
from .._tensor import Tensor
from .activation import linear, relu
from .unary import sigmoid, tanh


# ---- one time step: (input gates, state, recurrent weights) -> (output, new state) --------------
# A state is a tuple: (h,) for RNN and GRU, (h, c) for LSTM. weight_hr is the LSTM projection of
# nn.LSTM's proj_size, which the other steps accept and never get.
def rnn_tanh_step(input_gates, state, weight_hh, bias_hh, weight_hr=None):
    hidden = tanh(linear(state[0], weight_hh, bias_hh) + input_gates)
    return hidden, (hidden,)


def rnn_relu_step(input_gates, state, weight_hh, bias_hh, weight_hr=None):
    hidden = relu(linear(state[0], weight_hh, bias_hh) + input_gates)
    return hidden, (hidden,)


def lstm_step(input_gates, state, weight_hh, bias_hh, weight_hr=None):
    """Gates in torch's order: input, forget, cell candidate, output."""
    hidden, cell = state
    gates = linear(hidden, weight_hh, bias_hh) + input_gates
    in_gate, forget_gate, candidate, out_gate = gates.unsafe_chunk(4, 1)
    cell = sigmoid(forget_gate) * cell + sigmoid(in_gate) * tanh(candidate)
    hidden = sigmoid(out_gate) * tanh(cell)
    if weight_hr is not None:
        hidden = linear(hidden, weight_hr)
    return hidden, (hidden, cell)


def gru_step(input_gates, state, weight_hh, bias_hh, weight_hr=None):
    """Gates in torch's order: reset, update, new; the reset gate scales W_hn h + b_hn."""
    hidden = state[0]
    in_reset, in_update, in_new = input_gates.unsafe_chunk(3, 1)
    hid_reset, hid_update, hid_new = linear(hidden, weight_hh, bias_hh).unsafe_chunk(3, 1)
    reset_gate = sigmoid(hid_reset + in_reset)
    update_gate = sigmoid(hid_update + in_update)
    new_gate = tanh(in_new + hid_new * reset_gate)
    hidden = (hidden - new_gate) * update_gate + new_gate
    return hidden, (hidden,)


# ---- the cells ----------------------------------------------------------------------------------

def _cell(step, gates, input, states, w_ih, w_hh, b_ih, b_hh):
    """One step of a cell after torch's checks, in its order: the sizes come from the weights
    (input_size from w_ih's columns, hidden_size from w_hh's)."""
    input_size, hidden_size = w_ih.size(1), w_hh.size(1)
    if input.size(1) != input_size:
        raise RuntimeError(
            f"input has inconsistent input_size: got {input.size(1)} expected {input_size}")
    if w_ih.size(0) != gates * hidden_size:
        raise RuntimeError(f"weight_ih first dim must be {gates} * hidden_size = "
                           f"{gates * hidden_size}, but got {w_ih.size(0)}")
    for label, hidden in enumerate(states):
        if input.size(0) != hidden.size(0):
            raise RuntimeError(f"Input batch size {input.size(0)} doesn't match hidden{label} "
                               f"batch size {hidden.size(0)}")
        if hidden.size(1) != hidden_size:
            raise RuntimeError(f"hidden{label} has inconsistent hidden_size: got "
                               f"{hidden.size(1)}, expected {hidden_size}")
    return step(linear(input, w_ih, b_ih), states, w_hh, b_hh)[1]


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step on (batch, input_size) input from hx = (h, c): (h', c')."""
    if not isinstance(hx, (list, tuple)):  # a Tensor would unpack into its rows
        raise TypeError(f"lstm_cell(): argument 'hx' (position 2) must be tuple of Tensors, "
                        f"not {type(hx).__name__}")
    for index, state in enumerate(hx):
        if not isinstance(state, Tensor):  # torch counts arguments from 0 here
            raise TypeError(f"expected Tensor as element {index} in argument 1, but got "
                            f"{type(state).__name__}")
    if len(hx) != 2:
        raise RuntimeError("lstm_cell expects two hidden states")
    return _cell(lstm_step, 4, input, tuple(hx), w_ih, w_hh, b_ih, b_hh)


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: h' = (1 - z) * n + z * h."""
    return _cell(gru_step, 3, input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step: h' = tanh(W_ih x + b_ih + W_hh h + b_hh)."""
    return _cell(rnn_tanh_step, 1, input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman RNN step: h' = relu(W_ih x + b_ih + W_hh h + b_hh)."""
    return _cell(rnn_relu_step, 1, input, (hx,), w_ih, w_hh, b_ih, b_hh)[0]


FUNCTIONS = ["lstm_cell", "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]
