"""Sequence layers: RNN, LSTM, GRU, their cells, MultiheadAttention, scaled_dot_product_attention
and the Transformer encoder, against torch (values and gradients in float64) and by hand."""
import math
import warnings

import numpy as np
import pytest

import tapegrad
import tapegrad.nn as nn
from tapegrad.nn import attention_functional as AF

ATOL = 1e-10  # float64 throughout; torch's fused kernels sum in another order


@pytest.fixture
def torch():
    return pytest.importorskip("torch")


# ---- helpers ------------------------------------------------------------------------------------
def _flatten(value):
    if value is None:
        return []
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _pair(rng, torch, *shape):
    """The same float64 data as a tapegrad and a torch leaf requiring grad."""
    data = rng.standard_normal(shape)
    return tapegrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)


def _mask_pair(torch, array):
    return tapegrad.tensor(array), torch.tensor(array)


def _copy_parameters(module, torch_module):
    """Give module torch_module's parameter values; the names and order must be torch's."""
    torch_params = dict(torch_module.named_parameters())
    assert [name for name, _ in module.named_parameters()] == list(torch_params)
    with tapegrad.no_grad():
        for name, param in module.named_parameters():
            assert tuple(param.shape) == tuple(torch_params[name].shape), name
            param.copy_(tapegrad.tensor(torch_params[name].detach().numpy()))


def _assert_close(actual, expected, what):
    expected = expected.detach().numpy()
    assert tuple(actual.shape) == expected.shape, what
    np.testing.assert_allclose(actual.detach().numpy(), expected, rtol=0, atol=ATOL,
                               err_msg=what)


def _compare(torch, module, torch_module, inputs, torch_inputs, kwargs=(), torch_kwargs=()):
    """Run both modules on the same inputs; outputs and all gradients must agree."""
    _copy_parameters(module, torch_module)
    outputs = _flatten(module(*inputs, **dict(kwargs)))
    torch_outputs = _flatten(torch_module(*torch_inputs, **dict(torch_kwargs)))
    assert len(outputs) == len(torch_outputs)
    rng = np.random.default_rng(7)
    loss, torch_loss = 0, 0
    for index, (output, torch_output) in enumerate(zip(outputs, torch_outputs)):
        _assert_close(output, torch_output, f"output {index}")
        weight = rng.standard_normal(tuple(output.shape))
        loss = loss + (output * tapegrad.tensor(weight)).sum()
        torch_loss = torch_loss + (torch_output * torch.tensor(weight)).sum()
    loss.backward()
    torch_loss.backward()
    for index, (leaf, torch_leaf) in enumerate(zip(_flatten(inputs), _flatten(torch_inputs))):
        if torch_leaf.requires_grad:
            _assert_close(leaf.grad, torch_leaf.grad, f"grad of input {index}")
    torch_params = dict(torch_module.named_parameters())
    for name, param in module.named_parameters():
        _assert_close(param.grad, torch_params[name].grad, f"grad of {name}")
    return outputs


def _error(call):
    with pytest.raises(Exception) as info:
        call()
    return type(info.value), str(info.value)


# ---- RNN, LSTM, GRU against torch ---------------------------------------------------------------
LAYER_CONFIGS = [
    dict(),
    dict(batch_first=True),
    dict(bidirectional=True),
    dict(num_layers=2),
    dict(num_layers=2, bidirectional=True, batch_first=True),
    dict(bias=False, num_layers=2),
]


def _sequence_pair(rng, torch, config, batch=3, length=4, features=5):
    shape = (batch, length, features) if config.get("batch_first") else (length, batch, features)
    return _pair(rng, torch, *shape)


@pytest.mark.parametrize("config", LAYER_CONFIGS)
@pytest.mark.parametrize("kind, options", [("RNN", dict(nonlinearity="tanh")),
                                           ("RNN", dict(nonlinearity="relu")), ("GRU", dict())])
@pytest.mark.parametrize("with_h0", [False, True])
def test_rnn_and_gru_match_torch(torch, config, kind, options, with_h0):
    rng = np.random.default_rng(0)
    module = getattr(nn, kind)(5, 6, dtype=tapegrad.float64, **options, **config)
    torch_module = getattr(torch.nn, kind)(5, 6, dtype=torch.float64, **options, **config)
    inputs = [_sequence_pair(rng, torch, config)]
    if with_h0:
        layers = config.get("num_layers", 1) * (2 if config.get("bidirectional") else 1)
        inputs.append(_pair(rng, torch, layers, 3, 6))
    output, hidden = _compare(torch, module, torch_module, *zip(*inputs))
    assert hidden.shape == (len(module.all_weights), 3, 6)


@pytest.mark.parametrize("config", LAYER_CONFIGS + [dict(proj_size=2),
                                                    dict(proj_size=3, num_layers=2,
                                                         bidirectional=True, bias=False)])
@pytest.mark.parametrize("with_h0", [False, True])
def test_lstm_matches_torch(torch, config, with_h0):
    rng = np.random.default_rng(1)
    module = nn.LSTM(5, 6, dtype=tapegrad.float64, **config)
    torch_module = torch.nn.LSTM(5, 6, dtype=torch.float64, **config)
    inputs = [_sequence_pair(rng, torch, config)]
    if with_h0:
        layers = config.get("num_layers", 1) * (2 if config.get("bidirectional") else 1)
        h0 = _pair(rng, torch, layers, 3, config.get("proj_size", 0) or 6)
        c0 = _pair(rng, torch, layers, 3, 6)
        inputs.append(((h0[0], c0[0]), (h0[1], c0[1])))
    _compare(torch, module, torch_module, *zip(*inputs))


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_h0", [False, True])
def test_recurrent_unbatched_input_matches_torch(torch, kind, batch_first, with_h0):
    rng = np.random.default_rng(3)
    module = getattr(nn, kind)(5, 4, num_layers=2, bidirectional=True,
                               batch_first=batch_first, dtype=tapegrad.float64)
    torch_module = getattr(torch.nn, kind)(5, 4, num_layers=2, bidirectional=True,
                                           batch_first=batch_first, dtype=torch.float64)
    inputs = [_pair(rng, torch, 7, 5)]
    if with_h0 and kind == "LSTM":
        h0, c0 = _pair(rng, torch, 4, 4), _pair(rng, torch, 4, 4)
        inputs.append(((h0[0], c0[0]), (h0[1], c0[1])))
    elif with_h0:
        inputs.append(_pair(rng, torch, 4, 4))
    outputs = _compare(torch, module, torch_module, *zip(*inputs))
    assert outputs[0].shape == (7, 8)
    assert all(state.shape == (4, 4) for state in outputs[1:])


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_eval_mode_ignores_dropout(torch, kind):
    rng = np.random.default_rng(4)
    module = getattr(nn, kind)(5, 4, num_layers=3, dropout=0.5, dtype=tapegrad.float64).eval()
    torch_module = getattr(torch.nn, kind)(5, 4, num_layers=3, dropout=0.5,
                                           dtype=torch.float64).eval()
    first = _compare(torch, module, torch_module, *zip(_pair(rng, torch, 4, 2, 5)))
    again = module(tapegrad.tensor(rng.standard_normal((4, 2, 5))))[0]
    assert again.shape == first[0].shape


