"""The layer classes of tapegrad.nn against torch.nn, and their initialisation without torch."""
import math
import re
import warnings
from dataclasses import dataclass

import numpy as np
import pytest

import tapegrad as tg

FLOAT64 = dict(rtol=1e-10, atol=1e-12)
FLOAT32 = dict(rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def torch():
    return pytest.importorskip("torch")


# ---- case table: one row per layer configuration -----------------------------------------

@dataclass(frozen=True)
class In:
    """One forward argument: kind picks the values, grad whether its gradient is compared."""
    shape: tuple
    kind: str = "normal"
    high: int = 0
    grad: bool = True


def target(shape, kind="normal"):
    return In(shape, kind, grad=False)


def index(shape, high):
    return In(shape, "index", high, grad=False)


@dataclass(frozen=True)
class Const:
    """A tensor constructor argument (a class weight, pos_weight), built in each library."""
    values: tuple


def case(name, *args, inputs, typed=False, grad_fn=True, rtol=None, **kwargs):
    """typed: the layer takes dtype=; grad_fn: compare the output's node name with torch's;
    rtol: a float64 tolerance wider than FLOAT64's, said why where it is given."""
    return pytest.param(name, args, kwargs, inputs, typed, grad_fn, rtol,
                        id=f"{name}{args}{kwargs or ''}")


X2, X3, X4 = In((3, 4)), In((2, 3, 7)), In((2, 3, 6, 5))

LAYER_CASES = [
    case("Identity", 3, key=1, inputs=(X2,)),
    case("Linear", 4, 3, inputs=(X2,), typed=True),
    case("Linear", 4, 3, bias=False, inputs=(In((2, 5, 4)),), typed=True),
    case("Bilinear", 4, 5, 2, inputs=(X2, In((3, 5))), typed=True),
    case("Bilinear", 4, 5, 2, bias=False, inputs=(X2, In((3, 5))), typed=True),
    case("Flatten", inputs=(X4,)),
    case("Flatten", 0, 2, inputs=(X4,)),
    case("Unflatten", 1, (2, 2), inputs=(X2,)),
    case("Conv1d", 3, 4, 3, inputs=(X3,), typed=True),
    case("Conv1d", 4, 6, 3, stride=2, padding=1, dilation=2, groups=2, inputs=(In((2, 4, 9)),),
         typed=True),
    case("Conv1d", 3, 2, 4, padding="same", inputs=(X3,), typed=True),
    case("Conv1d", 3, 2, 3, padding=2, padding_mode="reflect", inputs=(X3,), typed=True),
    case("Conv2d", 3, 4, 3, inputs=(X4,), typed=True),
    case("Conv2d", 4, 4, (3, 2), stride=(2, 1), padding=(1, 0), groups=4, bias=False,
         inputs=(In((2, 4, 6, 5)),), typed=True),
    case("Conv2d", 3, 2, 4, padding="same", dilation=2, inputs=(X4,), typed=True),
    case("Conv2d", 3, 2, 3, padding="valid", inputs=(In((3, 6, 5)),), typed=True),
    case("Conv2d", 3, 2, 3, padding="same", padding_mode="reflect", inputs=(X4,), typed=True),
    case("Conv2d", 3, 2, 3, padding=(1, 2), padding_mode="replicate", inputs=(X4,), typed=True),
    case("ConvTranspose1d", 3, 2, 3, stride=2, inputs=(X3,), typed=True),
    case("ConvTranspose1d", 4, 2, 2, padding=1, dilation=3, groups=2, inputs=(In((2, 4, 5)),),
         typed=True),
    case("ConvTranspose2d", 3, 4, 3, inputs=(X4,), typed=True),
    case("ConvTranspose2d", 4, 2, 3, stride=2, padding=1, output_padding=1, groups=2,
         bias=False, inputs=(In((2, 4, 3, 4)),), typed=True),
    case("ConvTranspose2d", 3, 2, (2, 3), dilation=2, inputs=(In((3, 4, 4)),), typed=True),
    case("MaxPool1d", 2, inputs=(X3,)),
    case("MaxPool1d", 3, stride=2, padding=1, dilation=2, ceil_mode=True, inputs=(X3,)),
    case("MaxPool2d", 2, inputs=(X4,)),
    case("MaxPool2d", 3, stride=2, padding=1, inputs=(X4,)),
    case("MaxPool2d", (2, 3), ceil_mode=True, inputs=(In((3, 7, 5)),)),
    case("AvgPool1d", 3, stride=2, padding=1, inputs=(X3,)),
    case("AvgPool1d", 2, ceil_mode=True, count_include_pad=False, inputs=(X3,)),
    case("AvgPool2d", 2, inputs=(X4,)),
    case("AvgPool2d", 3, 2, 1, count_include_pad=False, inputs=(X4,)),
    case("AvgPool2d", 2, divisor_override=3, inputs=(X4,)),
    case("AdaptiveAvgPool1d", 3, inputs=(X3,)),
    case("AdaptiveAvgPool2d", (2, 3), inputs=(X4,)),
    case("AdaptiveAvgPool2d", (None, 2), inputs=(X4,)),
    case("AdaptiveAvgPool2d", 1, inputs=(X4,)),
    case("BatchNorm1d", 4, inputs=(In((5, 4)),), typed=True),
    case("BatchNorm1d", 3, momentum=None, inputs=(X3,), typed=True),
    case("BatchNorm1d", 3, affine=False, inputs=(X3,), typed=True),
    case("BatchNorm2d", 3, inputs=(X4,), typed=True),
    case("BatchNorm2d", 3, eps=1e-3, momentum=0.3, bias=False, inputs=(X4,), typed=True),
    case("BatchNorm2d", 3, track_running_stats=False, inputs=(X4,), typed=True),
    case("LayerNorm", 4, inputs=(X2,), typed=True),
    case("LayerNorm", (6, 5), elementwise_affine=False, inputs=(X4,), typed=True),
    case("LayerNorm", 5, bias=False, eps=1e-3, inputs=(X4,), typed=True),
    case("GroupNorm", 1, 3, inputs=(X4,), typed=True),
    case("GroupNorm", 2, 4, affine=False, inputs=(In((2, 4, 5)),), typed=True),
    case("InstanceNorm1d", 3, inputs=(X3,), typed=True),
    case("InstanceNorm1d", 3, affine=True, inputs=(In((3, 7)),), typed=True),
    case("InstanceNorm2d", 3, affine=True, track_running_stats=True, inputs=(X4,), typed=True),
    case("Dropout", 0.0, inputs=(X2,), grad_fn=False),
    case("Embedding", 10, 3, inputs=(index((2, 4), 10),), typed=True),
    case("Embedding", 10, 3, padding_idx=-2, inputs=(index((3, 5), 10),), typed=True),
    case("PairwiseDistance", inputs=(X2, X2)),
    case("PairwiseDistance", p=1.0, keepdim=True, inputs=(X2, X2)),
    case("CosineSimilarity", inputs=(X4, X4)),
    case("CosineSimilarity", dim=-1, eps=1e-6, inputs=(X2, X2)),
    case("Unfold", 2, inputs=(X4,)),
    case("Unfold", (2, 3), dilation=(1, 2), padding=1, stride=2, inputs=(X4,)),
    case("Fold", (4, 5), 2, inputs=(In((2, 12, 12)),)),
    case("Upsample", scale_factor=2, inputs=(X4,)),
    case("Upsample", size=(4, 7), mode="bilinear", align_corners=False, inputs=(X4,)),
    case("UpsamplingNearest2d", size=8, inputs=(X4,)),
    case("UpsamplingBilinear2d", scale_factor=1.5, inputs=(X4,)),
    case("ZeroPad1d", (1, 2), inputs=(X3,)),
    case("ZeroPad2d", 1, inputs=(X4,)),
    case("ConstantPad1d", 2, 3.5, inputs=(X3,)),
    case("ConstantPad2d", (1, 0, 2, 1), -1.0, inputs=(X4,)),
    case("ConstantPad3d", 1, 0.5, inputs=(X4,)),
    case("ReflectionPad1d", 2, inputs=(X3,)),
    case("ReflectionPad2d", (1, 2, 0, 3), inputs=(X4,)),
    case("ReplicationPad1d", (0, 3), inputs=(X3,)),
    case("ReplicationPad2d", 2, inputs=(X4,)),
    case("CircularPad1d", (2, 1), inputs=(X3,)),
    case("CircularPad2d", (1, 2, 0, 3), inputs=(X4,)),
    case("CircularPad3d", 1, inputs=(X4,)),
    case("Conv1d", 3, 2, 3, padding=2, padding_mode="circular", inputs=(X3,), typed=True),
    case("Conv2d", 3, 2, 3, padding=(1, 2), padding_mode="circular", inputs=(X4,), typed=True),
    case("Conv2d", 3, 2, 4, padding="same", padding_mode="circular", inputs=(X4,), typed=True),
    case("AdaptiveMaxPool1d", 3, inputs=(X3,)),
    case("AdaptiveMaxPool2d", (2, 3), inputs=(X4,)),
    case("AdaptiveMaxPool2d", (None, 2), inputs=(In((3, 6, 5)),)),
    case("LPPool1d", 2, 3, inputs=(X3,)),
    case("LPPool1d", 1.5, 2, stride=1, ceil_mode=True, inputs=(In((2, 3, 7), "prob"),)),
    case("LPPool2d", 2, 2, inputs=(X4,)),
    case("LPPool2d", 3, (2, 3), stride=(1, 2), inputs=(In((2, 3, 6, 5), "prob"),)),
    case("Dropout1d", 1.0, inputs=(In((3, 7)),)),
    case("Dropout1d", 0.0, inputs=(X3,)),
    case("Dropout2d", 1.0, inputs=(X4,)),
    case("Dropout3d", 1.0, inputs=(X4,)),
    case("AlphaDropout", 1.0, inputs=(X2,)),
    case("FeatureAlphaDropout", 1.0, inputs=(X3,)),
]

ACTIVATION_CASES = [
    case("ReLU", inputs=(X4,)),
    case("ReLU6", inputs=(In((3, 4), "wide"),)),
    case("LeakyReLU", inputs=(X2,)),
    case("LeakyReLU", 0.2, inputs=(X2,)),
    case("ELU", inputs=(X2,)),
    case("ELU", alpha=0.5, inputs=(X2,)),
    case("SELU", inputs=(X2,)),
    case("CELU", 2.0, inputs=(X2,)),
    case("GELU", inputs=(X2,)),
    case("GELU", "tanh", inputs=(X2,)),
    case("SiLU", inputs=(X2,)),
    case("Mish", inputs=(X2,)),
    case("Sigmoid", inputs=(X2,)),
    case("Tanh", inputs=(X2,)),
    case("Softplus", inputs=(X2,)),
    case("Softplus", beta=2.0, threshold=1.0, inputs=(X2,)),
    case("Softsign", inputs=(X2,)),
    case("Softshrink", inputs=(X2,)),
    case("Softshrink", 0.3, inputs=(X2,)),
    case("Hardshrink", inputs=(X2,)),
    case("Hardshrink", lambd=1.0, inputs=(X2,)),
    case("Hardtanh", inputs=(X2,)),
    case("Hardtanh", -0.5, 2.0, inputs=(X2,)),
    case("Hardsigmoid", inputs=(In((3, 4), "wide"),)),
    case("Hardswish", inputs=(In((3, 4), "wide"),)),
    case("LogSigmoid", inputs=(X2,)),
    case("Tanhshrink", inputs=(X2,)),
    case("Threshold", 0.1, 20.0, inputs=(X2,)),
    case("GLU", inputs=(X2,)),
    case("GLU", 1, inputs=(In((2, 4, 3)),)),
    case("Softmax", 1, inputs=(X2,)),
    case("Softmax", -1, inputs=(X4,)),
    case("Softmin", 0, inputs=(X2,)),
    case("LogSoftmax", 1, inputs=(X2,)),
    case("Softmax2d", inputs=(X4,)),
    case("PReLU", inputs=(X2,), typed=True),
    case("PReLU", 3, init=0.1, inputs=(X4,), typed=True),
    case("PReLU", 4, inputs=(In((2, 4)),), typed=True),
    case("RReLU", inputs=(X2,)),  # compared in eval mode below
    case("RReLU", 0.2, 0.5, inputs=(X4,)),
]

LOSS_CASES = [
    case("MSELoss", inputs=(X2, target((3, 4)))),
    case("MSELoss", reduction="sum", inputs=(X2, target((3, 4)))),
    case("L1Loss", reduction="none", inputs=(X2, target((3, 4)))),
    case("SmoothL1Loss", beta=0.5, inputs=(X2, target((3, 4)))),
    case("HuberLoss", delta=0.7, inputs=(X2, target((3, 4)))),
    case("HuberLoss", "sum", inputs=(X2, target((3, 4)))),
    case("CrossEntropyLoss", inputs=(In((5, 4)), index((5,), 4))),
    case("CrossEntropyLoss", weight=Const((1.0, 2.0, 0.5, 1.5)), ignore_index=1,
         label_smoothing=0.1, inputs=(In((6, 4)), index((6,), 4))),
    case("CrossEntropyLoss", reduction="sum", inputs=(X4, index((2, 6, 5), 3))),
    case("CrossEntropyLoss", label_smoothing=0.2, inputs=(In((5, 4)), target((5, 4), "prob"))),
    case("NLLLoss", inputs=(In((5, 4)), index((5,), 4))),
    case("NLLLoss", weight=Const((1.0, 2.0, 0.5, 1.5)), reduction="none",
         inputs=(In((5, 4)), index((5,), 4))),
    case("BCELoss", inputs=(In((3, 4), "prob"), target((3, 4), "prob"))),
    case("BCELoss", weight=Const((1.0, 2.0, 0.5, 1.5)), reduction="sum",
         inputs=(In((3, 4), "prob"), target((3, 4), "prob"))),
    case("BCEWithLogitsLoss", inputs=(X2, target((3, 4), "prob"))),
    case("BCEWithLogitsLoss", pos_weight=Const((1.0, 2.0, 0.5, 3.0)),
         weight=Const((0.5, 1.0, 2.0, 1.0)), inputs=(X2, target((3, 4), "prob"))),
    case("KLDivLoss", reduction="batchmean", inputs=(X2, target((3, 4), "prob"))),
    case("KLDivLoss", reduction="sum", log_target=True, inputs=(X2, target((3, 4)))),
    case("MarginRankingLoss", inputs=(In((5,)), In((5,)), target((5,), "sign"))),
    case("MarginRankingLoss", margin=0.5, inputs=(In((5,)), In((5,)), target((5,), "sign"))),
    case("CosineEmbeddingLoss", inputs=(X2, X2, target((3,), "sign"))),
    case("CosineEmbeddingLoss", margin=0.2, reduction="none",
         inputs=(X2, X2, target((3,), "sign"))),
    case("TripletMarginLoss", inputs=(X2, X2, X2)),
    case("TripletMarginLoss", margin=0.5, p=1.0, swap=True, inputs=(X2, X2, X2)),
    case("TripletMarginWithDistanceLoss", inputs=(X2, X2, X2)),
    case("TripletMarginWithDistanceLoss", margin=0.5, swap=True, reduction="none",
         inputs=(X2, X2, X2)),
    case("PoissonNLLLoss", inputs=(X2, target((3, 4), "count"))),
    case("PoissonNLLLoss", log_input=False, full=True, reduction="sum",
         inputs=(In((3, 4), "prob"), target((3, 4), "count"))),
    case("GaussianNLLLoss", inputs=(X2, target((3, 4)), In((3, 4), "prob"))),
    case("GaussianNLLLoss", full=True, eps=1e-3, reduction="none",
         inputs=(X2, X2, In((3, 1), "prob"))),
    case("SoftMarginLoss", inputs=(X2, target((3, 4), "sign"))),
    case("SoftMarginLoss", reduction="sum", inputs=(X2, target((4,), "sign"))),
    case("MultiLabelSoftMarginLoss", inputs=(X2, target((3, 4), "prob"))),
    case("MultiLabelSoftMarginLoss", weight=Const((1.0, 2.0, 0.5, 1.5)), reduction="none",
         inputs=(X2, target((3, 4), "prob"))),
    case("HingeEmbeddingLoss", inputs=(X2, target((3, 4), "sign"))),
    case("HingeEmbeddingLoss", margin=0.5, reduction="none", inputs=(X2, target((3, 4), "sign"))),
    case("MultiMarginLoss", inputs=(In((5, 4)), index((5,), 4))),
    case("MultiMarginLoss", p=2, margin=0.5, weight=Const((1.0, 2.0, 0.5, 1.5)),
         reduction="none", inputs=(In((5, 4)), index((5,), 4))),
    case("MultiLabelMarginLoss", inputs=(In((5, 4)), In((5, 4), "labels", 4, grad=False))),
    case("MultiLabelMarginLoss", reduction="sum", inputs=(In((4,)), In((4,), "labels", 4,
                                                                        grad=False))),
]


# ---- building both sides ------------------------------------------------------------------

def make_array(spec, rng, dtype):
    if spec.kind == "index":
        return rng.integers(0, spec.high, spec.shape)
    if spec.kind == "prob":
        return rng.uniform(0.05, 0.95, spec.shape).astype(dtype)
    if spec.kind == "sign":
        return rng.choice([-1.0, 1.0], spec.shape).astype(dtype)
    if spec.kind == "count":  # Poisson targets, above 1 for Stirling's term too
        return rng.uniform(0.5, 4.0, spec.shape).astype(dtype)
    if spec.kind == "labels":  # class lists, each ending at its first -1
        return rng.integers(-1, spec.high, spec.shape)
    scale = 4.0 if spec.kind == "wide" else 1.0  # reach the linear pieces of hard* functions
    return (scale * rng.standard_normal(spec.shape)).astype(dtype)


def build(lib, name, args, kwargs, typed, dtype):
    """The layer `name` from lib.nn, with Const arguments made into lib tensors."""
    def convert(value):
        if isinstance(value, Const):
            return lib.tensor(np.array(value.values, dtype=dtype))
        return value
    kwargs = {key: convert(value) for key, value in kwargs.items()}
    if typed:
        kwargs["dtype"] = getattr(lib, np.dtype(dtype).name)
    return getattr(lib.nn, name)(*[convert(a) for a in args], **kwargs)


def copy_state(torch_layer, tg_layer):
    """Give the tapegrad layer torch's parameter and buffer values."""
    tg_tensors = dict(tg_layer.named_parameters())
    tg_tensors.update(tg_layer.named_buffers())
    torch_tensors = dict(torch_layer.named_parameters())
    torch_tensors.update(torch_layer.named_buffers())
    assert sorted(tg_tensors) == sorted(torch_tensors)
    with tg.no_grad():
        for name, value in torch_tensors.items():
            tg_tensors[name].copy_(tg.tensor(value.detach().numpy()))


def assert_close(tg_tensor, torch_tensor, tolerance):
    assert tuple(tg_tensor.shape) == tuple(torch_tensor.shape)
    assert str(tg_tensor.dtype) == str(torch_tensor.dtype)
    np.testing.assert_allclose(tg_tensor.detach().numpy(), torch_tensor.detach().numpy(),
                               **tolerance)


def run_both(torch, name, args, kwargs, inputs, typed, dtype=np.float64, seed=0, train=True):
    """Build, align, run forward and backward in both libraries; return both sides."""
    rng = np.random.default_rng(seed)
    arrays = [make_array(spec, rng, dtype) for spec in inputs]
    sides = {}
    for lib in (torch, tg):
        if lib is torch:
            torch.manual_seed(seed)
        layer = build(lib, name, args, kwargs, typed, dtype)
        layer.train(train)
        tensors = [lib.tensor(a, requires_grad=spec.grad) for a, spec in zip(arrays, inputs)]
        sides[lib.__name__] = (layer, tensors)
    copy_state(sides["torch"][0], sides["tapegrad"][0])
    outputs = {}
    for lib in (torch, tg):
        layer, tensors = sides[lib.__name__]
        output = layer(*tensors)
        grad_output = np.random.default_rng(seed + 1).standard_normal(tuple(output.shape))
        if output.requires_grad:
            output.backward(lib.tensor(grad_output.astype(dtype)))
        outputs[lib.__name__] = output
    return sides, outputs


def check_against_torch(torch, name, args, kwargs, inputs, typed, grad_fn, dtype, tolerance,
                        train=True):
    sides, outputs = run_both(torch, name, args, kwargs, inputs, typed, dtype, train=train)
    (torch_layer, torch_inputs), (tg_layer, tg_inputs) = sides["torch"], sides["tapegrad"]
    assert_close(outputs["tapegrad"], outputs["torch"], tolerance)
    if grad_fn:
        assert (type(outputs["tapegrad"].grad_fn).__name__
                == type(outputs["torch"].grad_fn).__name__)
    for tg_input, torch_input in zip(tg_inputs, torch_inputs):
        if torch_input.requires_grad:
            assert_close(tg_input.grad, torch_input.grad, tolerance)
    tg_params = dict(tg_layer.named_parameters())
    for key, torch_param in torch_layer.named_parameters():
        assert_close(tg_params[key].grad, torch_param.grad, tolerance)
    tg_buffers = dict(tg_layer.named_buffers())
    for key, torch_buffer in torch_layer.named_buffers():
        assert_close(tg_buffers[key], torch_buffer, tolerance)
    assert repr(tg_layer) == repr(torch_layer)
    assert ([(k, tuple(v.shape)) for k, v in tg_layer.state_dict().items()]
            == [(k, tuple(v.shape)) for k, v in torch_layer.state_dict().items()])


# ---- against torch --------------------------------------------------------------------------

ALL_CASES = LAYER_CASES + ACTIVATION_CASES + LOSS_CASES
CASE_ARGS = "name, args, kwargs, inputs, typed, grad_fn, rtol"


@pytest.mark.parametrize(CASE_ARGS, ALL_CASES)
def test_layer_matches_torch_float64(torch, name, args, kwargs, inputs, typed, grad_fn, rtol):
    tolerance = dict(FLOAT64, rtol=rtol) if rtol else FLOAT64
    train = name != "RReLU"  # RReLU draws random slopes in training
    check_against_torch(torch, name, args, kwargs, inputs, typed, grad_fn, np.float64,
                        tolerance, train)


@pytest.mark.parametrize(CASE_ARGS, ALL_CASES[::3])
def test_layer_matches_torch_float32(torch, name, args, kwargs, inputs, typed, grad_fn, rtol):
    train = name != "RReLU"
    check_against_torch(torch, name, args, kwargs, inputs, typed, grad_fn, np.float32,
                        FLOAT32, train)


@pytest.mark.parametrize(CASE_ARGS, [c for c in LAYER_CASES if "Norm" in c.values[0]])
def test_norm_layer_eval_matches_torch(torch, name, args, kwargs, inputs, typed, grad_fn, rtol):
    check_against_torch(torch, name, args, kwargs, inputs, typed, grad_fn, np.float64,
                        FLOAT64, train=False)


def test_layer_dtype_and_device_arguments():
    layer = tg.nn.Conv2d(2, 3, 3, dtype=tg.float64, device="cpu")
    assert layer.weight.dtype == tg.float64 and layer.bias.dtype == tg.float64
    norm = tg.nn.BatchNorm1d(3, dtype=tg.float64)
    assert norm.running_mean.dtype == tg.float64
    assert norm.num_batches_tracked.dtype == tg.int64  # a count, whatever the layer's dtype
    assert tg.nn.Linear(2, 3).weight.dtype == tg.float32


# ---- training behaviour against torch ---------------------------------------------------

@pytest.mark.parametrize("kwargs", [{}, {"momentum": None}, {"momentum": 0.3, "affine": False},
                                    {"track_running_stats": False}])
def test_batchnorm_running_stats_over_training_steps_match_torch(torch, kwargs):
    rng = np.random.default_rng(3)
    layers = {lib: lib.nn.BatchNorm2d(3, dtype=lib.float64, **kwargs) for lib in (torch, tg)}
    for step in range(4):
        batch = rng.standard_normal((4, 3, 2, 5)) * (step + 1) + step
        for lib, layer in layers.items():
            layer(lib.tensor(batch, requires_grad=True)).pow(2).sum().backward()
    tg_buffers = dict(layers[tg].named_buffers())
    for name, buffer in layers[torch].named_buffers():
        assert_close(tg_buffers[name], buffer, FLOAT64)
    test_batch = rng.standard_normal((2, 3, 2, 5))
    outputs = [layer.eval()(lib.tensor(test_batch)) for lib, layer in layers.items()]
    assert_close(outputs[1], outputs[0], FLOAT64)


def test_batchnorm_running_stats_analytic():
    """momentum 0.1 blends in the unbiased batch variance; momentum=None averages batches."""
    rng = np.random.default_rng(4)
    batches = [rng.standard_normal((6, 2)) + k for k in range(3)]
    exponential = tg.nn.BatchNorm1d(2, dtype=tg.float64)
    cumulative = tg.nn.BatchNorm1d(2, momentum=None, dtype=tg.float64)
    mean, var = np.zeros(2), np.ones(2)
    for batch in batches:
        exponential(tg.tensor(batch))
        cumulative(tg.tensor(batch))
        mean = 0.9 * mean + 0.1 * batch.mean(0)
        var = 0.9 * var + 0.1 * batch.var(0, ddof=1)
    np.testing.assert_allclose(exponential.running_mean.numpy(), mean, rtol=1e-12)
    np.testing.assert_allclose(exponential.running_var.numpy(), var, rtol=1e-12)
    np.testing.assert_allclose(cumulative.running_mean.numpy(),
                               np.mean([b.mean(0) for b in batches], 0), rtol=1e-12)
    np.testing.assert_allclose(cumulative.running_var.numpy(),
                               np.mean([b.var(0, ddof=1) for b in batches], 0), rtol=1e-12)
    assert exponential.num_batches_tracked.item() == 3
    eval_output = exponential.eval()(tg.tensor(batches[0])).detach().numpy()
    np.testing.assert_allclose(eval_output, (batches[0] - mean) / np.sqrt(var + 1e-5),
                               rtol=1e-12)


def test_batchnorm_loads_state_dict_without_batch_count(torch):
    """A plain dict without num_batches_tracked loads (torch treats it as an old checkpoint)."""
    source = tg.nn.BatchNorm1d(2)
    source(tg.randn(4, 2))
    state = {k: v for k, v in source.state_dict().items() if k != "num_batches_tracked"}
    target = tg.nn.BatchNorm1d(2)
    assert target.load_state_dict(state) == torch.nn.BatchNorm1d(2).load_state_dict(
        {k: torch.tensor(v.numpy()) for k, v in state.items()})
    assert target.running_mean.tolist() == source.running_mean.tolist()
    assert target.num_batches_tracked.item() == 0
    assert list(source.state_dict()._metadata.values()) == [{"version": 2}]


def test_batchnorm_eval_does_not_touch_running_stats():
    layer = tg.nn.BatchNorm1d(2, dtype=tg.float64).eval()
    layer(tg.randn(4, 2, dtype=tg.float64))
    assert layer.running_mean.tolist() == [0.0, 0.0]
    assert layer.num_batches_tracked.item() == 0


def test_convtranspose_output_size_matches_torch(torch):
    rng = np.random.default_rng(5)
    data = rng.standard_normal((1, 2, 4, 3))
    results = []
    for lib in (torch, tg):
        torch.manual_seed(0)
        layer = lib.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1, dtype=lib.float64)
        results.append((layer, layer(lib.tensor(data), output_size=[8, 6])))
    copy_state(results[0][0], results[1][0])
    output = results[1][0](tg.tensor(data), output_size=(1, 3, 8, 6))
    assert tuple(output.shape) == tuple(results[0][1].shape) == (1, 3, 8, 6)
    assert_close(output, results[0][1], FLOAT64)


