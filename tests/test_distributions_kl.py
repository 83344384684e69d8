"""kl_divergence and register_kl against torch: every registered pair of the families tapegrad
has (values and gradients), dispatch, and a Monte Carlo check without torch."""
import numpy as np
import pytest

import tapegrad
import tapegrad.distributions as D
from compare import error_of, torch_or_skip

RNG = np.random.default_rng(140)
SHAPE = (2, 3)


def positive(low=0.5, high=3.0):
    return RNG.uniform(low, high, SHAPE)


def real():
    return RNG.normal(size=SHAPE)


def unit():
    return RNG.uniform(0.1, 0.9, SHAPE)


# one parameter set per family: (class name, keyword arguments)
FAMILIES = {
    "Bernoulli": dict(probs=unit()),
    "Beta": dict(concentration1=positive(), concentration0=positive()),
    "Binomial": dict(total_count=np.full(SHAPE, 10.0), probs=unit()),
    "Categorical": dict(probs=RNG.uniform(0.1, 1.0, (2, 4))),
    "Cauchy": dict(loc=real(), scale=positive()),
    "Dirichlet": dict(concentration=positive() + 0.1),
    "Exponential": dict(rate=positive()),
    "Gamma": dict(concentration=positive(), rate=positive()),
    "Geometric": dict(probs=unit()),
    "Gumbel": dict(loc=real(), scale=positive()),
    "HalfNormal": dict(scale=positive()),
    "Laplace": dict(loc=real(), scale=positive()),
    "Normal": dict(loc=real(), scale=positive()),
    "OneHotCategorical": dict(probs=RNG.uniform(0.1, 1.0, (2, 4))),
    "Poisson": dict(rate=positive()),
    # inside [0, 1] so that the pairs with a bounded q are finite somewhere
    "Uniform": dict(low=RNG.uniform(0.05, 0.3, SHAPE), high=RNG.uniform(0.5, 0.95, SHAPE)),
    "Uniform_wide": dict(low=-positive(), high=positive()),
    "Chi2": dict(df=positive(1.0, 5.0)),
    "LogNormal": dict(loc=real(), scale=positive()),
    "Pareto": dict(scale=positive(), alpha=positive(0.5, 4.0)),
    "ContinuousBernoulli": dict(probs=unit()),
}


def build(lib, name, requires_grad=False, shift=0.0):
    kwargs = {}
    for key, value in FAMILIES[name].items():
        if key != "total_count":
            value = value * (1.0 + shift)
            if key == "probs" and name in ("Bernoulli", "Geometric", "Binomial",
                                           "ContinuousBernoulli"):
                value = np.clip(value, 0.05, 0.95)
        kwargs[key] = lib.tensor(value, dtype=lib.float64,
                                 requires_grad=requires_grad and key != "total_count")
    return getattr(lib.distributions, name.split("_")[0])(**kwargs), kwargs


def registered_pairs():
    """The (p, q) family names whose types torch registers (tapegrad's registry has all of
    torch's pairs among its families, checked below)."""
    pairs = []
    for p in FAMILIES:
        for q in FAMILIES:
            p_type, q_type = getattr(D, p.split("_")[0]), getattr(D, q.split("_")[0])
            if (p_type, q_type) in D.kl._KL_REGISTRY:
                pairs.append((p, q))
    return pairs


PAIRS = registered_pairs()


