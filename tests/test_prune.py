"""nn.utils.prune against torch: the masks (the random ones under a shared seed), weight_orig
and weight_mask in state_dict, the pruned weight and its gradient, repeated pruning through
PruningContainer, global pruning, removal and the errors; plus checks without torch."""
import importlib
import math
import re

import numpy as np
import pytest

import tapegrad
from compare import error_of
from test_parametrize import (IMAGE, _both, _conv, _grads, _linear, _loss, _state,
                              assert_same)

RNG = np.random.default_rng(21)
SCORES = RNG.standard_normal((4, 3, 2, 2))


def prune_of(lib):
    return importlib.import_module(f"{lib.__name__}.nn.utils.prune")


def _pruned_facts(lib, m, name="weight"):
    """What pruning leaves on a module, after one forward and backward."""
    out = _loss(lib, m, lib.tensor(IMAGE))
    return (getattr(m, name + "_mask"), getattr(m, name), out, _grads(m), _state(m),
            [key for key, _ in m.named_parameters()], [key for key, _ in m.named_buffers()],
            getattr(m, name).grad_fn.name(), prune_of(lib).is_pruned(m))


PRUNINGS = {
    "identity": lambda P, m: P.identity(m, "weight"),
    "random_unstructured fraction": lambda P, m: P.random_unstructured(m, "weight", 0.3),
    "random_unstructured count": lambda P, m: P.random_unstructured(m, "weight", 17),
    "l1_unstructured": lambda P, m: P.l1_unstructured(m, "weight", amount=0.5),
    "l1_unstructured bias": lambda P, m: P.l1_unstructured(m, "bias", amount=2),
    "random_structured dim 0": lambda P, m: P.random_structured(m, "weight", 0.5, dim=0),
    "random_structured dim -1": lambda P, m: P.random_structured(m, "weight", 1, dim=-1),
    "ln_structured L2 dim 0": lambda P, m: P.ln_structured(m, "weight", 0.5, n=2, dim=0),
    "ln_structured L1 dim 1": lambda P, m: P.ln_structured(m, "weight", 1, n=1, dim=1),
    "ln_structured inf dim -2": lambda P, m: P.ln_structured(m, "weight", 1, n=math.inf,
                                                             dim=-2),
    "ln_structured -inf dim 3": lambda P, m: P.ln_structured(m, "weight", 1, n=-math.inf,
                                                             dim=3),
    "nothing pruned": lambda P, m: P.ln_structured(m, "weight", 0, n=2, dim=0),
}


@pytest.mark.parametrize("case", sorted(PRUNINGS))
def test_pruning_matches_torch(case):
    def run(lib):
        lib.manual_seed(3)
        m = _conv(lib)
        PRUNINGS[case](prune_of(lib), m)
        return _pruned_facts(lib, m, "bias" if "bias" in case else "weight")
    mine, theirs = _both(run)
    assert_same(mine, theirs)


@pytest.mark.parametrize("n", ["fro", "nuc"])
def test_ln_structured_with_matrix_norms_matches_torch(n):
    def run(lib):
        m = lib.nn.Conv1d(2, 5, 3).double()
        with lib.no_grad():
            m.weight.copy_(lib.tensor(SCORES.reshape(-1)[:30].reshape(5, 2, 3)))
        prune_of(lib).ln_structured(m, "weight", 2, n=n, dim=0)
        return m.weight_mask, m.weight, _state(m)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_importance_scores_and_custom_masks_match_torch():
    def run(lib):
        P = prune_of(lib)
        m = _conv(lib)
        P.l1_unstructured(m, "weight", 20, importance_scores=lib.tensor(SCORES))
        P.ln_structured(m, "weight", 1, n=2, dim=0, importance_scores=lib.tensor(SCORES))
        P.custom_from_mask(m, "bias", mask=lib.tensor([1, 0, 1, 0]))
        return _pruned_facts(lib, m) + (m.bias_mask, m.bias)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_repeated_pruning_builds_a_pruning_container():
    def run(lib):
        lib.manual_seed(4)
        P = prune_of(lib)
        m = _conv(lib)
        P.random_unstructured(m, "weight", 0.25)
        P.random_structured(m, "weight", 1, dim=0)
        P.ln_structured(m, "weight", 1, n=1, dim=1)
        P.l1_unstructured(m, "weight", 5)
        P.custom_from_mask(m, "weight", lib.tensor(SCORES > 1.0))
        hooks = list(m._forward_pre_hooks.values())
        container = hooks[0]
        kinds = (len(hooks), type(container).__name__, len(container),
                 [type(method).__name__ for method in container],
                 type(container[-1]).__name__)
        return (kinds,) + _pruned_facts(lib, m)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


