"""Forward-mode AD's API (dual levels, make_dual, unpack_dual) against torch.

Every op's tangent rule is checked in test_ops.py::test_forward_ad_float64.
"""
import importlib

import numpy as np
import pytest

import tapegrad
from compare import error_of, torch_or_skip
from tapegrad.autograd import forward_ad


def dual_scenario(lib):
    """What a user sees of dual tensors, as plain values."""
    fw = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
    x = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
    tangent = lib.tensor([1., 0.5], dtype=lib.float64)
    seen = [error_of(lambda: fw.make_dual(x, tangent))]
    with fw.dual_level() as level:
        dual = fw.make_dual(x, tangent)
        y = (dual * dual).sin()
        primal, y_tangent = fw.unpack_dual(y)
        seen += [level, dual._base is x, type(dual.grad_fn).__name__, primal.tolist(),
                 y_tangent.tolist(), fw.unpack_dual(x).tangent,
                 fw.unpack_dual(dual.exp().sum()).tangent.item(),
                 error_of(lambda: fw.make_dual(x, lib.ones(3, dtype=lib.float64))),
                 error_of(lambda: fw.make_dual(lib.ones(2, dtype=lib.int64), tangent)),
                 error_of(lambda: fw.dual_level().__enter__())]
        y.sum().backward()  # reverse mode is unaffected
    seen += [x.grad.tolist(), fw.unpack_dual(y).tangent]
    return seen


def test_dual_tensors_behave_astorch_or_skip():
    ours = dual_scenario(tapegrad)
    assert ours[1:4] == [0, True, "ViewBackward0"]
    # d/dt sin(x^2) along t = cos(x^2) * 2x * t
    np.testing.assert_allclose(ours[5], np.cos([1., 4.]) * 2 * np.array([1., 2.]) * [1., .5])
    assert ours == dual_scenario(torch_or_skip())


def test_exiting_the_level_drops_every_tangent():
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(tapegrad.ones(2), tapegrad.ones(2))
        result = dual * 3
    assert forward_ad.unpack_dual(dual).tangent is None
    assert forward_ad.unpack_dual(result).tangent is None
    assert "tangent" not in repr(result)


def test_dual_repr_shows_the_tangent_astorch_or_skip():
    def shown(lib):
        fw = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
        with fw.dual_level():
            return repr(fw.make_dual(lib.tensor([1., 2.]), lib.tensor([1., 0.5])))
    assert shown(tapegrad) == "tensor([1., 2.], tangent=tensor([1.0000, 0.5000]))"
    assert shown(tapegrad) == shown(torch_or_skip())


def test_in_place_ops_carry_the_tangent():
    with forward_ad.dual_level():
        x = forward_ad.make_dual(tapegrad.tensor([1., 2.], dtype=tapegrad.float64),
                                 tapegrad.tensor([1., 1.], dtype=tapegrad.float64))
        y = x * 1
        y.mul_(y)  # y = x^2: tangent 2x
        y.unsqueeze_(0)
        tangent = forward_ad.unpack_dual(y).tangent
    assert tangent.tolist() == [[2., 4.]]


def test_jvp_of_a_small_network_matches_finite_differences():
    tapegrad.manual_seed(0)
    w1, w2 = tapegrad.randn(4, 3, dtype=tapegrad.float64), tapegrad.randn(2, 4,
                                                                        dtype=tapegrad.float64)
    x, v = tapegrad.randn(3, dtype=tapegrad.float64), tapegrad.randn(3, dtype=tapegrad.float64)

    def network(t):
        return (w2 @ (w1 @ t).tanh()).softmax(0)
    with forward_ad.dual_level():
        tangent = forward_ad.unpack_dual(network(forward_ad.make_dual(x, v))).tangent
    eps = 1e-6
    numeric = (network(x + eps * v) - network(x - eps * v)) / (2 * eps)
    np.testing.assert_allclose(tangent.numpy(), numeric.numpy(), rtol=1e-6, atol=1e-9)


def shared_tangent_scenario(lib, dual_base, write):
    """Tangents torch reports after a write through one view: the base and its views share
    one tangent memory (Note [Shared tangents] in forward_ad.py)."""
    fw = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
    with fw.dual_level():
        primal = lib.arange(1.0, 7, dtype=lib.float64)
        base = (fw.make_dual(primal, lib.ones(6, dtype=lib.float64)) * 1 if dual_base
                else primal.clone()).view(2, 3)
        row, column, flat, window = base[1], base[:, 1], base.view(6), base.view(6)[1:4]
        value = fw.make_dual(lib.tensor([5.0, 6.0, 7.0], dtype=lib.float64),
                             lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64))
        write(row, column, value)
        late = base.T[2]  # made after the write
        tangents = [fw.unpack_dual(t).tangent for t in (base, row, column, flat, window, late)]
        return [None if t is None else t.tolist() for t in tangents]


@pytest.mark.parametrize("dual_base", [True, False], ids=["dual_base", "plain_base"])
@pytest.mark.parametrize("write", [
    lambda row, column, value: row.mul_(value),
    lambda row, column, value: column.copy_(value[:2]),
    lambda row, column, value: (row.mul_(2), column.add_(value[1:])),
    lambda row, column, value: row.__setitem__(slice(1, None), value[:2]),
    lambda row, column, value: row.t_().mul_(value),
], ids=["mul_", "copy_", "two_writes", "setitem", "t_"])
def test_write_through_a_view_shows_in_every_tangent_astorch_or_skip(dual_base, write):
    ours = shared_tangent_scenario(tapegrad, dual_base, write)
    assert ours == shared_tangent_scenario(torch_or_skip(), dual_base, write)


def test_tangent_of_a_base_changing_shape_in_place_astorch_or_skip():
    def scenario(lib):
        fw = importlib.import_module(lib.__name__ + ".autograd.forward_ad")
        with fw.dual_level():
            base = fw.make_dual(lib.arange(1.0, 7, dtype=lib.float64),
                                lib.arange(6.0, dtype=lib.float64)) * 1
            base = base.view(2, 3)
            row = base[0]
            base.t_()
            base[1].mul_(fw.make_dual(lib.tensor(2.0, dtype=lib.float64),
                                      lib.tensor(1.0, dtype=lib.float64)))
            return [fw.unpack_dual(t).tangent.tolist() for t in (base, row)]
    assert scenario(tapegrad) == scenario(torch_or_skip())
