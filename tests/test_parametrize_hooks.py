"""The hook forms nn.utils.weight_norm and nn.utils.spectral_norm (and their removal) against
torch: parameters and buffers, values and gradients, state_dict keys, values and metadata,
the vectors drawn under a shared seed, the deprecation warning and the errors."""
import warnings

import numpy as np
import pytest

import tapegrad
from compare import error_of
from test_parametrize import (IMAGE, _both, _conv, _grads, _linear, _loss, _state,
                              assert_same)


def _weight_norm(lib, module, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return lib.nn.utils.weight_norm(module, **options)


# ---- weight_norm -----------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [0, 1, -1, None])
def test_weight_norm_hook_matches_torch(dim):
    def run(lib):
        m = _weight_norm(lib, _conv(lib), dim=dim)
        facts = (repr(m), [name for name, _ in m.named_parameters()], type(m.weight).__name__,
                 len(m._forward_pre_hooks))
        first = _loss(lib, m, lib.tensor(IMAGE))
        grads = _grads(m)
        with lib.no_grad():
            m.weight_g.mul_(2.0)
        second = m(lib.tensor(IMAGE))  # the pre-hook recomputes the weight
        return facts, first, grads, second, _state(m)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_weight_norm_hook_warns_as_torch():
    def run(lib):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.utils.weight_norm(_linear(lib))
        return [(w.category, str(w.message)) for w in caught]
    mine, theirs = _both(run)
    assert mine == theirs and mine[0][0] is FutureWarning


def test_remove_weight_norm_matches_torch():
    def run(lib):
        m = _weight_norm(lib, _linear(lib), name="bias")
        with lib.no_grad():
            m.bias_g.mul_(-1.0)
        lib.nn.utils.remove_weight_norm(m, name="bias")
        return (type(m.bias).__name__, m.bias, _state(m), len(m._forward_pre_hooks),
                [name for name, _ in m.named_parameters()])
    mine, theirs = _both(run)
    assert_same(mine, theirs)


WEIGHT_NORM_ERRORS = {
    "twice": lambda lib: _weight_norm(lib, _weight_norm(lib, _linear(lib))),
    "remove absent": lambda lib: lib.nn.utils.remove_weight_norm(_linear(lib)),
    "uninitialized": lambda lib: _weight_norm(lib, lib.nn.LazyLinear(3)),
}


@pytest.mark.parametrize("case", sorted(WEIGHT_NORM_ERRORS))
def test_weight_norm_hook_errors_match_torch(case):
    mine, theirs = _both(lambda lib: error_of(lambda: WEIGHT_NORM_ERRORS[case](lib)))
    assert mine == theirs


def test_weight_norm_hook_without_torch():
    m = _weight_norm(tapegrad, _linear(tapegrad))
    assert tuple(m.weight_g.shape) == (4, 1)
    np.testing.assert_allclose(m.weight.detach().numpy(), _linear(tapegrad).weight.detach()
                               .numpy(), rtol=1e-12)


# ---- spectral_norm ---------------------------------------------------------------------------

@pytest.mark.parametrize("options", [{}, {"n_power_iterations": 2}, {"dim": 1},
                                     {"eps": 1e-3, "name": "weight"}])
def test_spectral_norm_hook_matches_torch(options):
    def run(lib):
        lib.manual_seed(11)
        m = lib.nn.utils.spectral_norm(_conv(lib), **options)
        start = (m.weight_u.clone(), m.weight_v.clone(), m.weight)  # weight: the original
        state = m.state_dict()
        facts = (repr(m), list(state), state._metadata, type(m.weight).__name__)
        out = _loss(lib, m, lib.tensor(IMAGE))
        trained = (m.weight_u.clone(), m.weight_v.clone(), _grads(m), m.weight)
        m.eval()
        frozen = m(lib.tensor(IMAGE))
        return facts, start, out, trained, frozen, (m.weight_u, m.weight_v), _state(m)
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_spectral_norm_hook_defaults_to_dim_1_for_transposed_convs():
    def run(lib):
        lib.manual_seed(12)
        m = lib.nn.utils.spectral_norm(lib.nn.ConvTranspose1d(2, 3, 2).double())
        return m._forward_pre_hooks[next(iter(m._forward_pre_hooks))].dim, m.weight_u, m.weight_v
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_remove_spectral_norm_matches_torch():
    def run(lib):
        lib.manual_seed(13)
        m = lib.nn.utils.spectral_norm(_linear(lib))
        m(lib.ones(1, 4, dtype=lib.float64))
        lib.nn.utils.remove_spectral_norm(m)
        state = m.state_dict()
        # torch leaves the load pre-hook registered: loading asks for weight_orig and weight_u
        return (type(m.weight).__name__, m.weight, list(state), state._metadata,
                len(m._forward_pre_hooks), len(m._state_dict_hooks),
                len(m._load_state_dict_pre_hooks), error_of(lambda: m.load_state_dict(state)))
    mine, theirs = _both(run)
    assert_same(mine, theirs)


def test_spectral_norm_hook_round_trips_and_reads_version_0_state_dicts():
    def run(lib):
        lib.manual_seed(14)
        source = lib.nn.utils.spectral_norm(_linear(lib))
        source(lib.ones(1, 4, dtype=lib.float64))
        current = source.state_dict()
        target = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 4).double())
        loaded = repr(target.load_state_dict(current))
        same_u = target.weight_u.clone()
        # version 0 kept the weight itself and no weight_v: v is solved from u and sigma
        old = {key: value for key, value in current.items() if key != "weight_v"}
        old["weight"] = source.weight.detach()
        older = lib.nn.utils.spectral_norm(lib.nn.Linear(4, 4).double())
        solved = repr(older.load_state_dict(old))
        return loaded, same_u, solved, _state(older)
    mine, theirs = _both(run)
    assert_same(mine, theirs, rtol=1e-8, atol=1e-10)


SPECTRAL_ERRORS = {
    "twice": lambda lib: lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(_linear(lib))),
    "remove absent": lambda lib: lib.nn.utils.remove_spectral_norm(_linear(lib)),
    "no power iterations": lambda lib: lib.nn.utils.spectral_norm(_linear(lib),
                                                                  n_power_iterations=0),
    "None parameter": lambda lib: lib.nn.utils.spectral_norm(_linear(lib, bias=False),
                                                             name="bias"),
    "uninitialized": lambda lib: lib.nn.utils.spectral_norm(lib.nn.LazyLinear(3)),
}


@pytest.mark.parametrize("case", sorted(SPECTRAL_ERRORS))
def test_spectral_norm_hook_errors_match_torch(case):
    mine, theirs = _both(lambda lib: error_of(lambda: SPECTRAL_ERRORS[case](lib)))
    assert mine == theirs


def test_spectral_norm_hook_without_torch():
    tapegrad.manual_seed(0)
    m = tapegrad.nn.utils.spectral_norm(_linear(tapegrad), n_power_iterations=60)
    m(tapegrad.ones(1, 4, dtype=tapegrad.float64))
    assert abs(np.linalg.norm(m.weight.detach().numpy(), 2) - 1.0) < 1e-8
    assert list(m.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