@pytest.mark.parametrize("method", ["L1Unstructured", "RandomUnstructured"])
def test_global_unstructured_matches_torch(method):
    def run(lib):
        lib.manual_seed(5)
        P = prune_of(lib)
        first, second = _conv(lib), _linear(lib)
        P.l1_unstructured(second, "weight", 3)  # an earlier mask is kept
        P.global_unstructured([(first, "weight"), (second, "weight"), (first, "bias")],
                              pruning_method=getattr(P, method), amount=20,
                              importance_scores={(first, "bias"): lib.zeros(4)})
        return (first.weight_mask, second.weight_mask, first.bias_mask, _state(first),
                _state(second), type(second._forward_pre_hooks[
                    next(iter(second._forward_pre_hooks))]).__name__)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_remove_makes_the_pruning_permanent():
    def run(lib):
        lib.manual_seed(6)
        P = prune_of(lib)
        m = _conv(lib)
        P.random_unstructured(m, "weight", 0.5)
        P.l1_unstructured(m, "bias", 1)
        weight_orig = m.weight_orig
        P.remove(m, "weight")
        middle = (P.is_pruned(m), _state(m), m.weight is weight_orig)
        P.remove(m, "bias")
        return (middle, P.is_pruned(m), type(m.weight).__name__, m.weight, _state(m),
                [key for key, _ in m.named_parameters()], len(m._forward_pre_hooks))
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_is_pruned_looks_into_submodules():
    def run(lib):
        P = prune_of(lib)
        model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Sequential(lib.nn.Linear(2, 2)))
        before = P.is_pruned(model)
        P.identity(model[1][0], "weight")
        return before, P.is_pruned(model), P.is_pruned(model[0])
    assert run(tapegrad) == (False, True, False)
    mine, theirs = _both(run)
    assert mine == theirs


def test_prune_method_applies_a_mask_without_registering():
    def run(lib):
        lib.manual_seed(8)
        P = prune_of(lib)
        t = lib.tensor(SCORES)
        return (P.L1Unstructured(0.5).prune(t),
                P.RandomStructured(2, dim=1).prune(t, default_mask=lib.ones_like(t)),
                P.LnStructured(1, n=2, dim=0).prune(t, importance_scores=-t),
                P.Identity().prune(t))
    mine, theirs = _both(run)
    assert_same(mine, theirs)