@pytest.mark.parametrize("name, size, shape", [("AdaptiveMaxPool1d", 3, (2, 3, 7)),
                                               ("AdaptiveMaxPool2d", (2, 3), (2, 3, 6, 5))])
def test_adaptive_maxpool_return_indices_matches_torch(torch, name, size, shape):
    data = np.random.default_rng(6).standard_normal(shape)
    torch_out, torch_idx = getattr(torch.nn, name)(size, return_indices=True)(torch.tensor(data))
    tg_out, tg_idx = getattr(tg.nn, name)(size, return_indices=True)(tg.tensor(data))
    assert_close(tg_out, torch_out, FLOAT64)
    assert tg_idx.tolist() == torch_idx.tolist()


def test_triplet_loss_with_a_distance_function_matches_torch(torch):
    data = np.random.default_rng(12).standard_normal((3, 3, 4))
    results = []
    for lib in (torch, tg):
        inputs = [lib.tensor(d, requires_grad=True) for d in data]
        loss = lib.nn.TripletMarginWithDistanceLoss(
            distance_function=lambda a, b: 1.0 - lib.nn.functional.cosine_similarity(a, b),
            margin=1.5)
        value = loss(*inputs)
        value.backward()
        results.append((repr(loss), value, [t.grad for t in inputs]))
    assert results[1][0] == results[0][0] == "TripletMarginWithDistanceLoss()"
    assert_close(results[1][1], results[0][1], FLOAT64)
    for ours, theirs in zip(results[1][2], results[0][2]):
        assert_close(ours, theirs, FLOAT64)