@pytest.mark.parametrize("kind", ["RNN", "LSTM", "GRU"])
def test_recurrent_training_dropout_one_zeroes_between_layers(torch, kind):
    # p=1 drops every element, so training mode is deterministic and comparable with torch.
    rng = np.random.default_rng(5)
    module = getattr(nn, kind)(5, 4, num_layers=2, dropout=1.0, dtype=tapegrad.float64)
    torch_module = getattr(torch.nn, kind)(5, 4, num_layers=2, dropout=1.0,
                                           dtype=torch.float64)
    _compare(torch, module, torch_module, *zip(_pair(rng, torch, 4, 2, 5)))


def test_recurrent_training_dropout_changes_output():
    tapegrad.manual_seed(0)
    module = nn.GRU(5, 8, num_layers=2, dropout=0.5)
    input = tapegrad.randn(4, 2, 5)
    trained = module(input)[0]
    evaluated = module.eval()(input)[0]
    assert not np.allclose(trained.detach().numpy(), evaluated.detach().numpy())


# ---- cells --------------------------------------------------------------------------------------
CELL_CASES = [("RNNCell", dict()), ("RNNCell", dict(nonlinearity="relu")),
              ("RNNCell", dict(bias=False)), ("LSTMCell", dict()), ("LSTMCell", dict(bias=False)),
              ("GRUCell", dict()), ("GRUCell", dict(bias=False))]


@pytest.mark.parametrize("kind, options", CELL_CASES)
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_cell_matches_torch(torch, kind, options, batched, with_hx):
    rng = np.random.default_rng(6)
    module = getattr(nn, kind)(5, 4, dtype=tapegrad.float64, **options)
    torch_module = getattr(torch.nn, kind)(5, 4, dtype=torch.float64, **options)
    batch = (3,) if batched else ()
    inputs = [_pair(rng, torch, *batch, 5)]
    if with_hx and kind == "LSTMCell":
        h, c = _pair(rng, torch, *batch, 4), _pair(rng, torch, *batch, 4)
        inputs.append(((h[0], c[0]), (h[1], c[1])))
    elif with_hx:
        inputs.append(_pair(rng, torch, *batch, 4))
    outputs = _compare(torch, module, torch_module, *zip(*inputs))
    assert all(output.shape == (*batch, 4) for output in outputs)


def test_rnn_cell_one_step_by_hand():
    cell = nn.RNNCell(2, 2, dtype=tapegrad.float64)
    with tapegrad.no_grad():
        cell.weight_ih.copy_(tapegrad.tensor([[1.0, 0.5], [-1.0, 2.0]], dtype=tapegrad.float64))
        cell.weight_hh.copy_(tapegrad.tensor([[0.5, 0.0], [0.25, -0.5]], dtype=tapegrad.float64))
        cell.bias_ih.copy_(tapegrad.tensor([0.1, -0.2], dtype=tapegrad.float64))
        cell.bias_hh.copy_(tapegrad.tensor([0.0, 0.3], dtype=tapegrad.float64))
    x = tapegrad.tensor([[1.0, 2.0]], dtype=tapegrad.float64)
    h = tapegrad.tensor([[0.5, -1.0]], dtype=tapegrad.float64, requires_grad=True)
    out = cell(x, h)
    # W_ih x + b_ih = [2.1, 2.8]; W_hh h + b_hh = [0.25, 0.925]
    expected = np.tanh([[2.35, 3.725]])
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=0, atol=1e-15)
    out.sum().backward()
    slope = 1 - expected ** 2
    np.testing.assert_allclose(h.grad.numpy(), slope @ np.array([[0.5, 0.0], [0.25, -0.5]]),
                               rtol=0, atol=1e-15)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _numpy_weights(cell):
    return [p.detach().numpy() for p in (cell.weight_ih, cell.weight_hh, cell.bias_ih,
                                         cell.bias_hh)]


def test_lstm_cell_gate_order_by_hand():
    tapegrad.manual_seed(0)
    cell = nn.LSTMCell(3, 2, dtype=tapegrad.float64)
    w_ih, w_hh, b_ih, b_hh = _numpy_weights(cell)
    rng = np.random.default_rng(8)
    x, h, c = rng.standard_normal((4, 3)), rng.standard_normal((4, 2)), rng.standard_normal((4, 2))
    gates = x @ w_ih.T + b_ih + h @ w_hh.T + b_hh
    i, f, g, o = np.split(gates, 4, axis=1)
    c_new = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    h_new = _sigmoid(o) * np.tanh(c_new)
    out_h, out_c = cell(tapegrad.tensor(x), (tapegrad.tensor(h), tapegrad.tensor(c)))
    np.testing.assert_allclose(out_h.detach().numpy(), h_new, rtol=0, atol=1e-14)
    np.testing.assert_allclose(out_c.detach().numpy(), c_new, rtol=0, atol=1e-14)


