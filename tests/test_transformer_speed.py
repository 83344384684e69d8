"""The transformer layer's fast paths against torch: the array kernels of the fused nodes
(scaled dot product attention's flash node, the native layer, batch and group norm nodes)
give torch's values, gradients, node names and layouts, and TransformerEncoderLayer /
MultiheadAttention record torch's graph node for node (walking next_functions)."""
import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

RNG = np.random.default_rng(12)


@pytest.fixture
def torch():
    return torch_or_skip()


def graph_names(node):
    """Node names depth first along next_functions; a node seen before is named by number."""
    numbers, lines, stack = {}, [], [(node, 0)]
    while stack:
        node, depth = stack.pop()
        if node is None:
            lines.append((depth, "None"))
        elif node in numbers:
            lines.append((depth, f"#{numbers[node]}"))
        else:
            numbers[node] = len(numbers)
            lines.append((depth, node.name()))
            stack.extend((next_node, depth + 1)
                         for next_node, _ in reversed(node.next_functions))
    return lines


def outputs_graph(outputs):
    return [graph_names(out.grad_fn) for out in outputs if out is not None]


def as_tensors(lib, arrays, requires_grad=True):
    return [lib.tensor(a, requires_grad=requires_grad) for a in arrays]


# ---- scaled_dot_product_attention: the flash node's kernels ---------------------------------

def _heads(batch=2, heads=4, target=5, source=7, dim=8, dtype=np.float32):
    shapes = [(batch, heads, target, dim), (batch, heads, source, dim), (batch, heads, source, dim)]
    return [RNG.standard_normal(shape).astype(dtype) for shape in shapes]


def _bool_mask(target=5, source=7, dead_row=None):
    mask = RNG.random((target, source)) > 0.4
    if dead_row is not None:
        mask[dead_row] = False
    return mask


SDPA_CASES = {
    "plain": ({}, None),
    "causal": ({"is_causal": True}, None),
    "scale": ({"scale": 0.3}, None),
    "bool_mask_with_dead_row": ({}, lambda: _bool_mask(dead_row=1)),
    "float_mask_4d": ({}, lambda: RNG.standard_normal((2, 1, 5, 7)).astype(np.float32)),
    "float_mask_rows_broadcast": ({}, lambda: RNG.standard_normal((1, 7)).astype(np.float32)),
}


def _sdpa(lib, arrays, mask, grad, requires_grad=(True, True, True), **kwargs):
    query, key, value = (lib.tensor(a, requires_grad=r) for a, r in zip(arrays, requires_grad))
    output = lib.nn.functional.scaled_dot_product_attention(
        query, key, value, attn_mask=None if mask is None else lib.tensor(mask), **kwargs)
    output.backward(lib.tensor(grad))
    return output, [t.grad for t in (query, key, value)]


@pytest.mark.parametrize("case", SDPA_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_flash_attention_kernels_match_torch(torch, case, dtype):
    kwargs, make_mask = SDPA_CASES[case]
    arrays = _heads(dtype=dtype)
    mask = None if make_mask is None else make_mask()
    if mask is not None and mask.dtype != bool:
        mask = mask.astype(dtype)
    grad = RNG.standard_normal((2, 4, 5, 8)).astype(dtype)
    ours, our_grads = _sdpa(tapegrad, arrays, mask, grad, **kwargs)
    theirs, their_grads = _sdpa(torch, arrays, mask, grad, **kwargs)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    assert ours.grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert str(ours.dtype) == str(theirs.dtype)
    tolerance = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=tolerance,
                               atol=tolerance)
    for our_grad, their_grad in zip(our_grads, their_grads):
        np.testing.assert_allclose(our_grad.numpy(), their_grad.numpy(), rtol=tolerance,
                                   atol=tolerance)


def test_flash_attention_grouped_heads_match_torch(torch):
    query, key, value = _heads()
    arrays = [query, key[:, :2], value[:, :2]]
    grad = RNG.standard_normal((2, 4, 5, 8)).astype(np.float32)
    for is_causal in (False, True):
        ours, our_grads = _sdpa(tapegrad, arrays, None, grad, enable_gqa=True,
                                is_causal=is_causal)
        theirs, their_grads = _sdpa(torch, arrays, None, grad, enable_gqa=True,
                                    is_causal=is_causal)
        assert ours.grad_fn.name() == theirs.grad_fn.name()
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=1e-5)
        for our_grad, their_grad in zip(our_grads, their_grads):
            np.testing.assert_allclose(our_grad.numpy(), their_grad.numpy(), atol=1e-5)