def test_rrelu_and_prelu_graphs_match_torch(torch):
    names = []
    for lib in (torch, tg):
        x = lib.tensor(np.linspace(-2.0, 2.0, 12).reshape(3, 4), requires_grad=True)
        prelu = lib.nn.PReLU(4, dtype=lib.float64)
        rrelu = lib.nn.RReLU()
        names.append([type(prelu(x).grad_fn).__name__, type(rrelu(x).grad_fn).__name__,
                      type(rrelu.eval()(x).grad_fn).__name__,
                      type(lib.nn.RReLU(inplace=True)(x * 1).grad_fn).__name__])
    assert names[1] == names[0]


def test_maxpool_return_indices_matches_torch(torch):
    data = np.random.default_rng(6).standard_normal((2, 3, 6, 5))
    torch_out, torch_idx = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(data))
    tg_out, tg_idx = tg.nn.MaxPool2d(2, return_indices=True)(tg.tensor(data))
    assert_close(tg_out, torch_out, FLOAT64)
    assert tg_idx.tolist() == torch_idx.tolist()


@pytest.mark.parametrize("name, kwargs", [("ReLU", {}), ("LeakyReLU", {"negative_slope": 0.2}),
                                          ("ELU", {}), ("Hardtanh", {}), ("ReLU6", {}),
                                          ("SiLU", {}), ("Threshold", {"threshold": 0.2,
                                                                       "value": -1.0})])