def test_gru_cell_reset_gate_scales_hidden_bias_by_hand():
    tapegrad.manual_seed(1)
    cell = nn.GRUCell(3, 2, dtype=tapegrad.float64)
    w_ih, w_hh, b_ih, b_hh = _numpy_weights(cell)
    rng = np.random.default_rng(9)
    x, h = rng.standard_normal((4, 3)), rng.standard_normal((4, 2))
    i_r, i_z, i_n = np.split(x @ w_ih.T + b_ih, 3, axis=1)
    h_r, h_z, h_n = np.split(h @ w_hh.T + b_hh, 3, axis=1)
    r, z = _sigmoid(i_r + h_r), _sigmoid(i_z + h_z)
    n = np.tanh(i_n + r * h_n)
    expected = (1 - z) * n + z * h
    out = cell(tapegrad.tensor(x), tapegrad.tensor(h))
    np.testing.assert_allclose(out.detach().numpy(), expected, rtol=0, atol=1e-14)


def test_rnn_layer_equals_cell_steps():
    tapegrad.manual_seed(2)
    layer = nn.LSTM(3, 4, dtype=tapegrad.float64)
    cell = nn.LSTMCell(3, 4, dtype=tapegrad.float64)
    with tapegrad.no_grad():
        for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
            getattr(cell, name).copy_(getattr(layer, name + "_l0"))
    input = tapegrad.randn(5, 2, 3, dtype=tapegrad.float64)
    output, (h_n, c_n) = layer(input)
    state = None
    for step in input.unbind(0):
        state = cell(step, state)
    np.testing.assert_allclose(output[-1].detach().numpy(), state[0].detach().numpy(),
                               rtol=0, atol=1e-14)
    np.testing.assert_allclose(c_n[0].detach().numpy(), state[1].detach().numpy(),
                               rtol=0, atol=1e-14)


# ---- construction: parameters, init, repr -------------------------------------------------------
def test_recurrent_parameter_names_shapes_and_init():
    tapegrad.manual_seed(3)
    module = nn.LSTM(3, 16, num_layers=2, bidirectional=True, proj_size=4, bias=True)
    names = [name for name, _ in module.named_parameters()]
    assert names[:5] == ["weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0",
                         "weight_hr_l0"]
    assert names[5] == "weight_ih_l0_reverse" and names[10] == "weight_ih_l1"
    assert module.weight_ih_l1.shape == (64, 8) and module.weight_hh_l0.shape == (64, 4)
    bound = 1 / math.sqrt(16)
    for param in module.parameters():
        values = param.detach().numpy()
        assert values.min() >= -bound and values.max() <= bound
        assert values.std() > bound / 4
    assert len(module.all_weights) == 4 and len(module._flat_weights) == 20


def test_recurrent_state_dict_matches_torch(torch):
    for kind, options in [("GRU", dict(num_layers=2, bidirectional=True, bias=False)),
                          ("LSTM", dict(proj_size=2)), ("RNNCell", dict(bias=False)),
                          ("GRUCell", dict())]:
        module = getattr(nn, kind)(3, 4, **options)
        torch_module = getattr(torch.nn, kind)(3, 4, **options)
        assert ([(k, tuple(v.shape)) for k, v in module.state_dict().items()]
                == [(k, tuple(v.shape)) for k, v in torch_module.state_dict().items()])


REPR_CASES = [
    ("RNN", (3, 4), dict()),
    ("RNN", (3, 4, 2), dict(nonlinearity="relu", dropout=0.5, bidirectional=True,
                            batch_first=True, bias=False)),
    ("LSTM", (3, 4), dict(proj_size=2, num_layers=3)),
    ("GRU", (3, 4), dict(dropout=0.25, num_layers=2)),
    ("RNNCell", (3, 4), dict(nonlinearity="relu", bias=False)),
    ("LSTMCell", (3, 4), dict()),
    ("GRUCell", (3, 4), dict(bias=False)),
]


@pytest.mark.parametrize("kind, args, options", REPR_CASES)
def test_recurrent_repr_matches_torch(torch, kind, args, options):
    assert repr(getattr(nn, kind)(*args, **options)) == repr(
        getattr(torch.nn, kind)(*args, **options))


def test_recurrent_repr_by_hand():
    assert repr(nn.RNN(3, 4, 2, batch_first=True)) == "RNN(3, 4, num_layers=2, batch_first=True)"
    assert repr(nn.LSTM(3, 4, proj_size=2)) == "LSTM(3, 4, proj_size=2)"
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"


def test_recurrent_dropout_with_one_layer_warns():
    with pytest.warns(UserWarning, match="non-zero dropout expects num_layers greater than 1"):
        nn.GRU(3, 4, dropout=0.5)


RECURRENT_BAD_INIT = [
    ("RNN", (3, 4), dict(dropout=1.5)),
    ("RNN", (3, 4), dict(dropout=True)),
    ("RNN", (3, 4), dict(nonlinearity="sigmoid")),
    ("RNN", (3, 4), dict(proj_size=2)),
    ("GRU", (3, 4), dict(proj_size=2)),
    ("LSTM", (3, 4), dict(proj_size=4)),
    ("LSTM", (3, 4), dict(proj_size=-1)),
    ("LSTM", (3, 0), dict()),
    ("LSTM", (0, 4), dict()),
    ("LSTM", (3, 4.0), dict()),
    ("LSTM", (3, 4), dict(num_layers=0)),
    ("LSTM", (3, 4), dict(bias=1)),
    ("LSTM", (3, 4), dict(batch_first=None)),
]


@pytest.mark.parametrize("kind, args, options", RECURRENT_BAD_INIT)
def test_recurrent_bad_arguments_raise_torch_errors(torch, kind, args, options):
    assert _error(lambda: getattr(nn, kind)(*args, **options)) == _error(
        lambda: getattr(torch.nn, kind)(*args, **options))


