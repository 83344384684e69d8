"""op_db rows of torch's functional recurrent cells (tapegrad/ops/functional_rnn.py) and of
torch.convolution and conv_tbc (tapegrad/ops/conv.py), and
native_channel_shuffle (tapegrad/ops/shuffle.py)."""
import numpy as np

from op_db import OpRow, S, each

_rng = np.random.default_rng(20261202)

# Gate pre-activations sum up to 9 products: values in [-1, 1] keep sigmoid and tanh away
# from saturation, where finite differences lose their digits.
UNIT = each(lambda rng, shape: rng.uniform(-1.0, 1.0, shape))


def _lstm_cell(lib, x, h, c, *weights):
    """lstm_cell's (h', c') in one output (second-order checks want one)."""
    hidden, cell = lib.lstm_cell(x, (h, c), *weights)
    return hidden * cell


def _cell(name):
    return lambda lib, x, h, *weights: getattr(lib, name)(x, h, *weights)


def _cell_shapes(gates, biases=True):
    """x (3, 4), h (3, 5) and the weights of a cell with `gates` gates of hidden size 5."""
    return ((3, 4), (3, 5), (gates * 5, 4), (gates * 5, 5)) + ((gates * 5,),) * (2 * biases)


def _convolution(lib, x, w, b, stride=(1,), padding=(0,), dilation=(1,), transposed=False,
                 output_padding=(0,), groups=1):
    return lib.convolution(x, w, b, list(stride), list(padding), list(dilation), transposed,
                           list(output_padding), groups)


ROWS = (
    OpRow("lstm_cell", _lstm_cell, (
        S((3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,)),
        S((3, 4), (3, 5), (3, 5), (20, 4), (20, 5), label="no-bias"),
        S((3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,),
          requires_grad=(True, False, True, True, True, False, True), label="some-grads"),
    ), domain=UNIT, ops=("lstm_cell",)),
    OpRow("gru_cell", _cell("gru_cell"), (
        S(*_cell_shapes(3)), S(*_cell_shapes(3, biases=False), label="no-bias"),
    ), domain=UNIT, ops=("gru_cell",)),
    OpRow("rnn_tanh_cell", _cell("rnn_tanh_cell"), (
        S(*_cell_shapes(1)), S(*_cell_shapes(1, biases=False), label="no-bias"),
    ), domain=UNIT, ops=("rnn_tanh_cell",)),
    OpRow("rnn_relu_cell", _cell("rnn_relu_cell"), (
        S(*_cell_shapes(1)), S(*_cell_shapes(1, biases=False), label="no-bias"),
    ), domain=UNIT, ops=("rnn_relu_cell",)),
    OpRow("convolution", _convolution, (
        S((2, 3, 5), (4, 3, 2), (4,)),
        S((1, 2, 5, 4), (4, 1, 3, 2), (4,), constants={
            "stride": (2, 1), "padding": (1, 0), "dilation": (1, 2), "output_padding": (0, 0),
            "groups": 2}, label="2d-groups"),
        S((2, 4, 3), (4, 2, 2), (2,), constants={"stride": (2,), "padding": (1,),
                                                 "transposed": True, "output_padding": (1,)},
          label="transposed"),
    ), domain=UNIT, ops=("convolution",)),
    OpRow("conv_tbc", lambda lib, x, w, b, pad=0: lib.conv_tbc(x, w, b, pad), (
        S((5, 2, 3), (2, 3, 4), (4,)),
        S((4, 2, 3), (3, 3, 2), (2,), constants={"pad": 2}, label="pad"),
        S((6, 1, 2), (2, 2, 3), (3,), constants={"pad": -1}, label="negative-pad"),
        S((1, 2, 3), (2, 3, 4), (4,), label="no-step"),
    ), domain=UNIT, ops=("conv_tbc",)),
    # no derivative, as torch's (test_functional_rnn.py checks that its backward raises): the
    # values it shuffles are a constant, added to a differentiable x
    OpRow("native_channel_shuffle", lambda lib, x, values: x + lib.native_channel_shuffle(
        values, 2), (S((2, 4, 3), constants={"values": _rng.uniform(-1.0, 1.0, (2, 4, 3))}),
                     S((1, 6, 2, 2), constants={"values": _rng.uniform(-1.0, 1.0, (1, 6, 2, 2))},
                       label="4d")),
          ops=("native_channel_shuffle",)),
)
