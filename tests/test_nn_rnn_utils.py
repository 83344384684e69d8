"""nn.utils.rnn (PackedSequence, packing and padding) and the recurrent layers on packed
input, against torch: values, gradients, node names, errors."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

RNG = np.random.default_rng(0)
PADDED = RNG.standard_normal((5, 4, 3))  # time-major: 5 steps, 4 sequences, 3 features
LENGTHS = [5, 2, 4, 1]


def _both(build):
    torch = torch_or_skip()
    return [build(lib) for lib in (tapegrad, torch)]


def _assert_same_tensors(mine, theirs):
    assert type(mine).__name__ == type(theirs).__name__
    if isinstance(theirs, (tuple, list)):
        assert len(mine) == len(theirs)
        for a, b in zip(mine, theirs):
            _assert_same_tensors(a, b)
    elif theirs is None:
        assert mine is None
    else:
        assert str(mine.dtype) == str(theirs.dtype) and tuple(mine.shape) == tuple(theirs.shape)
        np.testing.assert_allclose(mine.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("enforce_sorted", [False, True])
def test_pack_and_pad_round_trip_match_torch(batch_first, enforce_sorted):
    lengths = sorted(LENGTHS, reverse=True) if enforce_sorted else LENGTHS
    data = PADDED.transpose(1, 0, 2) if batch_first else PADDED

    def run(lib):
        padded = lib.tensor(data, requires_grad=True)
        R = lib.nn.utils.rnn
        packed = R.pack_padded_sequence(padded, lengths, batch_first, enforce_sorted)
        unpacked, out_lengths = R.pad_packed_sequence(packed, batch_first, padding_value=-1.0,
                                                      total_length=6)
        (unpacked * lib.tensor(np.arange(unpacked.numel(), dtype=float)).reshape(
            unpacked.shape)).sum().backward()
        return (tuple(packed), unpacked, out_lengths, padded.grad,
                packed.data.grad_fn.name(), unpacked.grad_fn.name())
    mine, theirs = _both(run)
    _assert_same_tensors(mine[:4], theirs[:4])
    assert mine[4:] == theirs[4:]


@pytest.mark.parametrize("options", [{}, {"batch_first": True, "padding_value": 7.0},
                                     {"padding_side": "left"}])
def test_pad_sequence_and_friends_match_torch(options):
    def run(lib):
        sequences = [lib.tensor(RNG_FIXED[:n], requires_grad=True) for n in (3, 1, 4)]
        R = lib.nn.utils.rnn
        padded = R.pad_sequence(sequences, **options)
        packed = R.pack_sequence(sequences, enforce_sorted=False)
        lengths = lib.tensor([3, 1, 4])
        back = R.unpad_sequence(R.pad_sequence(sequences, batch_first=True), lengths,
                                batch_first=True)
        return padded, tuple(packed), R.unpack_sequence(packed), back, padded.grad_fn.name()
    mine, theirs = _both(run)
    _assert_same_tensors(mine[:4], theirs[:4])
    assert mine[4] == theirs[4]


RNG_FIXED = np.random.default_rng(1).standard_normal((4, 2))

LAYERS = [("LSTM", {"num_layers": 2, "bidirectional": True}), ("GRU", {"bidirectional": True}),
          ("RNN", {"num_layers": 2, "nonlinearity": "relu"}), ("LSTM", {"proj_size": 2}),
          ("GRU", {"batch_first": True})]


@pytest.mark.parametrize("name, options", LAYERS)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("with_state", [False, True])
def test_recurrent_layers_on_packed_input_match_torch(name, options, dtype, with_state):
    batch_first = options.get("batch_first", False)
    data = PADDED.transpose(1, 0, 2) if batch_first else PADDED

    def run(lib):
        lib.manual_seed(0)
        layer = getattr(lib.nn, name)(3, 4, **options).to(getattr(lib, dtype))
        padded = lib.tensor(data, dtype=getattr(lib, dtype), requires_grad=True)
        packed = lib.nn.utils.rnn.pack_padded_sequence(padded, LENGTHS, batch_first,
                                                       enforce_sorted=False)
        state = None
        if with_state:
            directions = 2 if options.get("bidirectional") else 1
            shape = (options.get("num_layers", 1) * directions, 4)
            hidden = lib.tensor(np.linspace(-1, 1, np.prod(shape) * options.get(
                "proj_size", 4)).reshape(*shape, -1), dtype=getattr(lib, dtype))
            state = (hidden, lib.ones(*shape, 4, dtype=getattr(lib, dtype)) / 3) \
                if name == "LSTM" else hidden
        output, final = layer(packed, state)
        finals = final if isinstance(final, tuple) else (final,)
        loss = (output.data ** 2).sum() + sum((f ** 3).sum() for f in finals)
        loss.backward()
        return (output.data, output.batch_sizes, *finals, padded.grad,
                *(p.grad for p in layer.parameters()), output.data.grad_fn.name(),
                finals[0].grad_fn.name())
    mine, theirs = _both(run)
    tolerance = 1e-12 if dtype == "float64" else 1e-5
    assert mine[-2:] == theirs[-2:]
    for got, want in zip(mine[:-2], theirs[:-2]):
        assert str(got.dtype) == str(want.dtype) and tuple(got.shape) == tuple(want.shape)
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=tolerance,
                                   atol=tolerance)


ERRORS = {
    "unsorted": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2),
                                                                  [1, 3, 2]),
    "zero_length": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2),
                                                                     [3, 2, 0]),
    "count": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [3, 2]),
    "total_length": lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_padded_sequence(lib.zeros(4, 3, 2), [4, 2, 1]), total_length=2),
    "padding_side": lambda lib: lib.nn.utils.rnn.pad_sequence([lib.ones(2)],
                                                              padding_side="up"),
    "hidden_size": lambda lib: lib.nn.GRU(2, 3)(lib.nn.utils.rnn.pack_padded_sequence(
        lib.zeros(4, 3, 2), [4, 2, 1]), lib.zeros(1, 2, 3)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(name):
    torch = torch_or_skip()
    raised = []
    for lib in (tapegrad, torch):
        with pytest.raises(Exception) as info:
            ERRORS[name](lib)
        raised.append((type(info.value).__name__, str(info.value)))
    assert raised[0] == raised[1]


def test_packed_sequence_casts_its_data_and_keeps_its_indices():
    packed = tapegrad.nn.utils.rnn.pack_sequence([tapegrad.ones(2, 3), tapegrad.ones(3, 3)],
                                                 enforce_sorted=False)
    double = packed.double()
    assert double.data.dtype is tapegrad.float64 and double.sorted_indices.tolist() == [1, 0]
    assert double.unsorted_indices.tolist() == [1, 0] and double.batch_sizes.tolist() == [2, 2, 1]
    assert packed.to(tapegrad.float32) is packed