def _bad_calls(lib):
    """(module, arguments) pairs that torch rejects, built with lib (tapegrad or torch)."""
    f64 = {"dtype": lib.float64}
    rnn, lstm, gru = lib.nn.RNN(3, 4, **f64), lib.nn.LSTM(3, 4, **f64), lib.nn.GRU(3, 4, **f64)

    def zeros(*shape, dtype=lib.float64):
        return lib.zeros(*shape, dtype=dtype)

    return [
        (rnn, (zeros(2, 3, 4, 3),)), (lstm, (zeros(3),)), (gru, (zeros(2, 3, 4, 5),)),
        (rnn, (zeros(5, 2, 4),)), (rnn, (zeros(5, 2, 3, dtype=lib.float32),)),
        (rnn, (zeros(5, 2, 3), zeros(1, 3, 4))), (rnn, (zeros(5, 2, 3), zeros(3, 4))),
        (gru, (zeros(5, 3), zeros(1, 1, 4))),
        (lstm, (zeros(5, 2, 3), (zeros(1, 3, 4), zeros(1, 2, 4)))),
        (lstm, (zeros(5, 2, 3), (zeros(1, 2, 4), zeros(1, 2, 5)))),
        (lstm, (zeros(5, 2, 3), (zeros(2, 4), zeros(2, 4)))),
        (lstm, (zeros(5, 3), (zeros(1, 1, 4), zeros(1, 4)))),
        (lib.nn.RNNCell(3, 4, **f64), (zeros(2, 5), zeros(2, 4))),
        (lib.nn.RNNCell(3, 4, **f64), (zeros(2, 3), zeros(3, 4))),
        (lib.nn.RNNCell(3, 4, **f64), (zeros(2, 3), zeros(2, 5))),
        (lib.nn.RNNCell(3, 4, **f64), (zeros(1, 2, 3),)),
        (lib.nn.GRUCell(3, 4, **f64), (zeros(2, 3), zeros(1, 2, 4))),
        (lib.nn.LSTMCell(3, 4, **f64), (zeros(2, 3), (zeros(2, 4), zeros(2, 5)))),
        (lib.nn.LSTMCell(3, 4, **f64), (zeros(2, 3), (zeros(2, 4), zeros(1, 2, 4)))),
        (lib.nn.RNNCell(3, 4, nonlinearity="gelu", **f64), (zeros(2, 3),)),
    ]


def test_recurrent_bad_inputs_raise_torch_errors(torch):
    for (module, args), (torch_module, torch_args) in zip(_bad_calls(tapegrad),
                                                          _bad_calls(torch)):
        assert _error(lambda: module(*args)) == _error(lambda: torch_module(*torch_args)), (
            module, [tuple(a.shape) if hasattr(a, "shape") else a for a in args])


def test_recurrent_shapes_without_torch():
    tapegrad.manual_seed(4)
    output, (h_n, c_n) = nn.LSTM(3, 5, num_layers=2, bidirectional=True, proj_size=2,
                                 batch_first=True)(tapegrad.randn(4, 7, 3))
    assert output.shape == (4, 7, 4) and h_n.shape == (4, 4, 2) and c_n.shape == (4, 4, 5)
    output, h_n = nn.GRU(3, 5)(tapegrad.randn(7, 3))
    assert output.shape == (7, 5) and h_n.shape == (1, 5)
    assert nn.RNNCell(3, 5)(tapegrad.randn(3)).shape == (5,)


# ---- MultiheadAttention against torch -----------------------------------------------------------
MHA_CONFIGS = [
    dict(),
    dict(batch_first=True),
    dict(kdim=3, vdim=5),
    dict(bias=False),
    dict(add_bias_kv=True),
    dict(add_zero_attn=True, batch_first=True),
    dict(add_bias_kv=True, add_zero_attn=True, kdim=3, vdim=5),
    dict(dropout=0.3),  # run in eval mode: dropout is off
]


def _attention_inputs(rng, torch, config, sharing, batched=True, length=4, source=5, batch=2):
    """(query, key, value) pairs; sharing 'self' passes one tensor thrice, 'kv' shares key
    and value, 'none' uses three tensors (kdim/vdim force 'none')."""
    def sequence(size, width):
        if not batched:
            return _pair(rng, torch, size, width)
        shape = (batch, size, width) if config.get("batch_first") else (size, batch, width)
        return _pair(rng, torch, *shape)
    query = sequence(length, 6)
    if sharing == "self":
        return query, query, query
    key = sequence(source, config.get("kdim", 6))
    value = key if sharing == "kv" else sequence(source, config.get("vdim", 6))
    return query, key, value


def _random_masks(rng, torch, kind, batched=True, length=4, source=5, batch=2, heads=2):
    """Keyword masks of the given kind; position 0 is never masked, so no row is all -inf."""
    masked = rng.random((length, source)) < 0.4
    masked[:, 0] = False
    padded = rng.random((batch, source) if batched else (source,)) < 0.4
    padded[..., 0] = False
    masks = {}
    if kind in ("bool", "both"):
        masks["attn_mask"] = _mask_pair(torch, masked)
    if kind == "float":
        masks["attn_mask"] = _mask_pair(torch, rng.standard_normal((length, source)))
    if kind == "3d":
        per_head = rng.random((batch * heads if batched else heads, length, source)) < 0.4
        per_head[..., 0] = False
        masks["attn_mask"] = _mask_pair(torch, per_head)
    if kind in ("padding", "both"):
        masks["key_padding_mask"] = _mask_pair(torch, padded)
    if kind == "float_padding":
        masks["key_padding_mask"] = _mask_pair(torch, np.where(padded, -np.inf, 0.0))
    if kind == "causal":
        masks["attn_mask"] = _mask_pair(torch, np.triu(np.full((length, source), -np.inf), 1))
        masks["is_causal"] = (True, True)
    return ({name: pair[0] for name, pair in masks.items()},
            {name: pair[1] for name, pair in masks.items()})


def _compare_attention(torch, config, sharing="none", kind="none", batched=True, **call):
    rng = np.random.default_rng(11)
    module = nn.MultiheadAttention(6, 2, dtype=tapegrad.float64, **config).eval()
    torch_module = torch.nn.MultiheadAttention(6, 2, dtype=torch.float64, **config).eval()
    query, key, value = _attention_inputs(rng, torch, config, sharing, batched)
    masks, torch_masks = _random_masks(rng, torch, kind, batched,
                                       source=4 if sharing == "self" else 5)
    inputs = [query[0], key[0], value[0]]
    torch_inputs = [query[1], key[1], value[1]]
    if sharing == "self":
        inputs, torch_inputs = [inputs[0]] * 3, [torch_inputs[0]] * 3
    elif sharing == "kv":
        inputs[2], torch_inputs[2] = inputs[1], torch_inputs[1]
    masks.update(call)
    torch_masks.update(call)
    return _compare(torch, module, torch_module, inputs, torch_inputs, masks, torch_masks)