def test_flash_attention_gradient_of_one_input_matches_torch(torch):
    arrays = _heads()
    grad = RNG.standard_normal((2, 4, 5, 8)).astype(np.float32)
    for needed in ((True, False, False), (False, True, False), (False, False, True)):
        _, our_grads = _sdpa(tapegrad, arrays, None, grad, requires_grad=needed)
        _, their_grads = _sdpa(torch, arrays, None, grad, requires_grad=needed)
        for ours, theirs in zip(our_grads, their_grads):
            assert (ours is None) == (theirs is None)
            if ours is not None:
                np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-5)


def test_flash_attention_output_takes_the_query_layout(torch):
    """torch's kernel lays its output out as the query is: MultiheadAttention's heads come as
    (seq, batch, heads, dim) in memory, so permuting back is a view."""
    time_major = RNG.standard_normal((5, 2, 4, 8)).astype(np.float32)
    strides = []
    for lib in (tapegrad, torch):
        query = lib.tensor(time_major).permute(1, 2, 0, 3)
        key = lib.tensor(RNG.standard_normal((2, 4, 7, 8)).astype(np.float32))
        output = lib.nn.functional.scaled_dot_product_attention(query, key, key)
        strides.append(output.stride())
        assert output.permute(2, 0, 1, 3).is_contiguous()
    assert strides[0] == strides[1]


def test_flash_attention_logsumexp_of_a_dead_row_is_zero_as_torch(torch):
    from tapegrad.ops.attention import _flash_attention
    arrays = _heads(target=5, source=5)
    mask = np.where(_bool_mask(5, 5, dead_row=2), 0.0, -np.inf).astype(np.float32)
    output, logsumexp = _flash_attention(*as_tensors(tapegrad, arrays, False), mask, False,
                                         8 ** -0.5)
    their_output, their_logsumexp = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(
        *as_tensors(torch, arrays, False), attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(logsumexp.numpy(), their_logsumexp.numpy(), atol=1e-5)
    np.testing.assert_allclose(output.numpy(), their_output.numpy(), atol=1e-6)
    assert not output.numpy()[:, :, 2].any()


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"mask": True}])
def test_flash_attention_passes_gradcheck_and_gradgradcheck(kwargs):
    arrays = [a[:1, :2, :3, :4] for a in _heads(dtype=np.float64)]
    mask = None
    if kwargs.pop("mask", False):
        mask = tapegrad.tensor(np.where(_bool_mask(3, 7)[:, :3], 0.0, -np.inf))
    inputs = as_tensors(tapegrad, arrays)

    def attention(query, key, value):
        return tapegrad.nn.functional.scaled_dot_product_attention(query, key, value,
                                                                   attn_mask=mask, **kwargs)

    assert attention(*inputs).grad_fn.name() == "ScaledDotProductFlashAttentionForCpuBackward0"
    assert tapegrad.autograd.gradcheck(attention, inputs)
    assert tapegrad.autograd.gradgradcheck(attention, inputs)


EMPTY_SHAPES = [((2, 0, 4, 8), (2, 0, 5, 8), (2, 0, 5, 6)),
                ((2, 2, 0, 8), (2, 2, 5, 8), (2, 2, 5, 6)),
                ((2, 2, 4, 8), (2, 2, 0, 8), (2, 2, 0, 6)),
                ((2, 2, 4, 8), (2, 2, 5, 8), (2, 2, 5, 0)),
                ((3, 4, 8), (3, 0, 8), (3, 0, 6)), ((4, 0, 8), (5, 0, 8), (5, 0, 6)),
                ((2, 2, 4, 0), (2, 2, 5, 0), (2, 2, 5, 6))]


