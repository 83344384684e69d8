"""Small public torch API that old and ordinary user code touches, compared with torch."""
import importlib
import warnings

import pytest

import tapegrad
from compare import same, same_error


def _variable_summary(lib):
    Variable = importlib.import_module(lib.__name__ + ".autograd").Variable
    leaf = lib.ones(2)
    made = Variable(leaf, requires_grad=True)
    produced = Variable(lib.ones(2, requires_grad=True) * 2)
    return (type(made) is lib.Tensor, made.requires_grad, made.tolist(), made.grad_fn,
            produced.requires_grad, produced.grad_fn, isinstance(leaf, Variable),
            isinstance(3, Variable), issubclass(lib.Tensor, Variable),
            type(Variable(lib.nn.Parameter(leaf))) is lib.Tensor,
            Variable().shape, Variable(leaf, 1).requires_grad, Variable.__name__)


def test_variable_returns_a_detached_tensor():
    same(_variable_summary)


def test_variable_shares_storage():
    leaf = tapegrad.zeros(3)
    tapegrad.autograd.Variable(leaf).add_(1)
    assert leaf.tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize("call", [
    lambda V, lib: V(3),
    lambda V, lib: V(lib.ones(2), "a"),
    lambda V, lib: V(lib.ones(2), requires_grad=True, volatile=True),
    lambda V, lib: V(lib.ones(2, dtype=lib.long), True),
])
def test_variable_errors(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda lib: call(importlib.import_module(lib.__name__ + ".autograd").Variable,
                                    lib))


def test_variable_volatile_warns():
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        tapegrad.autograd.Variable(tapegrad.ones(1), volatile=True)


def test_autograd_variable_function_raises():
    same_error(lambda lib: lib.autograd.variable(lib.ones(1)))