@pytest.mark.parametrize("config", MHA_CONFIGS)
@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_attention_matches_torch(torch, config, need_weights):
    sharing = "none" if "kdim" in config else "kv"
    outputs = _compare_attention(torch, config, sharing, need_weights=need_weights)
    assert len(outputs) == (2 if need_weights else 1)


@pytest.mark.parametrize("sharing", ["self", "kv", "none"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_multihead_attention_shared_inputs_match_torch(torch, sharing, batch_first):
    _compare_attention(torch, dict(batch_first=batch_first), sharing)


@pytest.mark.parametrize("kind", ["bool", "float", "3d", "padding", "float_padding", "both",
                                  "causal"])
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_masks_match_torch(torch, kind, need_weights, average):
    _compare_attention(torch, dict(batch_first=True), "self", kind, need_weights=need_weights,
                       average_attn_weights=average)


@pytest.mark.parametrize("kind", ["none", "bool", "3d", "padding", "causal"])
@pytest.mark.parametrize("need_weights, average", [(True, True), (True, False), (False, True)])
def test_multihead_attention_unbatched_matches_torch(torch, kind, need_weights, average):
    outputs = _compare_attention(torch, dict(batch_first=True), "kv", kind, batched=False,
                                 need_weights=need_weights, average_attn_weights=average)
    assert outputs[0].shape == (4, 6)
    if need_weights:
        assert outputs[1].shape == ((4, 5) if average else (2, 4, 5))


def test_multihead_attention_weights_by_hand():
    # One head, identity projections: the weights are softmax(q k^T / sqrt(E)) per query.
    module = nn.MultiheadAttention(2, 1, bias=False, dtype=tapegrad.float64)
    with tapegrad.no_grad():
        module.in_proj_weight.copy_(tapegrad.cat([tapegrad.eye(2, dtype=tapegrad.float64)] * 3))
        module.out_proj.weight.copy_(tapegrad.eye(2, dtype=tapegrad.float64))
    query = np.array([[1.0, 0.0], [0.0, 2.0]])
    key = np.array([[1.0, 1.0], [-1.0, 0.5], [0.0, 0.0]])
    output, weights = module(tapegrad.tensor(query), tapegrad.tensor(key), tapegrad.tensor(key))
    scores = query @ key.T / math.sqrt(2)
    expected = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True)
    np.testing.assert_allclose(weights.detach().numpy(), expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(output.detach().numpy(), expected @ key, rtol=0, atol=1e-15)


def test_multihead_attention_padding_mask_ignores_keys():
    tapegrad.manual_seed(5)
    module = nn.MultiheadAttention(4, 2, batch_first=True)
    query, key = tapegrad.randn(1, 3, 4), tapegrad.randn(1, 5, 4)
    padding = tapegrad.tensor([[False, False, False, True, True]])
    output, weights = module(query, key, key, key_padding_mask=padding)
    assert weights.shape == (1, 3, 5) and not weights[..., 3:].detach().numpy().any()
    changed = key.clone()
    changed[:, 3:] = 100.0
    np.testing.assert_allclose(module(query, changed, changed, key_padding_mask=padding)[0]
                               .detach().numpy(), output.detach().numpy(), rtol=0, atol=1e-6)


def test_multihead_attention_parameters_and_init_match_torch(torch):
    for options in [dict(), dict(kdim=3, vdim=5, add_bias_kv=True), dict(bias=False)]:
        module = nn.MultiheadAttention(8, 2, **options)
        torch_module = torch.nn.MultiheadAttention(8, 2, **options)
        assert ([(k, tuple(v.shape)) for k, v in module.state_dict().items()]
                == [(k, tuple(v.shape)) for k, v in torch_module.state_dict().items()])
        assert repr(module) == repr(torch_module)


def test_multihead_attention_init_distributions():
    tapegrad.manual_seed(6)
    module = nn.MultiheadAttention(64, 4, add_bias_kv=True)
    bound = math.sqrt(6 / (64 + 3 * 64))  # xavier_uniform_ on (3E, E)
    in_proj = module.in_proj_weight.detach().numpy()
    assert in_proj.min() >= -bound and in_proj.max() <= bound and in_proj.std() > bound / 2
    assert not module.in_proj_bias.detach().numpy().any()
    assert not module.out_proj.bias.detach().numpy().any()
    assert module.bias_k.shape == (1, 1, 64) and module.bias_k.detach().numpy().std() > 0
    assert module.q_proj_weight is None and module.head_dim == 16


def _bad_attention_calls(lib):
    """(arguments, keyword arguments) that MultiheadAttention(6, 2) rejects, built with lib."""
    def zeros(*shape, dtype=lib.float64):
        return lib.zeros(*shape, dtype=dtype)
    x, y = zeros(4, 2, 6), zeros(5, 2, 6)
    return [
        ((zeros(4, 6), y, y), {}), ((x, zeros(5, 6), y), {}), ((zeros(2, 4, 2, 6), y, y), {}),
        ((x, y, zeros(6, 2, 6)), {}), ((x, y, y), dict(attn_mask=zeros(3, 5))),
        ((x, y, y), dict(attn_mask=zeros(3, 4, 5))), ((x, y, y), dict(attn_mask=zeros(4))),
        ((x, y, y), dict(key_padding_mask=zeros(2, 4))),
        ((x, y, y), dict(key_padding_mask=zeros(3, 5))),
        ((x, y, y), dict(key_padding_mask=zeros(5))),
        ((x, y, y), dict(attn_mask=zeros(4, 5, dtype=lib.int64))),
        ((x, y, y), dict(is_causal=True)),
        ((zeros(4, 6), zeros(5, 6), zeros(5, 6)), dict(attn_mask=zeros(3, 4, 5))),
        ((zeros(4, 2, 4), zeros(5, 2, 4), zeros(5, 2, 4)), {}),
    ]


def test_multihead_attention_bad_inputs_raise_torch_errors(torch):
    module = nn.MultiheadAttention(6, 2, dtype=tapegrad.float64)
    torch_module = torch.nn.MultiheadAttention(6, 2, dtype=torch.float64)
    for (args, kwargs), (torch_args, torch_kwargs) in zip(_bad_attention_calls(tapegrad),
                                                          _bad_attention_calls(torch)):
        assert _error(lambda: module(*args, **kwargs)) == _error(
            lambda: torch_module(*torch_args, **torch_kwargs)), kwargs


@pytest.mark.parametrize("args", [(0, 2), (6, 0), (6, 4)])
def test_multihead_attention_bad_arguments_raise_torch_errors(torch, args):
    assert _error(lambda: nn.MultiheadAttention(*args)) == _error(
        lambda: torch.nn.MultiheadAttention(*args))


def test_multihead_attention_mismatched_mask_types_warn(torch):
    padding = np.array([[False, True, False, False, False]] * 2)
    for lib in (tapegrad, torch):
        module = lib.nn.MultiheadAttention(6, 2)
        x = lib.zeros(5, 2, 6)
        with pytest.warns(UserWarning, match="Support for mismatched key_padding_mask and "
                                             "attn_mask is deprecated"):
            module(x, x, x, key_padding_mask=lib.tensor(padding), attn_mask=lib.zeros(5, 5))


# ---- scaled_dot_product_attention ---------------------------------------------------------------
SDPA_CASES = [
    dict(),
    dict(mask="bool"),
    dict(mask="float"),
    dict(mask="bool_broadcast"),
    dict(is_causal=True),
    dict(is_causal=True, mask="bool"),
    dict(is_causal=True, mask="float", value_dim=7),
    dict(scale=0.3),
    dict(mask="bool", value_dim=7),
    dict(value_dim=3, three_d=True),
    dict(mask="dead_row"),
    dict(mask="dead_row_float"),
    dict(enable_gqa=True),
]


def _sdpa_masks(rng, kind, length, source):
    if kind == "bool":
        return rng.random((length, source)) < 0.7
    if kind == "float":
        return rng.standard_normal((2, 1, length, source))
    if kind == "bool_broadcast":
        return rng.random((1, 3, 1, source)) < 0.7
    dead = np.ones((length, source), dtype=bool)
    dead[1] = False
    return dead if kind == "dead_row" else np.where(dead, 0.0, -np.inf)


@pytest.mark.parametrize("case", SDPA_CASES)
def test_scaled_dot_product_attention_matches_torch(torch, case):
    rng = np.random.default_rng(12)
    case = dict(case)
    key_heads = 1 if case.get("enable_gqa") else 3
    value_dim = case.pop("value_dim", 5)
    batch = () if case.pop("three_d", False) else (2,)
    query = _pair(rng, torch, *batch, 3, 4, 5)
    key = _pair(rng, torch, *batch, key_heads, 6, 5)
    value = _pair(rng, torch, *batch, key_heads, 6, value_dim)
    kind = case.pop("mask", None)
    if kind is not None:
        mask = _sdpa_masks(rng, kind, 4, 6)
        case["attn_mask"] = (tapegrad.tensor(mask), torch.tensor(mask))
    kwargs = {name: value[0] if isinstance(value, tuple) else value
              for name, value in case.items()}
    torch_kwargs = {name: value[1] if isinstance(value, tuple) else value
                    for name, value in case.items()}
    if case.get("is_causal") and kind is not None and value_dim != 5:
        assert _error(lambda: AF.scaled_dot_product_attention(
            query[0], key[0], value[0], **kwargs)) == _error(
            lambda: torch.nn.functional.scaled_dot_product_attention(
                query[1], key[1], value[1], **torch_kwargs))
        return
    output = AF.scaled_dot_product_attention(query[0], key[0], value[0], **kwargs)
    torch_output = torch.nn.functional.scaled_dot_product_attention(query[1], key[1], value[1],
                                                                    **torch_kwargs)
    _assert_close(output, torch_output, "output")
    weight = rng.standard_normal(tuple(output.shape))
    (output * tapegrad.tensor(weight)).sum().backward()
    (torch_output * torch.tensor(weight)).sum().backward()
    for name, (leaf, torch_leaf) in zip("qkv", (query, key, value)):
        _assert_close(leaf.grad, torch_leaf.grad, f"grad of {name}")


def test_scaled_dot_product_attention_by_hand():
    rng = np.random.default_rng(19)
    query, key, value = (rng.standard_normal(shape) for shape in ((3, 4), (5, 4), (5, 2)))
    allowed = rng.random((3, 5)) < 0.7
    allowed[:, 0] = True
    scores = np.where(allowed & np.tri(3, 5, dtype=bool), query @ key.T / 2, -np.inf)
    expected = np.exp(scores) / np.exp(scores).sum(-1, keepdims=True) @ value
    output = AF.scaled_dot_product_attention(
        tapegrad.tensor(query), tapegrad.tensor(key), tapegrad.tensor(value),
        attn_mask=tapegrad.tensor(allowed & np.tri(3, 5, dtype=bool)))
    np.testing.assert_allclose(output.numpy(), expected, rtol=0, atol=1e-14)


def test_sequence_layers_pass_gradcheck():
    tapegrad.manual_seed(9)
    lstm = nn.LSTM(3, 2, num_layers=2, bidirectional=True, proj_size=1, dtype=tapegrad.float64)
    attention = nn.MultiheadAttention(4, 2, kdim=3, vdim=3, add_bias_kv=True,
                                   dtype=tapegrad.float64)
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=True,
                                       dtype=tapegrad.float64)
    sequence = tapegrad.randn(4, 2, 3, dtype=tapegrad.float64, requires_grad=True)
    query = tapegrad.randn(3, 2, 4, dtype=tapegrad.float64, requires_grad=True)
    causal = tapegrad.ones(3, 4, dtype=tapegrad.bool).triu(1)
    assert tapegrad.autograd.gradcheck(lambda x: lstm(x)[1], (sequence,))
    assert tapegrad.autograd.gradcheck(
        lambda q, k: attention(q, k, k, attn_mask=causal, average_attn_weights=False),
        (query, sequence))
    assert tapegrad.autograd.gradcheck(layer, (query,))


def test_scaled_dot_product_attention_all_masked_row_is_zero():
    query, key = tapegrad.randn(3, 4, requires_grad=True), tapegrad.randn(5, 4)
    mask = tapegrad.ones(3, 5, dtype=tapegrad.bool)
    mask[1] = False
    output = AF.scaled_dot_product_attention(query, key, key, attn_mask=mask)
    assert not output[1].detach().numpy().any() and output[0].detach().numpy().any()
    output.sum().backward()
    assert np.isfinite(query.grad.numpy()).all() and not query.grad[1].numpy().any()


def test_scaled_dot_product_attention_dropout_always_applies():
    tapegrad.manual_seed(7)
    query = tapegrad.randn(2, 8, 4)
    first = AF.scaled_dot_product_attention(query, query, query, dropout_p=0.5)
    second = AF.scaled_dot_product_attention(query, query, query, dropout_p=0.5)
    assert first.shape == (2, 8, 4)
    assert not np.allclose(first.numpy(), second.numpy())


def _bad_sdpa_calls(lib):
    def zeros(*shape, dtype=lib.float64):
        return lib.zeros(*shape, dtype=dtype)
    x = zeros(2, 3, 4)
    return [((x, x.float(), x), {}), ((zeros(4), x, x), {}),
            ((x, x, x), dict(attn_mask=zeros(3, 3, dtype=lib.int32))),
            ((x, x, x), dict(attn_mask=zeros(3, 3, dtype=lib.float16)))]


def test_scaled_dot_product_attention_bad_inputs_raise_torch_errors(torch):
    for (args, kwargs), (torch_args, torch_kwargs) in zip(_bad_sdpa_calls(tapegrad),
                                                          _bad_sdpa_calls(torch)):
        assert _error(lambda: AF.scaled_dot_product_attention(*args, **kwargs)) == _error(
            lambda: torch.nn.functional.scaled_dot_product_attention(*torch_args,
                                                                     **torch_kwargs))


def test_multi_head_attention_forward_static_kv_matches_torch(torch):
    rng = np.random.default_rng(13)
    query, key = _pair(rng, torch, 4, 2, 6), _pair(rng, torch, 5, 2, 6)
    weights = [_pair(rng, torch, *shape) for shape in ((18, 6), (18,), (6, 6), (6,))]
    static_k, static_v = _pair(rng, torch, 4, 3, 3), _pair(rng, torch, 4, 3, 3)
    results = []
    for side, function in ((0, AF.multi_head_attention_forward),
                           (1, torch.nn.functional.multi_head_attention_forward)):
        w = [pair[side] for pair in weights]
        results.append(function(query[side], key[side], key[side], 6, 2, w[0], w[1], None, None,
                                False, 0.0, w[2], w[3], static_k=static_k[side],
                                static_v=static_v[side]))
    for actual, expected in zip(*results):
        _assert_close(actual, expected, "static key/value")


# ---- Transformer encoder ------------------------------------------------------------------------
ENCODER_CONFIGS = [
    dict(),
    dict(norm_first=True),
    dict(activation="gelu", batch_first=True),
    dict(bias=False),
    dict(layer_norm_eps=1e-3, dim_feedforward=7),
]


def _encoder_masks(rng, torch, kind, batch_first):
    masks = {}
    if kind == "causal":
        masks["src_mask"] = _mask_pair(torch, np.triu(np.full((5, 5), -np.inf), 1))
        masks["is_causal"] = (True, True)
    if kind == "padding":
        padded = rng.random((3, 5)) < 0.4
        padded[:, 0] = False
        masks["src_key_padding_mask"] = _mask_pair(torch, padded)
    return ({name: pair[0] for name, pair in masks.items()},
            {name: pair[1] for name, pair in masks.items()})


@pytest.mark.parametrize("config", ENCODER_CONFIGS)
@pytest.mark.parametrize("kind", ["none", "causal", "padding"])
def test_transformer_encoder_layer_matches_torch(torch, config, kind):
    rng = np.random.default_rng(14)
    module = nn.TransformerEncoderLayer(8, 2, dim_feedforward=config.pop("dim_feedforward", 16),
                                        dtype=tapegrad.float64, **config).eval()
    torch_module = torch.nn.TransformerEncoderLayer(
        8, 2, dim_feedforward=module.linear1.out_features, dtype=torch.float64,
        **config).eval()
    shape = (3, 5, 8) if config.get("batch_first") else (5, 3, 8)
    masks, torch_masks = _encoder_masks(rng, torch, kind, config.get("batch_first"))
    _compare(torch, module, torch_module, *zip(_pair(rng, torch, *shape)), masks, torch_masks)


def test_transformer_encoder_layer_training_without_dropout_matches_torch(torch):
    rng = np.random.default_rng(15)
    module = nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0, dtype=tapegrad.float64)
    torch_module = torch.nn.TransformerEncoderLayer(8, 4, 16, dropout=0.0, dtype=torch.float64)
    _compare(torch, module, torch_module, *zip(_pair(rng, torch, 5, 8)))


