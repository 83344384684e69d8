"""Lazy modules: parameters inferred at the first forward, as torch.nn's Lazy* layers."""
import copy
import re

import numpy as np
import pytest

import tapegrad
import tapegrad.nn as nn
from compare import torch_or_skip

CASES = [("LazyLinear", (3,), (2, 5)), ("LazyConv1d", (4, 3), (2, 3, 7)),
         ("LazyConv2d", (4, 3), (2, 3, 6, 6)), ("LazyConv3d", (2, 2), (1, 3, 4, 4, 4)),
         ("LazyConvTranspose2d", (4, 3), (2, 3, 5, 5)), ("LazyBatchNorm1d", (), (4, 3)),
         ("LazyBatchNorm2d", (), (2, 3, 4, 4)), ("LazyInstanceNorm1d", (), (2, 3, 5))]


@pytest.mark.parametrize("name, args, shape", CASES)
def test_lazy_module_matches_torch(name, args, shape):
    torch = torch_or_skip()
    torch.manual_seed(0)
    theirs = getattr(torch.nn, name)(*args)
    tapegrad.manual_seed(0)
    mine = getattr(nn, name)(*args)
    assert repr(mine) == repr(theirs)
    assert list(mine.state_dict()) == list(theirs.state_dict())
    data = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    expected, actual = theirs(torch.tensor(data)), mine(tapegrad.tensor(data))
    np.testing.assert_allclose(actual.detach().numpy(), expected.detach().numpy(), atol=1e-6)
    assert type(mine).__name__ == type(theirs).__name__  # it became the eager class
    assert repr(mine) == repr(theirs)
    for (key, value), their_value in zip(mine.state_dict().items(),
                                         theirs.state_dict().values()):
        # the same seed initialises the inferred parameters alike
        np.testing.assert_allclose(value.numpy(), their_value.numpy(), atol=1e-6, err_msg=key)


def test_uninitialized_parameters_before_the_first_forward():
    layer = nn.LazyLinear(4)
    assert isinstance(layer.weight, nn.UninitializedParameter)
    assert layer.has_uninitialized_params() and repr(layer.weight) == "<UninitializedParameter>"
    layer.double()  # a placeholder cast stays a placeholder, of the new dtype
    assert isinstance(layer.weight, nn.UninitializedParameter)
    output = layer(tapegrad.ones(2, 6, dtype=tapegrad.float64))
    assert type(layer) is nn.Linear and layer.in_features == 6
    assert layer.weight.shape == (4, 6) and layer.weight.dtype == tapegrad.float64
    assert type(layer.weight) is nn.Parameter and output.shape == (2, 4)


def test_loading_a_state_dict_materialises_the_parameters():
    trained = nn.Linear(5, 3)
    lazy = nn.LazyLinear(3)
    lazy.load_state_dict(trained.state_dict())
    assert not lazy.has_uninitialized_params()
    np.testing.assert_array_equal(lazy.weight.detach().numpy(),
                                  trained.weight.detach().numpy())


def test_lazy_conv_checks_its_input_like_torch():
    torch = torch_or_skip()
    for lib in (tapegrad, torch):
        with pytest.raises(RuntimeError) as info:
            lib.nn.LazyConv2d(4, 3)(lib.zeros(3, 5))
        with pytest.raises(ValueError, match="in_channels must be divisible by groups"):
            lib.nn.LazyConv2d(4, 3, groups=2)(lib.zeros(1, 3, 5, 5))
        if lib is tapegrad:
            mine = str(info.value)
    assert mine == str(info.value)


def test_a_placeholder_refuses_computation_as_torchs_does():
    torch = torch_or_skip()
    mine, theirs = nn.LazyLinear(3).weight, torch.nn.LazyLinear(3).weight
    for compute in (lambda w: w.sum(), lambda w: w * 2, lambda w: w.exp(), lambda w: w.numel(),
                    lambda w: w.clone(), lambda w: w.detach()):
        with pytest.raises(ValueError) as expected:
            compute(theirs)
        with pytest.raises(ValueError, match=f"^{re.escape(str(expected.value))}$"):
            compute(mine)
    with pytest.raises(RuntimeError) as expected:
        theirs.shape
    with pytest.raises(RuntimeError, match=f"^{re.escape(str(expected.value))}$"):
        mine.shape
    assert (mine.size(), mine.dtype, mine.requires_grad, mine.data.tolist()) == (
        tuple(theirs.size()), tapegrad.float32, True, [])
    # a placeholder parameter is copied as a new placeholder; a placeholder buffer refused
    copied = copy.deepcopy(nn.LazyLinear(3))
    assert type(copied.weight).__name__ == "UninitializedParameter" and copied.weight.requires_grad
    for module in (nn.LazyBatchNorm1d(), torch.nn.LazyBatchNorm1d()):
        with pytest.raises(ValueError, match="^Attempted to use an uninitialized parameter"):
            copy.deepcopy(module)
    buffer = nn.LazyBatchNorm1d().running_mean
    with pytest.raises(ValueError, match=r"torch\.nn\.parameter\.UninitializedBuffer"):
        buffer + 1