@pytest.mark.parametrize("shapes", EMPTY_SHAPES)
def test_attention_of_empty_inputs_matches_torch(torch, shapes):
    """An empty output or key sequence gives torch's zeros that keep q, k, v in the graph
    (before any shape check); an empty embedding runs the composition with an infinite
    scale, as torch's."""
    results = []
    for lib in (tapegrad, torch):
        inputs = [lib.ones(*shape, requires_grad=True) for shape in shapes]
        output = lib.nn.functional.scaled_dot_product_attention(*inputs)
        output.sum().backward()
        results.append((tuple(output.shape), str(output.dtype), graph_names(output.grad_fn),
                        output.detach().numpy().tolist(), [t.grad.tolist() for t in inputs]))
    assert results[0] == results[1]


# ---- layer norm: the native node's row kernels ---------------------------------------------

# (function, input shapes, the magnitude of the normalised values: what rounding scales with)
LAYER_NORM_CASES = {
    "affine": (lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (64,), w, b),
               [(16, 32, 64), (64,), (64,)], 1),
    "two_dims": (lambda lib, x, w: lib.nn.functional.layer_norm(x, (5, 6), w),
                 [(3, 5, 6), (5, 6)], 1),
    "no_affine_strided": (lambda lib, x: lib.nn.functional.layer_norm(x.transpose(0, 1), (7,)),
                          [(7, 4)], 1),
    "large_mean": (lambda lib, x, w, b: lib.nn.functional.layer_norm(x + 1000, (8,), w, b),
                   [(4, 8), (8,), (8,)], 1000),
}


def _layer_norm(lib, case, arrays):
    fn = LAYER_NORM_CASES[case][0]
    inputs = as_tensors(lib, arrays)
    output = fn(lib, *inputs)
    output.backward(lib.tensor(np.cos(np.arange(output.numel())).reshape(output.shape)
                               .astype(arrays[0].dtype)))
    return output, [t.grad for t in inputs]


def _errors(outputs, reference):
    return [np.abs(mine.detach().double().numpy() - exact.detach().numpy()).max()
            for mine, exact in zip(outputs, reference)]


@pytest.mark.parametrize("case", LAYER_NORM_CASES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_layer_norm_kernels_match_torch(torch, case, dtype):
    """Values and gradients at least as close to the exact ones (torch in float64 on the same
    inputs) as torch's own, up to a rounding error of the dtype: a large mean or half
    precision leaves both libraries far from each other."""
    arrays = [RNG.standard_normal(shape).astype(dtype) for shape in LAYER_NORM_CASES[case][1]]
    ours, our_grads = _layer_norm(tapegrad, case, arrays)
    theirs, their_grads = _layer_norm(torch, case, arrays)
    exact, exact_grads = _layer_norm(torch, case, [a.astype(np.float64) for a in arrays])
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "NativeLayerNormBackward0"
    ours, theirs, exact = [ours, *our_grads], [theirs, *their_grads], [exact, *exact_grads]
    assert [str(t.dtype) for t in ours] == [str(t.dtype) for t in theirs]
    rounding = 50 * np.finfo(dtype).eps * LAYER_NORM_CASES[case][2]
    for mine, torchs, reference in zip(_errors(ours, exact), _errors(theirs, exact), exact):
        scale = max(np.abs(reference.detach().numpy()).max(), 1.0)
        assert mine <= max(2 * torchs, rounding * scale)


def test_native_layer_norm_statistics_match_torch(torch):
    x = RNG.standard_normal((3, 4, 5)).astype(np.float32)
    for shape in ((5,), (4, 5)):
        ours = tapegrad.native_layer_norm(tapegrad.tensor(x), shape, None, None, 1e-5)
        theirs = torch.native_layer_norm(torch.tensor(x), shape, None, None, 1e-5)
        for mine, reference in zip(ours, theirs):
            assert mine.shape == reference.shape and str(mine.dtype) == str(reference.dtype)
            np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-5, atol=1e-6)


def test_native_layer_norm_of_empty_rows_as_torch(torch):
    """torch's mean of no elements is 0 and its 1/std NaN."""
    for lib in (tapegrad, torch):
        result, mean, rstd = lib.native_layer_norm(lib.zeros(3, 0), (0,), None, None, 1e-5)
        assert result.shape == (3, 0) and mean.shape == rstd.shape == (3, 1)
        assert not mean.numpy().any() and np.isnan(rstd.numpy()).all()