def test_transformer_encoder_layer_activation_modules_and_callables(torch):
    rng = np.random.default_rng(16)
    for activation, torch_activation in [(nn.GELU(), torch.nn.GELU()),
                                         (nn.functional.silu, torch.nn.functional.silu)]:
        module = nn.TransformerEncoderLayer(8, 2, 16, activation=activation,
                                            dtype=tapegrad.float64).eval()
        torch_module = torch.nn.TransformerEncoderLayer(8, 2, 16, activation=torch_activation,
                                                        dtype=torch.float64).eval()
        assert repr(module) == repr(torch_module)
        assert module.activation_relu_or_gelu == torch_module.activation_relu_or_gelu
        _compare(torch, module, torch_module, *zip(_pair(rng, torch, 5, 2, 8)))


def test_transformer_encoder_layer_bad_activation_raises_torch_error(torch):
    assert _error(lambda: nn.TransformerEncoderLayer(8, 2, activation="tanh")) == _error(
        lambda: torch.nn.TransformerEncoderLayer(8, 2, activation="tanh"))


@pytest.mark.parametrize("batch_first", [False, True])
def test_transformer_encoder_matches_torch(torch, batch_first):
    rng = np.random.default_rng(17)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=batch_first, dtype=tapegrad.float64)
    torch_layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=batch_first,
                                                   dtype=torch.float64)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        module = nn.TransformerEncoder(layer, 2, norm=nn.LayerNorm(8, dtype=tapegrad.float64))
        torch_module = torch.nn.TransformerEncoder(
            torch_layer, 2, norm=torch.nn.LayerNorm(8, dtype=torch.float64))
    assert len(record) == (0 if batch_first else 2)
    assert len({str(warning.message) for warning in record}) == (0 if batch_first else 1)
    assert repr(module) == repr(torch_module)
    masks, torch_masks = _encoder_masks(rng, torch, "causal", batch_first)
    masks.pop("is_causal"), torch_masks.pop("is_causal")  # detected from the mask
    masks["mask"], torch_masks["mask"] = masks.pop("src_mask"), torch_masks.pop("src_mask")
    shape = (3, 5, 8) if batch_first else (5, 3, 8)
    _compare(torch, module.eval(), torch_module.eval(), *zip(_pair(rng, torch, *shape)),
             masks, torch_masks)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_transformer_encoder_inference_zeroes_padded_positions_as_torch(torch):
    # torch's nested-tensor path (eval, no grad, batch_first, padding mask) outputs 0 where padded.
    rng = np.random.default_rng(18)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True, dtype=tapegrad.float64)
    torch_layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                   dtype=torch.float64)
    module, torch_module = nn.TransformerEncoder(layer, 2), torch.nn.TransformerEncoder(
        torch_layer, 2)
    _copy_parameters(module.eval(), torch_module.eval())
    padded = np.array([[False] * 5, [False] * 3 + [True] * 2, [False] + [True] * 4])
    src = rng.standard_normal((3, 5, 8))
    with tapegrad.no_grad(), torch.no_grad():
        output = module(tapegrad.tensor(src), src_key_padding_mask=tapegrad.tensor(padded))
        expected = torch_module(torch.tensor(src), src_key_padding_mask=torch.tensor(padded))
    _assert_close(output, expected, "encoder output")
    assert not output.numpy()[padded].any()