def test_inplace_activation_matches_torch(torch, name, kwargs):
    data = np.random.default_rng(7).standard_normal((3, 4))
    results = []
    for lib in (torch, tg):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 2
        layer = getattr(lib.nn, name)(inplace=True, **kwargs)
        output = layer(hidden)
        output.sum().backward()
        results.append((repr(layer), output is hidden, type(output.grad_fn).__name__, leaf.grad))
    assert results[1][:3] == results[0][:3]
    assert_close(results[1][3], results[0][3], FLOAT64)


def test_embedding_padding_idx_gets_no_gradient_and_matches_torch(torch):
    indices = np.array([[0, 2, 2], [4, 1, 2]])
    weight = np.random.default_rng(10).standard_normal((5, 3))
    grads = []
    for lib in (torch, tg):
        assert lib.nn.Embedding(5, 3, padding_idx=2).weight[2].abs().sum().item() == 0
        layer = lib.nn.Embedding.from_pretrained(lib.tensor(weight), freeze=False, padding_idx=2)
        layer(lib.tensor(indices)).pow(2).sum().backward()
        grads.append(layer.weight.grad)
    assert grads[1][2].abs().sum().item() == 0
    assert_close(grads[1], grads[0], FLOAT64)


def test_embedding_max_norm_renormalises_rows_like_torch(torch):
    weight = np.random.default_rng(8).standard_normal((6, 4)) * 3
    indices = np.array([1, 3, 3, 5])
    layers = [lib.nn.Embedding.from_pretrained(lib.tensor(weight), freeze=False, max_norm=1.5)
              for lib in (torch, tg)]
    outputs = [layer(lib.tensor(indices)) for layer, lib in zip(layers, (torch, tg))]
    assert_close(outputs[1], outputs[0], FLOAT64)
    assert_close(layers[1].weight, layers[0].weight, FLOAT64)
    assert repr(layers[1]) == repr(layers[0])


