"""The fused LSTM layer (mkldnn_rnn_layer, one MkldnnRnnLayerBackward0 node per layer and
direction, torch's CPU float32 path) and the recorded graphs of RNN, GRU and LSTM, against
torch: values, gradients, double backward, and node for node the graph torch records."""
import numpy as np
import pytest

import tapegrad
from tapegrad.autograd import gradcheck, gradgradcheck
from tapegrad.ops.rnn import mkldnn_rnn_layer

from compare import same_error, torch_or_skip

# float32 against torch's oneDNN kernel, which sums in its own order
RTOL, ATOL = 1e-4, 1e-5


@pytest.fixture
def torch():
    return torch_or_skip()


def graph_signature(tensors):
    """The graph behind tensors as text: nodes numbered in depth-first order, each with its
    name and its next_functions as (node number, input_nr); leaves as their shapes."""
    numbers, order, stack = {}, [], [t.grad_fn for t in reversed(tensors)]
    while stack:
        node = stack.pop()
        if node is None or id(node) in numbers:
            continue
        numbers[id(node)] = len(numbers)
        order.append(node)
        if type(node).__name__ != "AccumulateGrad":
            stack.extend(next_node for next_node, _ in reversed(node.next_functions))
    lines = []
    for node in order:
        if type(node).__name__ == "AccumulateGrad":
            lines.append(f"leaf{tuple(node.variable.shape)}")
        else:
            edges = ",".join("-" if next_node is None else f"{numbers[id(next_node)]}.{nr}"
                             for next_node, nr in node.next_functions)
            lines.append(f"{type(node).__name__}({edges})")
    return lines


def _modules(torch, kind, dtype, *args, **options):
    """The same module in both libraries, tapegrad's with torch's parameter values."""
    torch_module = getattr(torch.nn, kind)(*args, dtype=getattr(torch, dtype), **options)
    module = getattr(tapegrad.nn, kind)(*args, dtype=getattr(tapegrad, dtype), **options)
    with tapegrad.no_grad():
        for (name, param), (torch_name, torch_param) in zip(module.named_parameters(),
                                                            torch_module.named_parameters()):
            assert name == torch_name
            param.copy_(tapegrad.tensor(torch_param.detach().numpy()))
    return module, torch_module


def _leaves(lib, arrays):
    return [lib.tensor(array, requires_grad=True) for array in arrays]


def _states(kind, hidden):
    """hx as the module takes it: (h, c) for LSTM, h otherwise."""
    return tuple(hidden) if kind == "LSTM" else hidden[0]


def _run_both(torch, kind, dtype, options, input_shape, with_hx, seed=0):
    """Forward both modules on the same data; returns per library (outputs, leaves, module)."""
    rng = np.random.default_rng(seed)
    module, torch_module = _modules(torch, kind, dtype, 4, 5, **options)
    directions = (2 if options.get("bidirectional") else 1) * options.get("num_layers", 1)
    batch = () if len(input_shape) == 2 else (
        input_shape[0 if options.get("batch_first") else 1],)
    size = options.get("proj_size") or 5
    arrays = [rng.standard_normal(input_shape).astype(dtype)]
    if with_hx:
        arrays += [rng.standard_normal((directions, *batch, size)).astype(dtype)]
        if kind == "LSTM":
            arrays += [rng.standard_normal((directions, *batch, 5)).astype(dtype)]
    results = []
    for lib, net in ((tapegrad, module), (torch, torch_module)):
        leaves = _leaves(lib, arrays)
        output, hidden = net(leaves[0], _states(kind, leaves[1:])) if with_hx else net(leaves[0])
        results.append(([output, *(hidden if kind == "LSTM" else (hidden,))], leaves, net))
    return results


