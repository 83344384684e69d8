"""nn.utils fusion (conv/linear + batch norm), skip_init, Module.to_empty and the deprecated
clip_grad_norm, against torch."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import torch_or_skip

X = np.random.default_rng(0).standard_normal((2, 3, 6, 6))


def _fused(lib, kind):
    lib.manual_seed(0)
    if kind == "conv":
        layer, bn, x = lib.nn.Conv2d(3, 4, 3), lib.nn.BatchNorm2d(4), X
    elif kind == "conv_transpose":
        layer, bn, x = lib.nn.ConvTranspose2d(3, 4, 3, bias=False), lib.nn.BatchNorm2d(4), X
    else:
        layer, bn, x = lib.nn.Linear(6, 4), lib.nn.BatchNorm1d(4), X[0, 0]
    layer, bn = layer.double().eval(), bn.double().eval()
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor([0.1, 0.2, -0.3, 0.4]))
        bn.running_var.copy_(lib.tensor([1.5, 0.5, 2.0, 1.0]))
        bn.weight.copy_(lib.tensor([1.0, -0.5, 2.0, 0.3]))
    fuse = lib.nn.utils.fuse_linear_bn_eval if kind == "linear" else (
        lambda a, b: lib.nn.utils.fuse_conv_bn_eval(a, b, transpose=kind == "conv_transpose"))
    fused = fuse(layer, bn)
    inputs = lib.tensor(x)
    return [fused.weight.detach().numpy(), fused.bias.detach().numpy(),
            fused(inputs).detach().numpy(), bn(layer(inputs)).detach().numpy(),
            type(fused.weight).__name__, fused.weight.requires_grad]


@pytest.mark.parametrize("kind", ["conv", "conv_transpose", "linear"])
def test_fusion_matches_torch_and_the_unfused_layers(kind):
    torch = torch_or_skip()
    mine, theirs = _fused(tapegrad, kind), _fused(torch, kind)
    assert mine[4:] == theirs[4:]
    for got, want in zip(mine[:3], theirs[:3]):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(mine[2], mine[3], rtol=1e-12, atol=1e-12)


def test_fusion_refuses_training_mode():
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        tapegrad.nn.utils.fuse_conv_bn_eval(tapegrad.nn.Conv2d(1, 1, 1),
                                            tapegrad.nn.BatchNorm2d(1))


def test_skip_init_draws_nothing_and_keeps_shapes():
    torch = torch_or_skip()
    seen = []
    for lib in (tapegrad, torch):
        lib.manual_seed(3)
        layer = lib.nn.utils.skip_init(lib.nn.Linear, 3, 2, bias=False)
        seen.append((tuple(layer.weight.shape), layer.weight.requires_grad, layer.bias,
                     lib.rand(2).tolist()))
    assert seen[0] == seen[1]
    with pytest.raises(RuntimeError, match="Expected a Module"):
        tapegrad.nn.utils.skip_init(int)


def test_deprecated_clip_grad_norm_warns_as_torch():
    torch = torch_or_skip()
    results = []
    for lib in (tapegrad, torch):
        weight = lib.tensor([3.0, 4.0], requires_grad=True)
        weight.grad = lib.tensor([3.0, 4.0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            norm = lib.nn.utils.clip_grad_norm([weight], 1.0)
        results.append(([str(w.message) for w in caught], norm.item(), weight.grad.tolist()))
    assert results[0][0] == results[1][0]
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)
    np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6)