def test_layer_norm_passes_gradcheck_and_gradgradcheck():
    inputs = as_tensors(tapegrad, [RNG.standard_normal(shape) for shape in ((3, 2, 4), (4,),
                                                                            (4,))])

    def layer_norm(x, weight, bias):
        return tapegrad.nn.functional.layer_norm(x, (4,), weight, bias)

    assert tapegrad.autograd.gradcheck(layer_norm, inputs)
    assert tapegrad.autograd.gradgradcheck(layer_norm, inputs)


# ---- batch norm and group norm: their native nodes' kernels --------------------------------

def _running(lib, dtype):
    return lib.linspace(-1, 1, 6, dtype=dtype), lib.linspace(0.5, 2, 6, dtype=dtype)


NORM_CASES = {
    "batch_norm_train": (lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, *_running(lib, x.dtype), w, b, training=True), [(4, 6, 5, 3), (6,), (6,)]),
    "batch_norm_eval": (lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, *_running(lib, x.dtype), w, b), [(4, 6, 5), (6,), (6,)]),
    "batch_norm_no_affine_2d": (lambda lib, x: lib.nn.functional.batch_norm(
        x, None, None, training=True), [(4, 6)]),
    "group_norm": (lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b),
                   [(4, 6, 5, 3), (6,), (6,)]),
    "group_norm_no_affine": (lambda lib, x: lib.nn.functional.group_norm(x, 2), [(2, 6, 7)]),
    "native_group_norm_statistics": (lambda lib, x, w, b: sum(
        (part * scale).sum() for part, scale in zip(
            lib.native_group_norm(x, w, b, 4, 6, 5, 2, 1e-5), (1.0, 0.3, 0.7))),
        [(4, 6, 5), (6,), (6,)]),
}
NORM_NODES = {"batch_norm": "NativeBatchNormBackward0", "group_norm": "NativeGroupNormBackward0"}


def _norm(lib, case, arrays):
    inputs = as_tensors(lib, arrays)
    output = NORM_CASES[case][0](lib, *inputs)
    output.backward(lib.tensor(np.cos(np.arange(output.numel())).reshape(output.shape)
                               .astype(arrays[0].dtype)))
    return output, [t.grad for t in inputs]


@pytest.mark.parametrize("case", NORM_CASES)
@pytest.mark.parametrize("dtype, tolerance", [(np.float32, 1e-5), (np.float64, 1e-12)])
def test_batch_and_group_norm_kernels_match_torch(torch, case, dtype, tolerance):
    arrays = [RNG.standard_normal(shape).astype(dtype) for shape in NORM_CASES[case][1]]
    ours, our_grads = _norm(tapegrad, case, arrays)
    theirs, their_grads = _norm(torch, case, arrays)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for family, node in NORM_NODES.items():
        if case.startswith(family):
            assert ours.grad_fn.name() == node
    for mine, reference in zip([ours.detach(), *our_grads], [theirs.detach(), *their_grads]):
        assert str(mine.dtype) == str(reference.dtype)
        scale = max(np.abs(reference.numpy()).max(), 1.0)
        np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=tolerance,
                                   atol=tolerance * scale)


@pytest.mark.parametrize("case", NORM_CASES)
def test_batch_and_group_norm_pass_gradcheck_and_gradgradcheck(case):
    fn, shapes = NORM_CASES[case]
    shapes = [(2,) + shape[1:] if len(shape) > 1 else shape for shape in shapes]
    if case == "native_group_norm_statistics":
        shapes = [(4, 6, 5), (6,), (6,)]
    inputs = as_tensors(tapegrad, [RNG.standard_normal(shape) for shape in shapes])

    def norm(*tensors):
        return fn(tapegrad, *tensors)

    assert tapegrad.autograd.gradcheck(norm, inputs)
    assert tapegrad.autograd.gradgradcheck(norm, inputs)


HALF_CASES = {
    "layer_norm": (lambda lib, x, w: lib.nn.functional.layer_norm(x, (8,), w, w),
                   [(2, 3, 8), (8,)]),
    "batch_norm_train": (lambda lib, x, w: lib.nn.functional.batch_norm(
        x, *_running(lib, x.dtype), w, w, training=True), [(4, 6, 8), (6,)]),
    "batch_norm_eval": (lambda lib, x, w: lib.nn.functional.batch_norm(
        x, *_running(lib, x.dtype), w, w), [(4, 6, 8), (6,)]),
    "group_norm": (lambda lib, x, w: lib.nn.functional.group_norm(x, 2, w, w),
                   [(4, 6, 8), (6,)]),
    "scaled_dot_product_attention": (
        lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v),
        [(2, 2, 4, 8), (2, 2, 6, 8), (2, 2, 6, 8)]),
}