def _backward_both(results, seed=1):
    """Backward a random weighting of every output in both libraries."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(tuple(o.shape)).astype(np.float32) for o in results[0][0]]
    for (outputs, _, _), lib in zip(results, (tapegrad, torch_or_skip())):
        sum(((o * lib.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outputs, weights))
            ).backward()


def _assert_same_values(results, rtol=RTOL, atol=ATOL):
    (outputs, leaves, module), (torch_outputs, torch_leaves, torch_module) = results
    for index, (output, expected) in enumerate(zip(outputs, torch_outputs)):
        assert output.dtype.name == str(expected.dtype).split(".")[-1]
        np.testing.assert_allclose(output.detach().numpy(), expected.detach().numpy(),
                                   rtol=rtol, atol=atol, err_msg=f"output {index}")
    _backward_both(results)
    for index, (leaf, expected) in enumerate(zip(leaves, torch_leaves)):
        np.testing.assert_allclose(leaf.grad.numpy(), expected.grad.numpy(), rtol=rtol,
                                   atol=atol, err_msg=f"grad of input {index}")
    for (name, param), (_, expected) in zip(module.named_parameters(),
                                            torch_module.named_parameters()):
        np.testing.assert_allclose(param.grad.numpy(), expected.grad.numpy(), rtol=rtol,
                                   atol=atol, err_msg=f"grad of {name}")


def _assert_same_graph(results):
    (outputs, _, _), (torch_outputs, _, _) = results
    assert graph_signature(outputs) == graph_signature(torch_outputs)


# ---- nn.LSTM in float32: one fused node per layer and direction, as torch ----------------------
FUSED_CONFIGS = [
    (dict(), (6, 3, 4), False),
    (dict(), (6, 3, 4), True),
    (dict(num_layers=2), (6, 3, 4), True),
    (dict(bidirectional=True), (6, 3, 4), False),
    (dict(num_layers=2, bidirectional=True), (6, 3, 4), True),
    (dict(batch_first=True), (3, 6, 4), True),
    (dict(batch_first=True, num_layers=2, bidirectional=True), (3, 6, 4), False),
    (dict(bias=False), (6, 3, 4), True),
    (dict(bias=False, num_layers=2, bidirectional=True), (6, 3, 4), False),
    (dict(), (6, 4), True),  # unbatched
    (dict(batch_first=True, bidirectional=True), (6, 4), True),
    (dict(), (1, 3, 4), True),  # one step
]


@pytest.mark.parametrize("options, input_shape, with_hx", FUSED_CONFIGS)
def test_lstm_float32_matches_torch(torch, options, input_shape, with_hx):
    results = _run_both(torch, "LSTM", "float32", options, input_shape, with_hx)
    assert any(line.startswith("MkldnnRnnLayerBackward0")
               for line in graph_signature(results[0][0]))
    _assert_same_graph(results)
    _assert_same_values(results)


def test_lstm_float32_records_one_node_per_layer_and_direction(torch):
    results = _run_both(torch, "LSTM", "float32", dict(num_layers=2, bidirectional=True),
                        (5, 2, 4), True)
    for outputs, _, _ in results:
        names = [line.split("(")[0] for line in graph_signature(outputs)]
        assert names.count("MkldnnRnnLayerBackward0") == 4
        assert "SigmoidBackward0" not in names


def test_lstm_fused_only_where_torch_uses_onednn(torch):
    # float64 and projections take torch's recorded composite (StackBackward0 of the steps)
    for dtype, options in (("float64", dict()), ("float32", dict(proj_size=3)),
                           ("float64", dict(proj_size=3, num_layers=2))):
        results = _run_both(torch, "LSTM", dtype, options, (4, 2, 4), False)
        assert type(results[0][0][0].grad_fn).__name__ == "StackBackward0"
        _assert_same_graph(results)
        _assert_same_values(results)


def test_lstm_fused_node_saves_torch_attributes(torch):
    results = _run_both(torch, "LSTM", "float32", dict(bidirectional=True), (5, 2, 4), True)
    nodes = [outputs[0].grad_fn.next_functions[1][0] for outputs, _, _ in results]
    node, torch_node = nodes
    assert node._saved_reverse is torch_node._saved_reverse is True
    for name in ("_saved_input", "_saved_weight0", "_saved_weight1", "_saved_hx_",
                 "_saved_cx_", "_saved_result0"):
        assert tuple(getattr(node, name).shape) == tuple(getattr(torch_node, name).shape)
    assert node._saved_result3.dtype.name == "uint8"


def test_lstm_fused_training_dropout_between_layers(torch):
    # dropout's MulBackward0 between the layers; its masks come from torch's random stream,
    # so one seed gives both libraries the same masks
    module, torch_module = _modules(torch, "LSTM", "float32", 4, 5, num_layers=3, dropout=0.5,
                                    bidirectional=True)
    rng = np.random.default_rng(9)
    arrays = [rng.standard_normal(shape).astype(np.float32)
              for shape in ((5, 2, 4), (6, 2, 5), (6, 2, 5))]
    results = []
    for lib, net in ((tapegrad, module), (torch, torch_module)):
        assert net.training
        lib.manual_seed(3)
        leaves = _leaves(lib, arrays)
        output, hidden = net(leaves[0], tuple(leaves[1:]))
        results.append(([output, *hidden], leaves, net))
    _assert_same_graph(results)
    _assert_same_values(results)


def test_lstm_fused_without_grad_matches_torch(torch):
    results = _run_both(torch, "LSTM", "float32", dict(num_layers=2), (5, 2, 4), False)
    (outputs, leaves, module), (torch_outputs, _, _) = results
    with tapegrad.no_grad():
        output, (h_n, c_n) = module(leaves[0])
    assert output.grad_fn is None and not output.requires_grad
    for ours, theirs in zip((output, h_n, c_n), torch_outputs):
        np.testing.assert_allclose(ours.numpy(), theirs.detach().numpy(), rtol=RTOL,
                                   atol=ATOL)


def test_lstm_fused_input_modified_in_place_raises_at_backward(torch):
    def scenario(lib):
        module = lib.nn.LSTM(4, 5)
        input = lib.ones(3, 2, 4, requires_grad=True) * 1
        output, _ = module(input)
        input.mul_(2)
        output.sum().backward()
    with pytest.raises(RuntimeError) as ours:
        scenario(tapegrad)
    with pytest.raises(RuntimeError) as theirs:
        scenario(torch)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("h_dtype, c_dtype", [("float64", "float32"), ("float32", "float64"),
                                              ("float16", "float32"), ("int64", "float32"),
                                              ("uint8", "float64"), ("float16", "uint8")])
def test_lstm_fused_initial_states_of_another_dtype_raise_torch_errors(h_dtype, c_dtype):
    def scenario(lib):
        states = (lib.zeros(1, 2, 5, dtype=getattr(lib, h_dtype)),
                  lib.zeros(1, 2, 5, dtype=getattr(lib, c_dtype)))
        lib.nn.LSTM(4, 5)(lib.zeros(3, 2, 4), states)
    same_error(scenario)


# ---- double backward ---------------------------------------------------------------------------
@pytest.mark.parametrize("options, with_hx", [(dict(), False), (dict(), True),
                                              (dict(num_layers=2, bidirectional=True), True)])
def test_lstm_fused_create_graph_matches_torch(torch, options, with_hx):
    results = _run_both(torch, "LSTM", "float32", options, (5, 2, 4), with_hx)
    rng = np.random.default_rng(3)
    weights = [rng.standard_normal(tuple(o.shape)).astype(np.float32) for o in results[0][0]]
    second_grads = []
    for (outputs, leaves, net), lib in zip(results, (tapegrad, torch)):
        loss = sum((o * lib.tensor(w)).sum() for o, w in zip(outputs, weights))
        loss = loss + (outputs[1] ** 2).sum()  # a quadratic term: h_n's second derivative
        wrt = leaves + list(net.parameters())
        grads = lib.autograd.grad(loss, wrt, create_graph=True)
        assert all(g.requires_grad for g in grads)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), wrt)
        second_grads.append(([g.detach().numpy() for g in grads], [g.numpy() for g in second]))
    for ours, theirs in zip(*second_grads):
        for index, (actual, expected) in enumerate(zip(ours, theirs)):
            np.testing.assert_allclose(actual, expected, rtol=1e-3, atol=1e-4,
                                       err_msg=f"tensor {index}")


# ---- the op itself ------------------------------------------------------------------------------
def _layer_arrays(rng, steps, batch, input_size, hidden_size, dtype, biases=True):
    shapes = [(steps, batch, input_size), (4 * hidden_size, input_size),
              (4 * hidden_size, hidden_size)]
    shapes += [(4 * hidden_size,)] * 2 if biases else []
    arrays = [rng.standard_normal(shape).astype(dtype) for shape in shapes]
    states = [rng.standard_normal((batch, hidden_size)).astype(dtype) for _ in range(2)]
    return arrays + ([] if biases else [None, None]) + states


def _layer(reverse, hidden_size, biases=True):
    """The layer's (output, h_n, c_n) as a function of its seven tensors."""
    return lambda *tensors: mkldnn_rnn_layer(*tensors, reverse, [], 2, hidden_size, 1, biases,
                                             False, False, True)[:3]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("biases", [True, False])