ERRORS = {
    "amount type": lambda lib, P, m: P.random_unstructured(m, "weight", "half"),
    "negative count": lambda lib, P, m: P.l1_unstructured(m, "weight", -1),
    "fraction above one": lambda lib, P, m: P.random_structured(m, "weight", 1.5, dim=0),
    "count above size": lambda lib, P, m: P.l1_unstructured(m, "weight", 49),
    "channels above size": lambda lib, P, m: P.ln_structured(m, "weight", 5, n=2, dim=0),
    "structured on a vector": lambda lib, P, m: P.random_structured(m, "bias", 1, dim=0),
    "dim too large": lambda lib, P, m: P.ln_structured(m, "weight", 1, n=2, dim=4),
    "remove unpruned": lambda lib, P, m: P.remove(m, "weight"),
    "importance shape": lambda lib, P, m: P.l1_unstructured(m, "weight", 1,
                                                            importance_scores=lib.ones(3)),
    "global structured": lambda lib, P, m: P.global_unstructured(
        [(m, "weight")], P.RandomStructured, amount=1),
    "global not iterable": lambda lib, P, m: P.global_unstructured(3, P.L1Unstructured,
                                                                   amount=1),
    "global scores type": lambda lib, P, m: P.global_unstructured(
        [(m, "weight")], P.L1Unstructured, importance_scores=[], amount=1),
    "container of another tensor": lambda lib, P, m: P.PruningContainer(
        P.identity(m, "weight")._forward_pre_hooks[next(iter(m._forward_pre_hooks))]
    ).add_pruning_method(_named(P.Identity(), "bias")),
    "container of a non-method": lambda lib, P, m: P.PruningContainer(
        _named(P.Identity(), "weight")).add_pruning_method(3),
    # torch.norm's 'fro' takes two dims: a 4-d weight has three besides dim
    "fro norm over three dims": lambda lib, P, m: P.ln_structured(m, "weight", 2, n="fro",
                                                                  dim=0),
    "custom mask shape": lambda lib, P, m: P.custom_from_mask(m, "weight", lib.ones(2)),
}


def _named(method, name):
    method._tensor_name = name
    return method


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_pruning_errors_match_torch(case):
    def run(lib):
        m = _conv(lib)
        error = error_of(lambda: ERRORS[case](lib, prune_of(lib), m))
        # a failed first pruning leaves the module as it was
        return error, [key for key, _ in m.named_parameters()], list(m.state_dict())
    mine, theirs = _both(run)
    # texts that show a pruning method's class or object: its module and address differ
    kind, text = mine[0]
    mine = ((kind, re.sub(" at 0x[0-9a-f]+", "", text.replace("tapegrad.", "torch."))),) + mine[1:]
    kind, text = theirs[0]
    theirs = ((kind, re.sub(" at 0x[0-9a-f]+", "", text)),) + theirs[1:]
    assert mine == theirs


def test_pruning_without_torch():
    P = prune_of(tapegrad)
    values = _conv(tapegrad).weight.detach().numpy()
    tapegrad.manual_seed(0)
    m = P.random_unstructured(_conv(tapegrad), "weight", 0.25)
    first = m.weight_mask.numpy().copy()
    assert int((first == 0).sum()) == 12  # round(0.25 * 48)
    P.l1_unstructured(m, "weight", 6)  # 6 more, the smallest of those still kept
    second = m.weight_mask.numpy()
    newly = (first == 1) & (second == 0)
    assert newly.sum() == 6 and ((first == 0) <= (second == 0)).all()
    assert np.abs(values)[newly].max() <= np.abs(values)[second == 1].min()
    P.ln_structured(m, "weight", 2, n=2, dim=0)
    assert (m.weight_mask.numpy().reshape(4, -1).sum(axis=1) > 0).sum() == 2
    np.testing.assert_array_equal(m.weight.detach().numpy(), m.weight_mask.numpy() * values)


def test_sgd_on_a_pruned_model_follows_torch():
    def run(lib):
        lib.manual_seed(11)
        P = prune_of(lib)
        model = lib.nn.Sequential(_conv(lib), lib.nn.ReLU(), lib.nn.Flatten(),
                                  lib.nn.Linear(36, 2).double())
        P.random_structured(model[0], "weight", 1, dim=0)
        P.global_unstructured([(model[0], "weight"), (model[3], "weight")],
                              P.L1Unstructured, amount=0.4)
        optimizer = lib.optim.SGD(model.parameters(), lr=0.05)
        losses = []
        for _ in range(3):
            optimizer.zero_grad()
            loss = (model(lib.tensor(IMAGE)) ** 2).sum()
            loss.backward()
            optimizer.step()
            losses.append(loss)
        return losses, _state(model), model[0].weight
    mine, theirs = _both(run)
    assert_same(mine, theirs)