def _half_run(lib, case, arrays, dtype):
    inputs = [lib.tensor(a).to(getattr(lib, dtype)).requires_grad_() for a in arrays]
    output = HALF_CASES[case][0](lib, *inputs)
    weights = lib.tensor(np.cos(np.arange(output.numel())).reshape(output.shape))
    (output.double() * weights).sum().backward()
    return [output, *(t.grad for t in inputs)]


@pytest.mark.parametrize("case", HALF_CASES)
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_kernels_as_accurate_as_torch(torch, case, dtype):
    """Half precision is computed in float32, as torch's kernels accumulate: each value and
    gradient is as close to the exact one (float64 on the rounded inputs) as torch's, within
    one rounding of the dtype."""
    arrays = [RNG.standard_normal(shape).astype(np.float32) for shape in HALF_CASES[case][1]]
    rounded = [torch.tensor(a).to(getattr(torch, dtype)).double().numpy() for a in arrays]
    exact = [t.detach().numpy() for t in _half_run(torch, case, rounded, "float64")]
    ours, theirs = _half_run(tapegrad, case, arrays, dtype), _half_run(torch, case, arrays, dtype)
    assert [str(t.dtype) for t in ours] == [str(t.dtype) for t in theirs]
    eps = float(torch.finfo(getattr(torch, dtype)).eps)
    for mine, torchs, reference in zip(ours, theirs, exact):
        error = np.abs(mine.detach().double().numpy() - reference).max()
        torch_error = np.abs(torchs.detach().double().numpy() - reference).max()
        assert error <= torch_error + eps * max(np.abs(reference).max(), 1.0)


# ---- the whole layer: torch's graph, node for node -----------------------------------------

def _causal(lib, size=6):
    return lib.full((size, size), float("-inf")).triu(1)


def _padding(lib):
    mask = lib.zeros(3, 6, dtype=lib.bool)
    mask[:, -2:] = True
    return mask


MHA_CASES = {
    "self_attention": ({"batch_first": True}, {"need_weights": False}, "qkv"),
    "self_attention_weights": ({"batch_first": True}, {"need_weights": True}, "qkv"),
    "time_major": ({}, {"need_weights": False}, "qkv"),
    "shared_key_value": ({"batch_first": True}, {"need_weights": False}, "kv"),
    "shared_key_value_weights": ({"batch_first": True}, {"need_weights": True}, "kv"),
    "separate_inputs": ({"batch_first": True}, {"need_weights": False}, ""),
    "separate_weights": ({"batch_first": True, "kdim": 6, "vdim": 6},
                         {"need_weights": False}, ""),
    "causal_hint": ({"batch_first": True}, {"need_weights": False, "attn_mask": _causal,
                                            "is_causal": True}, "qkv"),
    "mask": ({"batch_first": True}, {"need_weights": False, "attn_mask": _causal}, "qkv"),
    "mask_weights": ({"batch_first": True}, {"attn_mask": _causal}, "qkv"),
    "key_padding": ({"batch_first": True}, {"need_weights": False,
                                            "key_padding_mask": _padding}, "qkv"),
    "key_padding_and_mask": ({"batch_first": True}, {
        "need_weights": False, "key_padding_mask": _padding, "attn_mask": _causal}, "qkv"),
    "bias_kv_zero_attn": ({"batch_first": True, "add_bias_kv": True, "add_zero_attn": True},
                          {"need_weights": False}, "qkv"),
}


def _attention(lib, module_kwargs, call_kwargs, sharing, training=True):
    lib.manual_seed(0)
    module = lib.nn.MultiheadAttention(8, 2, **module_kwargs).train(training)
    batch_first = module_kwargs.get("batch_first", False)
    shape = (3, 6, 8) if batch_first else (6, 3, 8)
    query = lib.tensor(RNG.standard_normal(shape).astype(np.float32), requires_grad=True)
    other_shape = shape[:2] + (module_kwargs.get("kdim", 8),)

    def other():
        return lib.tensor(RNG.standard_normal(other_shape).astype(np.float32),
                          requires_grad=True)

    key = value = query if sharing == "qkv" else other()
    if sharing == "":
        value = other()
    calls = {name: value(lib) if callable(value) else value
             for name, value in call_kwargs.items()}
    return module(query, key, value, **calls)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("case", MHA_CASES)