def test_embedding_from_pretrained_freezes_and_shares():
    weight = tg.arange(12.0).reshape(4, 3)
    frozen = tg.nn.Embedding.from_pretrained(weight)
    assert not frozen.weight.requires_grad
    assert frozen(tg.tensor([3])).tolist() == [[9.0, 10.0, 11.0]]
    assert tg.nn.Embedding.from_pretrained(weight, freeze=False).weight.requires_grad
    with pytest.raises(AssertionError, match="expected to be 2-dimensional"):
        tg.nn.Embedding.from_pretrained(tg.zeros(3))


def test_loss_weight_is_a_buffer_in_state_dict(torch):
    for lib in (torch, tg):
        loss = lib.nn.CrossEntropyLoss(weight=lib.tensor([1.0, 2.0]))
        assert [name for name, _ in loss.named_buffers()] == ["weight"]
        assert list(loss.state_dict()) == ["weight"]
        assert list(lib.nn.BCEWithLogitsLoss(pos_weight=lib.ones(2)).state_dict()) == [
            "pos_weight"]
        assert list(lib.nn.NLLLoss().state_dict()) == []


def test_loss_legacy_size_average_warns_like_torch(torch):
    messages = []
    for lib in (torch, tg):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            loss = lib.nn.MSELoss(size_average=False)
        messages.append((loss.reduction, [str(w.message) for w in caught]))
    assert messages[1] == messages[0]
    assert messages[1][0] == "sum"