def test_transformer_encoder_nested_tensor_warning_matches_torch(torch):
    for options in [dict(), dict(norm_first=True, batch_first=True),
                    dict(batch_first=True, activation=nn.functional.silu)]:
        torch_options = dict(options)
        if "activation" in options:
            torch_options["activation"] = torch.nn.functional.silu
        with pytest.warns(UserWarning) as record:
            nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, **options), 1)
        with pytest.warns(UserWarning) as torch_record:
            torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16,
                                                                         **torch_options), 1)
        assert str(record[0].message) == str(torch_record[0].message)


def test_transformer_encoder_shapes_and_state_dict_without_torch():
    tapegrad.manual_seed(8)
    layer = nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
    module = nn.TransformerEncoder(layer, 3, norm=nn.LayerNorm(8))
    assert module(tapegrad.randn(2, 5, 8)).shape == (2, 5, 8)
    assert module(tapegrad.randn(5, 8)).shape == (5, 8)
    keys = list(module.state_dict())
    assert keys[0] == "layers.0.self_attn.in_proj_weight" and keys[-1] == "norm.bias"
    assert len(keys) == 3 * 12 + 2
    first, second = module.layers[0].linear1.weight, module.layers[1].linear1.weight
    assert first is not second and np.array_equal(first.detach().numpy(),
                                                  second.detach().numpy())