def test_mkldnn_rnn_layer_gradcheck(reverse, biases):
    rng = np.random.default_rng(4)
    tensors = [None if a is None else tapegrad.tensor(a, requires_grad=True)
               for a in _layer_arrays(rng, 3, 2, 3, 2, np.float64, biases)]
    layer = _layer(reverse, 2, biases)
    assert gradcheck(layer, tensors)
    assert gradgradcheck(layer, tensors)


def test_mkldnn_rnn_layer_gradcheck_one_output_and_one_step():
    rng = np.random.default_rng(5)
    tensors = [tapegrad.tensor(a, requires_grad=True)
               for a in _layer_arrays(rng, 1, 3, 2, 3, np.float64)]
    for output_nr in range(3):  # gradients reaching only output, only h_n, only c_n
        def layer(*inputs):
            return _layer(False, 3)(*inputs)[output_nr]
        assert gradcheck(layer, tensors)
        assert gradgradcheck(layer, tensors)


@pytest.mark.parametrize("reverse", [False, True])
def test_mkldnn_rnn_layer_matches_torch(torch, reverse):
    rng = np.random.default_rng(6)
    arrays = _layer_arrays(rng, 7, 3, 4, 5, np.float32)
    grads = [rng.standard_normal(shape).astype(np.float32) for shape in [(7, 3, 5), (3, 5),
                                                                         (3, 5)]]
    found = []
    for lib in (tapegrad, torch):
        tensors = _leaves(lib, arrays)
        call = mkldnn_rnn_layer if lib is tapegrad else lib.mkldnn_rnn_layer
        outputs = call(*tensors, reverse, [], 2, 5, 1, True, False, False, True)
        workspace = outputs[3]
        assert str(workspace.dtype).endswith("uint8") and not workspace.requires_grad
        assert type(outputs[0].grad_fn).__name__ == "MkldnnRnnLayerBackward0"
        assert all(o.grad_fn is outputs[0].grad_fn for o in outputs[:3])
        lib.autograd.backward(list(outputs[:3]), [lib.tensor(g) for g in grads])
        found.append([o.detach().numpy() for o in outputs[:3]]
                     + [t.grad.numpy() for t in tensors])
    for index, (actual, expected) in enumerate(zip(*found)):
        np.testing.assert_allclose(actual, expected, rtol=RTOL, atol=ATOL,
                                   err_msg=f"tensor {index}")