def test_dropout_train_and_eval():
    tg.manual_seed(0)
    layer = tg.nn.Dropout(0.25)
    data = tg.ones(200, 100, dtype=tg.float64)
    output = layer(data).numpy()
    kept = output != 0
    assert abs(kept.mean() - 0.75) < 0.01
    np.testing.assert_allclose(output[kept], 1 / 0.75, rtol=1e-12)
    assert (layer.eval()(data).numpy() == 1).all()


def test_rrelu_training_slopes_lie_between_bounds():
    tg.manual_seed(0)
    data = -tg.rand(1000, dtype=tg.float64) - 0.1
    layer = tg.nn.RReLU(0.1, 0.3)
    slopes = (layer(data) / data).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3 and slopes.std() > 0.04
    positive = tg.rand(10, dtype=tg.float64)
    assert layer(positive).tolist() == positive.tolist()
    np.testing.assert_allclose((layer.eval()(data) / data).numpy(), 0.2, rtol=1e-12)


def test_rrelu_inplace_training_gradient_is_the_slope():
    tg.manual_seed(0)
    leaf = tg.tensor([-1.0, 2.0, -3.0], dtype=tg.float64, requires_grad=True)
    hidden = leaf * 1
    output = tg.nn.RReLU(0.1, 0.3, inplace=True)(hidden)
    assert output is hidden
    output.sum().backward()
    slopes = output.detach().numpy() / leaf.detach().numpy()
    np.testing.assert_allclose(leaf.grad.numpy(), slopes, rtol=1e-12)
    assert slopes[1] == 1.0 and 0.1 <= slopes[0] <= 0.3