# ---- Transformer decoder and the full Transformer ---------------------------------------------
@pytest.mark.parametrize("options", [dict(), dict(norm_first=True), dict(batch_first=True),
                                     dict(activation="gelu", bias=False)])
def test_transformer_decoder_layer_matches_torch(torch, options):
    rng = np.random.default_rng(11)
    layer = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=tapegrad.float64, **options)
    torch_layer = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, dtype=torch.float64,
                                                   **options)
    shape = (3, 4, 8) if options.get("batch_first") else (4, 3, 8)
    (tgt, torch_tgt), (memory, torch_memory) = _pair(rng, torch, *shape), _pair(
        rng, torch, *shape[:-1], 8)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    _compare(torch, layer, torch_layer, (tgt, memory), (torch_tgt, torch_memory),
             {"tgt_mask": tapegrad.tensor(mask)}, {"tgt_mask": torch.tensor(mask)})


def test_transformer_matches_torch_with_masks(torch):
    rng = np.random.default_rng(12)
    tapegrad.manual_seed(3)
    torch.manual_seed(3)
    model = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, dtype=tapegrad.float64)
    torch_model = torch.nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, dtype=torch.float64)
    # the same seed gives the same xavier-initialised weights
    for (name, param), torch_param in zip(model.named_parameters(), torch_model.parameters()):
        np.testing.assert_array_equal(param.detach().numpy(), torch_param.detach().numpy(),
                                      err_msg=name)
    (src, torch_src), (tgt, torch_tgt) = _pair(rng, torch, 5, 2, 8), _pair(rng, torch, 4, 2, 8)
    padding = np.array([[False] * 5, [False] * 3 + [True] * 2])
    causal = nn.Transformer.generate_square_subsequent_mask(4, dtype=tapegrad.float64)
    kwargs = {"tgt_mask": causal, "src_key_padding_mask": tapegrad.tensor(padding),
              "memory_key_padding_mask": tapegrad.tensor(padding)}
    torch_kwargs = {"tgt_mask": torch.tensor(causal.numpy()),
                    "src_key_padding_mask": torch.tensor(padding),
                    "memory_key_padding_mask": torch.tensor(padding)}
    _compare(torch, model, torch_model, (src, tgt), (torch_src, torch_tgt), kwargs,
             torch_kwargs)


def test_transformer_shape_errors_match_torch(torch):
    model = nn.Transformer(8, 2, 1, 1, 16)
    torch_model = torch.nn.Transformer(8, 2, 1, 1, 16)
    for src, tgt in [((5, 2, 8), (4, 3, 8)), ((5, 2, 8), (4, 2, 6))]:
        assert _error(lambda: model(tapegrad.zeros(src), tapegrad.zeros(tgt))) == _error(
            lambda: torch_model(torch.zeros(src), torch.zeros(tgt)))
    assert repr(model) == repr(torch_model)