def test_registry_has_torchs_pairs_among_tapegrads_families():
    torch = torch_or_skip()
    ours = {(p.__name__, q.__name__) for p, q in D.kl._KL_REGISTRY}
    theirs = {(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
              if hasattr(D, p.__name__) and hasattr(D, q.__name__)}
    assert ours == theirs


@pytest.mark.parametrize("p_name,q_name", PAIRS, ids=["-".join(pair) for pair in PAIRS])
def test_kl_values_and_gradients_match_torch(p_name, q_name):
    torch = torch_or_skip()
    p, p_kwargs = build(tapegrad, p_name, requires_grad=True)
    q, q_kwargs = build(tapegrad, q_name, requires_grad=True, shift=0.3)
    tp, tp_kwargs = build(torch, p_name, requires_grad=True)
    tq, tq_kwargs = build(torch, q_name, requires_grad=True, shift=0.3)
    try:
        expected = torch.distributions.kl_divergence(tp, tq)
    except NotImplementedError as error:
        our_error = error_of(lambda: D.kl_divergence(p, q))
        assert our_error == (type(error).__name__, str(error))
        return
    result = D.kl_divergence(p, q)
    np.testing.assert_allclose(result.detach().numpy(), expected.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    assert result.requires_grad == expected.requires_grad
    if not expected.requires_grad:
        return
    finite = torch.isfinite(expected)
    weights = np.linspace(0.5, 1.5, expected.numel()).reshape(tuple(expected.shape))
    weights = weights * finite.numpy()
    leaves = [v for v in list(p_kwargs.values()) + list(q_kwargs.values()) if v.requires_grad]
    torch_leaves = [v for v in list(tp_kwargs.values()) + list(tq_kwargs.values())
                    if v.requires_grad]
    ours = tapegrad.autograd.grad(
        tapegrad.where(tapegrad.tensor(finite.numpy()), result, 0.0).mul(
            tapegrad.tensor(weights)).sum(), leaves, allow_unused=True)
    theirs = torch.autograd.grad(
        torch.where(finite, expected, 0.0).mul(torch.tensor(weights)).sum(), torch_leaves,
        allow_unused=True)
    for mine, reference in zip(ours, theirs):
        if reference is None:
            assert mine is None or not mine.numpy().any()
            continue
        # atol: digamma's derivative (polygamma) differs from torch's in the tenth digit
        np.testing.assert_allclose(mine.numpy(), reference.numpy(), rtol=1e-8, atol=1e-9)


def test_kl_of_unregistered_pair_raises_torchs_error():
    torch = torch_or_skip()
    ours = error_of(lambda: D.kl_divergence(D.Poisson(1.0), D.Normal(0.0, 1.0)))
    theirs = error_of(lambda: torch.distributions.kl_divergence(
        torch.distributions.Poisson(1.0), torch.distributions.Normal(0.0, 1.0)))
    assert ours == theirs


def test_kl_between_different_exponential_families_raises_torchs_error():
    torch = torch_or_skip()
    ours = error_of(lambda: D.kl_divergence(D.Poisson(tapegrad.tensor(3.0)),
                                            D.Exponential(tapegrad.tensor(1.5))))
    theirs = error_of(lambda: torch.distributions.kl_divergence(
        torch.distributions.Poisson(torch.tensor(3.0)),
        torch.distributions.Exponential(torch.tensor(1.5))))
    assert ours == theirs


def test_kl_of_independent_and_transformed_distributions_matches_torch():
    torch = torch_or_skip()
    loc, scale = real(), positive()

    def kls(lib):
        dist = lib.distributions
        p = dist.Independent(dist.Normal(lib.tensor(loc), lib.tensor(scale)), 1)
        q = dist.Independent(dist.Normal(lib.tensor(loc + 1), lib.tensor(scale * 2)), 1)
        lp = dist.LogNormal(lib.tensor(loc), lib.tensor(scale))
        lq = dist.LogNormal(lib.tensor(loc - 1), lib.tensor(scale / 2))
        return dist.kl_divergence(p, q).numpy(), dist.kl_divergence(lp, lq).numpy()

    for ours, theirs in zip(kls(tapegrad), kls(torch)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_register_kl_dispatches_to_the_most_specific_pair():
    class MyNormal(D.Normal):
        pass

    @D.register_kl(MyNormal, D.Normal)
    def _my_kl(p, q):
        return tapegrad.tensor(42.0)

    try:
        assert D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0)).item() == 42.0
        # a subclass of q's type falls back to the (MyNormal, Normal) rule
        assert D.kl_divergence(MyNormal(0.0, 1.0), MyNormal(0.0, 1.0)).item() == 42.0
        assert D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(1.0, 1.0)).item() == 0.5
    finally:
        del D.kl._KL_REGISTRY[MyNormal, D.Normal]
        D.kl._KL_MEMOIZE.clear()


def test_ambiguous_registration_warns():
    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    rules = [(A, D.Normal), (D.Normal, B)]
    for pair in rules:
        D.register_kl(*pair)(lambda p, q: tapegrad.tensor(0.0))
    try:
        with pytest.warns(RuntimeWarning, match=r"Ambiguous kl_divergence\(A, B\)"):
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        for pair in rules:
            del D.kl._KL_REGISTRY[pair]
        D.kl._KL_MEMOIZE.clear()


@pytest.mark.parametrize("p_name,q_name", [("Normal", "Normal"), ("Gamma", "Gamma"),
                                           ("Beta", "Beta"), ("Laplace", "Normal"),
                                           ("Exponential", "Gamma"), ("Dirichlet", "Dirichlet")])
def test_kl_is_the_expected_log_ratio(p_name, q_name):
    # Monte Carlo: E_p[log p(x) - log q(x)] with x drawn from p
    p, _ = build(tapegrad, p_name)
    q, _ = build(tapegrad, q_name, shift=0.3)
    tapegrad.manual_seed(0)
    x = p.sample((20000,))
    log_ratio = (p.log_prob(x) - q.log_prob(x)).numpy()
    standard_error = log_ratio.std(0) / np.sqrt(log_ratio.shape[0])
    exact = D.kl_divergence(p, q).numpy()
    assert np.all(np.abs(log_ratio.mean(0) - exact) < 5 * standard_error + 1e-9)
    assert np.all(exact >= 0)