def test_multihead_attention_graph_is_torch(torch, case):
    seed = RNG.bit_generator.state
    ours = _attention(tapegrad, *MHA_CASES[case])
    RNG.bit_generator.state = seed
    theirs = _attention(torch, *MHA_CASES[case])
    assert outputs_graph(ours) == outputs_graph(theirs)
    for mine, reference in zip(ours, theirs):
        if reference is not None:
            np.testing.assert_allclose(mine.detach().numpy(), reference.detach().numpy(),
                                       atol=1e-5)


def test_multihead_attention_in_projection_is_one_product(torch):
    """Self-attention projects q, k and v with one product of the packed weight."""
    names = outputs_graph(_attention(tapegrad, *MHA_CASES["self_attention"]))[0]
    assert sum(name in ("MmBackward0", "AddmmBackward0") for _, name in names) == 2


LAYER_CASES = {
    "post_norm": ({}, {}),
    "norm_first_gelu": ({"norm_first": True, "activation": "gelu"}, {}),
    "causal": ({}, {"src_mask": lambda lib: _causal(lib, 6), "is_causal": True}),
    "key_padding": ({}, {"src_key_padding_mask": _padding}),
}


def _encoder_layer(lib, module_kwargs, call_kwargs, training):
    lib.manual_seed(0)
    layer = lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0,
                                           batch_first=True, **module_kwargs).train(training)
    src = lib.tensor(RNG.standard_normal((3, 6, 8)).astype(np.float32), requires_grad=True)
    calls = {name: value(lib) if callable(value) else value
             for name, value in call_kwargs.items()}
    return layer, src, layer(src, **calls)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("case", LAYER_CASES)
def test_transformer_encoder_layer_graph_and_gradients_are_torch(torch, case, training):
    seed = RNG.bit_generator.state
    ours = _encoder_layer(tapegrad, *LAYER_CASES[case], training)
    RNG.bit_generator.state = seed
    theirs = _encoder_layer(torch, *LAYER_CASES[case], training)
    assert outputs_graph([ours[2]]) == outputs_graph([theirs[2]])
    grad = RNG.standard_normal((3, 6, 8)).astype(np.float32)
    ours[2].backward(tapegrad.tensor(grad))
    theirs[2].backward(torch.tensor(grad))
    np.testing.assert_allclose(ours[2].detach().numpy(), theirs[2].detach().numpy(), atol=1e-5)
    np.testing.assert_allclose(ours[1].grad.numpy(), theirs[1].grad.numpy(), atol=1e-4)
    for (name, mine), reference in zip(ours[0].named_parameters(), theirs[0].parameters()):
        np.testing.assert_allclose(mine.grad.numpy(), reference.grad.numpy(), atol=1e-4,
                                   err_msg=name)


@pytest.mark.parametrize("case", LAYER_CASES)
def test_transformer_encoder_layer_inference_matches_torch_fast_path(torch, case):
    """Under no_grad in eval mode torch runs _transformer_encoder_layer_fwd; tapegrad's
    composition gives its values."""
    seed = RNG.bit_generator.state
    outputs = []
    for lib in (tapegrad, torch):
        RNG.bit_generator.state = seed
        with lib.no_grad():
            outputs.append(_encoder_layer(lib, *LAYER_CASES[case], False)[2])
    assert outputs[0].grad_fn is None and outputs[1].grad_fn is None
    np.testing.assert_allclose(outputs[0].numpy(), outputs[1].numpy(), atol=1e-5)


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_encoder_layer_passes_gradcheck_and_gradgradcheck(norm_first):
    """First order runs the fused nodes' array kernels, second order their recorded formulas."""
    tapegrad.manual_seed(0)
    layer = tapegrad.nn.TransformerEncoderLayer(4, 2, dim_feedforward=6, dropout=0.0,
                                                batch_first=True, norm_first=norm_first).double()
    src = tapegrad.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    assert tapegrad.autograd.gradcheck(layer, (src,))
    assert tapegrad.autograd.gradgradcheck(layer, (src,))