def test_mkldnn_rnn_layer_needs_only_the_gradients_asked_for():
    rng = np.random.default_rng(7)
    arrays = _layer_arrays(rng, 4, 2, 3, 2, np.float64)
    tensors = [tapegrad.tensor(a, requires_grad=index in (1, 6))
               for index, a in enumerate(arrays)]
    output = _layer(False, 2)(*tensors)[0]
    node = output.grad_fn
    assert [edge is not None for edge, _ in node.next_functions] == [
        False, True, False, False, False, False, True]
    weight_grad, cell_grad = tapegrad.autograd.grad(output.sum(), [tensors[1], tensors[6]])
    full = [tapegrad.tensor(a, requires_grad=True) for a in arrays]
    expected = tapegrad.autograd.grad(_layer(False, 2)(*full)[0].sum(),
                                      [full[1], full[6]])
    np.testing.assert_allclose(weight_grad.numpy(), expected[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(cell_grad.numpy(), expected[1].numpy(), rtol=1e-12)


# ---- the recorded graphs of RNN, GRU and LSTM: torch's nodes and edges ---------------------------
GRAPH_CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True), dict(batch_first=True),
                 dict(bias=False), dict(num_layers=2, bidirectional=True, batch_first=True)]


@pytest.mark.parametrize("kind, extra", [("RNN", dict()), ("RNN", dict(nonlinearity="relu")),
                                         ("GRU", dict()), ("LSTM", dict())])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("options", GRAPH_CONFIGS)
