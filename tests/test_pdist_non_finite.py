"""pdist's gradient at non-finite differences, as torch's kernel: at p = 1 a NaN difference's
sign stays NaN, and at p = inf a coordinate whose magnitude and norm are both infinite (or NaN)
gets NaN."""
import math

import numpy as np
import pytest

import tapegrad

from compare import torch_or_skip

VALUE = np.array([[0.5, -0.9, math.inf], [0.0, 1.25, 1.65], [1.75, 1.25, math.inf]])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p", [1.0, 2.0, math.inf])
def test_pdist_gradient_at_infinities_matches_torch(p, dtype):
    torch = torch_or_skip()
    grads = []
    for lib in (tapegrad, torch):
        x = lib.tensor(VALUE.astype(dtype), requires_grad=True)
        result = lib.nn.functional.pdist(x, p)
        grads.append(lib.autograd.grad(result, x, lib.ones_like(result))[0].numpy())
    np.testing.assert_array_equal(*grads)