# ---- errors, compared with torch's type and text --------------------------------------------

ERROR_CASES = [
    ("Conv2d", (4, 4, 3), {"groups": 0}),
    ("Conv2d", (3, 4, 3), {"groups": 2}),
    ("Conv1d", (4, 3, 3), {"groups": 2}),
    ("Conv2d", (3, 4, 3), {"padding": "same", "stride": 2}),
    ("Conv2d", (3, 4, 3), {"padding_mode": "mirror"}),
    ("ConvTranspose2d", (3, 4, 3), {"padding_mode": "reflect"}),
    ("Unflatten", (1, 6), {}),
    ("Unflatten", (1, (2, 3.0)), {}),
    ("GroupNorm", (3, 4), {}),
    ("Dropout", (1.5,), {}),
    ("Hardtanh", (1.0, -1.0), {}),
    ("Embedding", (4, 3), {"padding_idx": 4}),
    ("Embedding", (4, 3), {"padding_idx": -5}),
    ("TripletMarginLoss", (), {"margin": 0.0}),
    ("HuberLoss", (), {"delta": "1"}),
    ("Bilinear", (0, 2, 3), {}),
    ("MultiMarginLoss", (), {"p": 3}),
    ("TripletMarginWithDistanceLoss", (), {"margin": 0}),
    ("Dropout2d", (-0.1,), {}),
    ("AlphaDropout", (2,), {}),
]


def sorted_sets(text):
    """Set displays with their items sorted: a set's order depends on the hash seed of the
    process that compiled the literal, so torch's own order differs from run to run."""
    return re.sub(r"\{([^{}]*)\}", lambda m: "{" + ", ".join(sorted(m[1].split(", "))) + "}",
                  text)


def raised(build_layer):
    try:
        build_layer()
    except Exception as error:  # noqa: BLE001 - the type itself is what is compared
        return type(error), sorted_sets(str(error))
    return None


@pytest.mark.parametrize("name, args, kwargs", ERROR_CASES,
                         ids=[f"{n}{a}{k}" for n, a, k in ERROR_CASES])
def test_constructor_error_matches_torch(torch, name, args, kwargs):
    expected = raised(lambda: getattr(torch.nn, name)(*args, **kwargs))
    assert expected is not None
    assert raised(lambda: getattr(tg.nn, name)(*args, **kwargs)) == expected


FORWARD_ERROR_CASES = [
    ("BatchNorm1d", (3,), (4, 3, 2, 2)),
    ("BatchNorm2d", (3,), (4, 3)),
    ("InstanceNorm1d", (3,), (4, 3, 2, 2)),
    ("InstanceNorm2d", (3,), (3, 2)),
    ("InstanceNorm1d", (4,), {"affine": True}, (2, 3, 5)),
    ("Softmax2d", (), (3, 2)),
    ("PReLU", (3,), (2, 4)),
    ("CircularPad1d", (1,), (4,)),
    ("CircularPad2d", (1,), (2, 3, 4, 5, 6)),
    ("CircularPad3d", (1,), (2, 3, 4)),
    ("Dropout1d", (0.5,), (2, 3, 4, 5)),
    ("AdaptiveMaxPool2d", (2,), (3, 4)),
]


@pytest.mark.parametrize("case", FORWARD_ERROR_CASES, ids=[c[0] for c in FORWARD_ERROR_CASES])
def test_forward_error_matches_torch(torch, case):
    name, args, *kwargs, shape = case
    kwargs = kwargs[0] if kwargs else {}
    errors = [raised(lambda: getattr(lib.nn, name)(*args, **kwargs)(lib.zeros(shape)))
              for lib in (torch, tg)]
    assert errors[0] is not None
    assert errors[1] == errors[0]


def test_convtranspose_bad_output_size_matches_torch(torch):
    errors = [raised(lambda: lib.nn.ConvTranspose2d(2, 3, 3, stride=2)(lib.zeros(1, 2, 4, 4),
                                                                       output_size=[20, 9]))
              for lib in (torch, tg)]
    assert errors[0] is not None and errors[1] == errors[0]


# ---- without torch: initialisation and shapes ------------------------------------------------