@pytest.mark.parametrize("with_hx", [False, True])
def test_recurrent_graph_matches_torch(torch, kind, extra, dtype, options, with_hx):
    shape = (3, 4, 4) if options.get("batch_first") else (4, 3, 4)
    results = _run_both(torch, kind, dtype, {**options, **extra}, shape, with_hx)
    _assert_same_graph(results)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_recurrent_unbatched_graph_matches_torch(torch, kind):
    for options in (dict(), dict(batch_first=True, num_layers=2)):
        for with_hx in (False, True):
            _assert_same_graph(_run_both(torch, kind, "float64", options, (4, 4), with_hx))


@pytest.mark.parametrize("kind, options", [("RNNCell", dict()), ("RNNCell", dict(bias=False)),
                                           ("RNNCell", dict(nonlinearity="relu")),
                                           ("LSTMCell", dict()), ("LSTMCell", dict(bias=False)),
                                           ("GRUCell", dict()), ("GRUCell", dict(bias=False))])
@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("with_hx", [False, True])
def test_cell_graph_matches_torch(torch, kind, options, batched, with_hx):
    rng = np.random.default_rng(8)
    module, torch_module = _modules(torch, kind, "float32", 4, 5, **options)
    shape = (3,) if batched else ()
    arrays = [rng.standard_normal((*shape, 4)).astype(np.float32)]
    arrays += [rng.standard_normal((*shape, 5)).astype(np.float32)
               for _ in range(2 if kind == "LSTMCell" else 1)] if with_hx else []
    signatures = []
    for lib, net in ((tapegrad, module), (torch, torch_module)):
        leaves = _leaves(lib, arrays)
        hx = (tuple(leaves[1:]) if kind == "LSTMCell" else leaves[1]) if with_hx else None
        result = net(leaves[0], hx)
        signatures.append(graph_signature(list(result) if kind == "LSTMCell" else [result]))
    assert signatures[0] == signatures[1]


# ---- torch's module database: its RNN, GRU and LSTM samples -------------------------------------
def _module_db_samples():
    try:
        import torch
        from torch.testing._internal.common_modules import module_db
    except ImportError:
        return []
    samples = []
    for info in module_db:
        if info.module_cls.__name__ in ("RNN", "GRU", "LSTM"):
            for dtype in (torch.float32, torch.float64):
                for number, sample in enumerate(info.module_inputs_func(
                        info, device="cpu", dtype=dtype, requires_grad=True, training=True)):
                    samples.append(pytest.param(info.module_cls.__name__, dtype, sample,
                                                id=f"{info.module_cls.__name__}-{dtype}-"
                                                   f"{number}"))
    return samples


def _flat(value):
    return [leaf for item in value for leaf in _flat(item)] if isinstance(value, tuple) else [
        value]


def _as_tapegrad(value):
    if isinstance(value, tuple):
        return tuple(_as_tapegrad(item) for item in value)
    return tapegrad.tensor(value.detach().numpy(), requires_grad=value.requires_grad)


@pytest.mark.parametrize("kind, dtype, sample", _module_db_samples())
def test_module_db_samples_match_torch(torch, kind, dtype, sample):
    constructor = sample.constructor_input
    torch_module = getattr(torch.nn, kind)(*constructor.args, **constructor.kwargs,
                                           dtype=dtype)
    module = getattr(tapegrad.nn, kind)(*constructor.args, **constructor.kwargs,
                                        dtype=getattr(tapegrad, str(dtype).split(".")[-1]))
    with tapegrad.no_grad():
        for param, torch_param in zip(module.parameters(), torch_module.parameters()):
            param.copy_(tapegrad.tensor(torch_param.detach().numpy()))
    torch_inputs = sample.forward_input.args
    inputs = _as_tapegrad(torch_inputs)
    results = []
    for net, arguments in ((module, inputs), (torch_module, torch_inputs)):
        output, hidden = net(*arguments)
        results.append(([output, *_flat(hidden)], _flat(arguments), net))
    _assert_same_graph(results)
    tolerance = dict(rtol=RTOL, atol=ATOL) if dtype == torch.float32 else dict(rtol=1e-9,
                                                                               atol=1e-10)
    _assert_same_values(results, **tolerance)