def uniform_bound_check(values, bound):
    """Samples lie in [-bound, bound] and spread over it like a uniform distribution."""
    values = values.detach().numpy().ravel()
    assert np.abs(values).max() <= bound
    assert np.abs(values).max() > 0.9 * bound
    assert abs(values.std() - bound / math.sqrt(3)) < 0.1 * bound


@pytest.mark.parametrize("make_layer, fan_in", [
    (lambda: tg.nn.Linear(64, 500), 64),
    (lambda: tg.nn.Conv2d(6, 80, (3, 5), groups=2), 3 * 15),
    (lambda: tg.nn.Conv1d(16, 400, 3), 48),
    (lambda: tg.nn.ConvTranspose2d(10, 300, 3, groups=2), 150 * 9),
])
def test_default_init_bounds_by_fan_in(make_layer, fan_in):
    tg.manual_seed(0)
    layer = make_layer()
    bound = 1 / math.sqrt(fan_in)  # kaiming_uniform_(a=sqrt(5)) reduces to this bound
    uniform_bound_check(layer.weight, bound)
    assert np.abs(layer.bias.detach().numpy()).max() <= bound


def test_bilinear_init_bound_uses_in1_features():
    tg.manual_seed(0)
    layer = tg.nn.Bilinear(25, 40, 30)
    uniform_bound_check(layer.weight, 1 / 5)
    assert np.abs(layer.bias.detach().numpy()).max() <= 1 / 5


def test_embedding_init_is_standard_normal():
    tg.manual_seed(0)
    weight = tg.nn.Embedding(400, 50).weight.detach().numpy()
    assert abs(weight.mean()) < 0.02 and abs(weight.std() - 1) < 0.02


def test_norm_layers_init_to_identity():
    for layer in (tg.nn.BatchNorm2d(4), tg.nn.LayerNorm(4), tg.nn.GroupNorm(2, 4)):
        assert layer.weight.tolist() == [1.0] * 4 and layer.bias.tolist() == [0.0] * 4
    norm = tg.nn.BatchNorm1d(4)
    assert norm.running_var.tolist() == [1.0] * 4 and norm.num_batches_tracked.item() == 0
    assert tg.nn.PReLU(3, init=0.1).weight.tolist() == pytest.approx([0.1] * 3)


@pytest.mark.parametrize("layer, shapes", [
    (tg.nn.Linear(4, 3), [("weight", (3, 4)), ("bias", (3,))]),
    (tg.nn.Bilinear(2, 5, 3, bias=False), [("weight", (3, 2, 5))]),
    (tg.nn.Conv2d(4, 6, (3, 2), groups=2), [("weight", (6, 2, 3, 2)), ("bias", (6,))]),
    (tg.nn.ConvTranspose1d(4, 6, 3, groups=2), [("weight", (4, 3, 3)), ("bias", (6,))]),
    (tg.nn.BatchNorm1d(3), [("weight", (3,)), ("bias", (3,)), ("running_mean", (3,)),
                            ("running_var", (3,)), ("num_batches_tracked", ())]),
    (tg.nn.BatchNorm2d(3, affine=False, track_running_stats=False), []),
    (tg.nn.LayerNorm((2, 3), bias=False), [("weight", (2, 3))]),
    (tg.nn.Embedding(7, 2), [("weight", (7, 2))]),
])
def test_state_dict_keys_and_shapes(layer, shapes):
    assert [(k, tuple(v.shape)) for k, v in layer.state_dict().items()] == shapes


def test_linear_and_conv_outputs_analytic():
    rng = np.random.default_rng(9)
    linear = tg.nn.Linear(4, 3, dtype=tg.float64)
    data = rng.standard_normal((5, 4))
    expected = data @ linear.weight.detach().numpy().T + linear.bias.detach().numpy()
    np.testing.assert_allclose(linear(tg.tensor(data)).detach().numpy(), expected, rtol=1e-12)
    conv = tg.nn.Conv1d(2, 1, 2, bias=False, dtype=tg.float64)
    signal = rng.standard_normal((1, 2, 5))
    kernel = conv.weight.detach().numpy()[0]
    expected = [np.sum(signal[0, :, i:i + 2] * kernel) for i in range(4)]
    np.testing.assert_allclose(conv(tg.tensor(signal)).detach().numpy()[0, 0], expected,
                               rtol=1e-12)


def test_conv_same_padding_keeps_length_for_even_kernel():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch's note about even kernels with 'same'
        for mode in ("zeros", "reflect", "replicate", "circular"):
            conv = tg.nn.Conv1d(2, 3, 4, padding="same", padding_mode=mode)
            assert tuple(conv(tg.randn(1, 2, 9)).shape) == (1, 3, 9)
            assert conv._reversed_padding_repeated_twice == [1, 2]


def _expanded_running_statistics(lib):
    """batch_norm and native_batch_norm updating running stats that are one element expanded:
    the outputs and the two elements the updates wrote."""
    x = lib.arange(12.0, dtype=lib.float64).view(4, 3) ** 1.5
    mean, var = lib.zeros(1, dtype=lib.float64), lib.ones(1, dtype=lib.float64)
    out = lib.nn.functional.batch_norm(x, mean.expand(3), var.expand(3), training=True,
                                       momentum=0.3)
    native = lib.native_batch_norm(x, None, None, mean.expand(3), var.expand(3), True, 0.5, 1e-5)
    return np.concatenate([t.numpy().ravel() for t in (out, *native, mean, var)])


def test_batch_norm_updates_expanded_running_statistics_channel_after_channel(torch):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # on several threads torch's channel updates race
    try:
        expected = _expanded_running_statistics(torch)
    finally:
        torch.set_num_threads(threads)
    np.testing.assert_allclose(_expanded_running_statistics(tg), expected, rtol=1e-12)
