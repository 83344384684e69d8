"""tapegrad.distributions against torch.distributions: values, gradients, samples under a
shared seed, shapes, printing and validation errors; moments and normalisation without
torch."""
import math

import numpy as np
import pytest

import tapegrad
import tapegrad.distributions as D
from compare import error_of, torch_or_skip

RNG = np.random.default_rng(14)
BATCH = (2, 3)


def positive(*shape, low=0.3, high=3.0):
    return RNG.uniform(low, high, shape)


def real(*shape):
    return RNG.normal(size=shape)


def unit(*shape):
    return RNG.uniform(0.1, 0.9, shape)


# name: keyword arguments (float64 arrays), shared by both libraries
CONTINUOUS = {
    "Normal": dict(loc=real(*BATCH), scale=positive(*BATCH)),
    "Uniform": dict(low=-positive(*BATCH), high=positive(*BATCH)),
    "Exponential": dict(rate=positive(*BATCH)),
    "Laplace": dict(loc=real(*BATCH), scale=positive(*BATCH)),
    "Cauchy": dict(loc=real(*BATCH), scale=positive(*BATCH)),
    "Gamma": dict(concentration=positive(*BATCH, low=0.2), rate=positive(*BATCH)),
    "Beta": dict(concentration1=positive(*BATCH), concentration0=positive(*BATCH)),
    "Chi2": dict(df=positive(*BATCH, high=6.0)),
    "Dirichlet": dict(concentration=positive(2, 4)),
    "StudentT": dict(df=positive(*BATCH, low=0.5, high=6.0), loc=real(*BATCH),
                     scale=positive(*BATCH)),
    "HalfNormal": dict(scale=positive(*BATCH)),
    "LogNormal": dict(loc=real(*BATCH), scale=positive(*BATCH, high=1.0)),
    "Gumbel": dict(loc=real(*BATCH), scale=positive(*BATCH)),
    "Pareto": dict(scale=positive(*BATCH), alpha=positive(*BATCH, low=0.5, high=4.0)),
    "HalfCauchy": dict(scale=positive(*BATCH)),
    "Weibull": dict(scale=positive(*BATCH), concentration=positive(*BATCH, low=0.6)),
    "InverseGamma": dict(concentration=positive(*BATCH, low=0.5, high=4.0),
                         rate=positive(*BATCH)),
    "Kumaraswamy": dict(concentration1=positive(*BATCH, low=0.5),
                        concentration0=positive(*BATCH, low=0.5)),
    "FisherSnedecor": dict(df1=positive(*BATCH, low=1.0, high=8.0),
                           df2=positive(*BATCH, low=1.0, high=9.0)),
    "LogisticNormal": dict(loc=real(*BATCH), scale=positive(*BATCH, high=1.5)),
    # one probability inside torch's Taylor window around 1/2
    "ContinuousBernoulli": dict(probs=np.array([[0.2, 0.4995, 0.9], [0.05, 0.6, 0.3]])),
    "ContinuousBernoulli_logits": dict(logits=real(*BATCH)),
    "VonMises": dict(loc=real(*BATCH), concentration=np.array([[0.5, 2.0, 5.0],
                                                                [1e-6, 10.0, 3.7]])),
}
DISCRETE = {
    "Bernoulli": dict(probs=unit(*BATCH)),
    "Bernoulli_logits": dict(logits=real(*BATCH)),
    "Categorical": dict(probs=positive(2, 5)),
    "Categorical_logits": dict(logits=real(2, 5)),
    "OneHotCategorical": dict(probs=positive(2, 5)),
    "Poisson": dict(rate=positive(2, 3, high=30.0)),
    "Geometric": dict(probs=unit(*BATCH)),
    "Geometric_logits": dict(logits=real(*BATCH)),
    "Binomial": dict(total_count=np.array([[3.0], [40.0]]), probs=unit(*BATCH)),
    "Binomial_logits": dict(total_count=np.array(25.0), logits=real(*BATCH)),
    "Multinomial": dict(total_count=7, probs=positive(2, 4)),
    "NegativeBinomial": dict(total_count=positive(*BATCH, high=8.0), probs=unit(*BATCH)),
    "NegativeBinomial_logits": dict(total_count=np.array(4.0), logits=real(*BATCH)),
}
ALL = {**CONTINUOUS, **DISCRETE}
# families whose rsample torch reparameterises
REPARAMETERISED = [name for name in CONTINUOUS if name not in ("Pareto", "Weibull", "VonMises")]
# gamma-based draws: torch's gradient is a rational approximation of the implicit derivative
# that tapegrad computes from the regularised incomplete gamma and beta functions
APPROXIMATE_GRADIENT = {"Gamma", "Beta", "Chi2", "Dirichlet", "StudentT", "InverseGamma",
                        "FisherSnedecor"}


def make(lib, name, dtype=None, requires_grad=False):
    """The distribution `name` of lib with the shared parameters (as leaves)."""
    kwargs = {}
    for key, value in ALL[name].items():
        if isinstance(value, np.ndarray):
            value = lib.tensor(value, dtype=dtype or lib.float64,
                               requires_grad=requires_grad and key != "total_count")
        kwargs[key] = value
    return getattr(lib.distributions, name.split("_")[0])(**kwargs), kwargs


def both(name, **options):
    torch = torch_or_skip()
    return make(tapegrad, name, **options), make(torch, name, **options), torch


# these draws go through log1p (Laplace, ContinuousBernoulli), pow with a tensor exponent
# (Weibull, Kumaraswamy, InverseGamma), sigmoid (LogisticNormal) or exp (LogNormal, whose
# exp AVX-512 torch rounds in its own way), whose last bit tapegrad's
# NumPy and torch's vectorised kernels may round differently
LAST_BIT = {"Laplace", "Weibull", "Kumaraswamy", "InverseGamma", "LogisticNormal",
            "ContinuousBernoulli", "ContinuousBernoulli_logits", "LogNormal"}


def assert_same_draws(ours, theirs, name):
    if name in LAST_BIT:
        np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=4e-16, atol=4e-16)
    else:
        np.testing.assert_array_equal(to_numpy(ours), to_numpy(theirs))


def to_numpy(value):
    return value.detach().numpy() if hasattr(value, "detach") else np.asarray(value)


def assert_close(ours, theirs, rtol=1e-7, atol=1e-10):
    if ours is None or theirs is None:  # an unused input's gradient
        assert ours is None and theirs is None
        return
    np.testing.assert_allclose(to_numpy(ours), to_numpy(theirs), rtol=rtol, atol=atol,
                               equal_nan=True)


def values_of(torch, name, reference):
    """Points to score: torch's own draws (seeded), as float64 tensors of both libraries."""
    torch.manual_seed(3)
    drawn = reference.sample((4,)).double().numpy()
    return tapegrad.tensor(drawn), torch.tensor(drawn)


# ---- values --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_moments_match_torch(name):
    (ours, _), (theirs, _), _ = both(name)
    for attribute in ("mean", "variance", "stddev", "mode"):
        try:
            expected = getattr(theirs, attribute)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                getattr(ours, attribute)
            continue
        assert_close(getattr(ours, attribute), expected)


@pytest.mark.parametrize("name", sorted(ALL))
def test_log_prob_and_entropy_match_torch(name):
    (ours, _), (theirs, _), torch = both(name)
    value, torch_value = values_of(torch, name, theirs)
    result = ours.log_prob(value)
    assert result.shape == theirs.log_prob(torch_value).shape
    assert_close(result, theirs.log_prob(torch_value))
    try:
        expected = theirs.entropy()
    except NotImplementedError as error:
        assert error_of(ours.entropy) == ("NotImplementedError", str(error))
        return
    assert_close(ours.entropy(), expected)
    assert_close(ours.perplexity(), theirs.perplexity())


@pytest.mark.parametrize("name", sorted(ALL))
def test_cdf_and_icdf_match_torch(name):
    (ours, _), (theirs, _), torch = both(name)
    value, torch_value = values_of(torch, name, theirs)
    try:
        expected = theirs.cdf(torch_value)
    except NotImplementedError:
        with pytest.raises(NotImplementedError):
            ours.cdf(value)
        return
    assert_close(ours.cdf(value), expected)
    probabilities = np.linspace(0.05, 0.95, 4)[:, None, None] * np.ones(theirs.batch_shape)
    try:
        expected = theirs.icdf(torch.tensor(probabilities))
    except NotImplementedError:
        return
    assert_close(ours.icdf(tapegrad.tensor(probabilities)), expected)


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Bernoulli", "Categorical",
                                  "Dirichlet", "StudentT"])
def test_float32_values_match_torch(name):
    torch = torch_or_skip()
    (ours, _), (theirs, _) = make(tapegrad, name, tapegrad.float32), make(torch, name,
                                                                          torch.float32)
    torch.manual_seed(5)
    drawn = theirs.sample((3,)).numpy()
    result = ours.log_prob(tapegrad.tensor(drawn))
    assert result.dtype == tapegrad.float32
    assert_close(result, theirs.log_prob(torch.tensor(drawn)), rtol=2e-6, atol=1e-6)
    assert_close(ours.entropy(), theirs.entropy(), rtol=2e-6, atol=1e-6)


# ---- gradients -----------------------------------------------------------------------------

def grads_of(lib, distribution, kwargs, output):
    leaves = [v for v in kwargs.values() if hasattr(v, "requires_grad") and v.requires_grad]
    weights = lib.tensor(np.linspace(-1.0, 2.0, output.numel()).reshape(tuple(output.shape)),
                         dtype=output.dtype)
    return lib.autograd.grad((output * weights).sum(), leaves, allow_unused=True)


@pytest.mark.parametrize("name", sorted(ALL))
def test_log_prob_gradients_match_torch(name):
    torch = torch_or_skip()
    ours, our_kwargs = make(tapegrad, name, requires_grad=True)
    theirs, their_kwargs = make(torch, name, requires_grad=True)
    value, torch_value = values_of(torch, name, theirs)
    our_output, their_output = ours.log_prob(value), theirs.log_prob(torch_value)
    assert type(our_output.grad_fn).__name__ == type(their_output.grad_fn).__name__
    for mine, reference in zip(grads_of(tapegrad, ours, our_kwargs, our_output),
                               grads_of(torch, theirs, their_kwargs, their_output)):
        assert_close(mine, reference, rtol=1e-6)


@pytest.mark.parametrize("name", sorted(ALL))
def test_entropy_gradients_match_torch(name):
    torch = torch_or_skip()
    ours, our_kwargs = make(tapegrad, name, requires_grad=True)
    theirs, their_kwargs = make(torch, name, requires_grad=True)
    try:
        their_output = theirs.entropy()
    except NotImplementedError:
        return
    our_output = ours.entropy()
    for mine, reference in zip(grads_of(tapegrad, ours, our_kwargs, our_output),
                               grads_of(torch, theirs, their_kwargs, their_output)):
        assert_close(mine, reference, rtol=1e-6)


@pytest.mark.parametrize("name", REPARAMETERISED)
def test_rsample_values_and_gradients_match_torch(name):
    torch = torch_or_skip()
    ours, our_kwargs = make(tapegrad, name, requires_grad=True)
    theirs, their_kwargs = make(torch, name, requires_grad=True)
    tapegrad.manual_seed(11)
    torch.manual_seed(11)
    our_sample, their_sample = ours.rsample((3,)), theirs.rsample((3,))
    assert_same_draws(our_sample, their_sample, name)
    assert type(our_sample.grad_fn).__name__ == type(their_sample.grad_fn).__name__
    rtol = 1e-2 if name in APPROXIMATE_GRADIENT else 1e-7
    for mine, reference in zip(grads_of(tapegrad, ours, our_kwargs, our_sample),
                               grads_of(torch, theirs, their_kwargs, their_sample)):
        assert_close(mine, reference, rtol=rtol, atol=1e-9)


@pytest.mark.parametrize("name", ["Gamma", "Dirichlet"])
def test_gamma_draw_nodes_are_named_as_torchs(name):
    torch = torch_or_skip()

    def node_names(lib):
        distribution, _ = make(lib, name, requires_grad=True)
        node = distribution.rsample().grad_fn
        return [type(node).__name__] + [type(n).__name__ for n, _ in node.next_functions
                                        if n is not None]

    assert node_names(tapegrad) == node_names(torch)


def test_gamma_rsample_gradient_is_the_implicit_derivative():
    # d sample / d concentration at a fixed quantile u: F(x(a), a) = u
    special = pytest.importorskip("scipy.special")
    concentration = tapegrad.tensor([0.4, 1.0, 3.5, 20.0], dtype=tapegrad.float64,
                                    requires_grad=True)
    tapegrad.manual_seed(2)
    x = D.Gamma(concentration, 1.0).rsample()
    (grad,) = tapegrad.autograd.grad(x.sum(), concentration)
    a, x = concentration.detach().numpy(), x.detach().numpy()
    u = special.gammainc(a, x)
    h = 1e-6
    expected = (special.gammaincinv(a + h, u) - special.gammaincinv(a - h, u)) / (2 * h)
    np.testing.assert_allclose(grad.numpy(), expected, rtol=1e-5)


# ---- samples under a shared seed ------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
def test_samples_match_torch_under_a_shared_seed(name, sample_shape):
    (ours, _), (theirs, _), torch = both(name)
    tapegrad.manual_seed(7)
    torch.manual_seed(7)
    drawn, expected = ours.sample(sample_shape), theirs.sample(sample_shape)
    assert drawn.shape == expected.shape
    assert drawn.dtype == tapegrad.float64 or str(drawn.dtype) == str(expected.dtype)
    assert_same_draws(drawn, expected, name)
    # the generators are left in the same state
    np.testing.assert_array_equal(tapegrad.rand(3).numpy(), torch.rand(3).numpy())


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Dirichlet", "Bernoulli",
                                  "Categorical", "Binomial", "StudentT"])
def test_float32_samples_match_torch(name):
    torch = torch_or_skip()
    ours, _ = make(tapegrad, name, tapegrad.float32)
    theirs, _ = make(torch, name, torch.float32)
    tapegrad.manual_seed(9)
    torch.manual_seed(9)
    drawn, expected = ours.sample((4,)), theirs.sample((4,))
    assert str(drawn.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(drawn.numpy(), expected.numpy())


# ---- shapes, expand, repr --------------------------------------------------------------------

@pytest.mark.parametrize("name", sorted(ALL))
def test_shapes_and_expand_match_torch(name):
    (ours, _), (theirs, _), torch = both(name)
    assert ours.batch_shape == theirs.batch_shape
    assert ours.event_shape == theirs.event_shape
    assert isinstance(ours.batch_shape, tapegrad.Size)
    bigger = (4,) + tuple(theirs.batch_shape)
    our_expanded, their_expanded = ours.expand(bigger), theirs.expand(bigger)
    assert type(our_expanded) is type(ours)
    assert our_expanded.batch_shape == their_expanded.batch_shape
    assert our_expanded.event_shape == their_expanded.event_shape
    if name != "LogisticNormal":  # it has no mean
        assert_close(our_expanded.mean, their_expanded.mean)
    tapegrad.manual_seed(1)
    torch.manual_seed(1)
    assert_same_draws(our_expanded.sample((2,)), their_expanded.sample((2,)), name)


@pytest.mark.parametrize("name", sorted(ALL))
def test_repr_matches_torch(name):
    (ours, _), (theirs, _), _ = both(name)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("build", [
    lambda lib: lib.distributions.Normal(0.0, 1.0),
    lambda lib: lib.distributions.Normal(lib.tensor([0.5]), 2.0),
    lambda lib: lib.distributions.Bernoulli(0.25),
    lambda lib: lib.distributions.Gamma(lib.tensor(2.0), lib.tensor(3.0)),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(lib.zeros(3), 1.0), 1),
    lambda lib: lib.distributions.Uniform(0.0, 2.0),
    lambda lib: lib.distributions.Beta(0.5, 0.5),
])
def test_repr_of_scalar_parameters_matches_torch(build):
    torch = torch_or_skip()
    assert repr(build(tapegrad)) == repr(build(torch))


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial"])
@pytest.mark.parametrize("expand", [True, False])
def test_enumerate_support_matches_torch(name, expand):
    (ours, _), (theirs, _), _ = both(name)
    if name == "Binomial":
        (ours, _), (theirs, _), _ = both("Binomial_logits")
    assert ours.has_enumerate_support
    result, expected = ours.enumerate_support(expand), theirs.enumerate_support(expand)
    assert result.shape == expected.shape and str(result.dtype) == str(expected.dtype)
    np.testing.assert_array_equal(to_numpy(result), to_numpy(expected))


def test_probs_and_logits_are_derived_lazily():
    torch = torch_or_skip()
    logits = np.array([0.3, -1.2, 2.0])
    ours = D.Categorical(logits=tapegrad.tensor(logits))
    theirs = torch.distributions.Categorical(logits=torch.tensor(logits))
    assert "probs" not in ours.__dict__
    assert_close(ours.probs, theirs.probs)
    assert "probs" in ours.__dict__
    assert_close(ours.logits, theirs.logits)
    assert ours.probs.grad_fn is None or type(ours.probs.grad_fn).__name__ == "SoftmaxBackward0"


def test_attributes_of_the_classes_match_torch():
    torch = torch_or_skip()
    for name in D.__all__:
        theirs = getattr(torch.distributions, name)
        ours = getattr(D, name)
        if not isinstance(theirs, type) or not issubclass(theirs, torch.distributions.Distribution):
            continue
        if not isinstance(theirs.support, torch.distributions.constraints.Constraint):
            continue  # a property of the base classes
        assert ours.has_rsample == theirs.has_rsample or isinstance(ours.has_rsample, property)
        assert ours.has_enumerate_support == theirs.has_enumerate_support or isinstance(
            theirs.has_enumerate_support, property)
        assert repr(ours.support) == repr(theirs.support), name
        if isinstance(theirs.arg_constraints, dict):
            assert ({k: repr(v) for k, v in ours.arg_constraints.items()}
                    == {k: repr(v) for k, v in theirs.arg_constraints.items()}), name


# ---- validation ------------------------------------------------------------------------------

def both_errors(scenario):
    torch = torch_or_skip()
    ours, theirs = error_of(lambda: scenario(tapegrad)), error_of(lambda: scenario(torch))
    assert ours == theirs


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.distributions.Normal(0.0, -1.0),
    lambda lib: lib.distributions.Normal(lib.zeros(2), lib.tensor([1.0, 0.0])),
    lambda lib: lib.distributions.Bernoulli(lib.tensor([0.2, 1.5])),
    lambda lib: lib.distributions.Bernoulli(probs=0.3, logits=0.2),
    lambda lib: lib.distributions.Categorical(),
    lambda lib: lib.distributions.Categorical(lib.tensor(0.3)),
    lambda lib: lib.distributions.Categorical(logits=lib.tensor(0.3)),
    lambda lib: lib.distributions.Categorical(lib.tensor([0.3, -0.2])),
    lambda lib: lib.distributions.Uniform(2.0, 1.0),
    lambda lib: lib.distributions.Gamma(lib.tensor([1.0, -1.0]), 1.0),
    lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)),
    lambda lib: lib.distributions.Dirichlet(lib.tensor([1.0, 0.0])),
    lambda lib: lib.distributions.Geometric(lib.tensor([0.0, 0.5])),
    lambda lib: lib.distributions.Beta(lib.tensor([1.0]), lib.tensor([-2.0])),
    lambda lib: lib.distributions.Poisson(-1.0),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.ones(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), scale_tril=lib.ones(2)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2), lib.eye(2)),
    lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])),
    lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])),
    lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
    lambda lib: lib.distributions.Multinomial(lib.tensor(3), lib.tensor([0.5, 0.5])),
    lambda lib: lib.distributions.Binomial(lib.tensor([2.5]), lib.tensor([0.5])),
])
def test_invalid_parameters_raise_torchs_errors(scenario):
    both_errors(scenario)


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(1.0),
    lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
    lambda lib: lib.distributions.Bernoulli(0.3).log_prob(lib.tensor(2.0)),
    lambda lib: lib.distributions.Exponential(1.0).log_prob(lib.tensor([-1.0, 1.0])),
    lambda lib: lib.distributions.Uniform(0.0, 1.0).log_prob(lib.tensor(1.5)),
    lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(lib.tensor(3)),
    lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.tensor([0.5, 0.5])),
    lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(lib.tensor([0.5, 0.6, 0.1])),
    lambda lib: lib.distributions.Poisson(2.0).log_prob(lib.tensor(1.5)),
    lambda lib: lib.distributions.Gamma(1.0, 1.0).cdf(lib.tensor(-1.0)),
    lambda lib: lib.distributions.Beta(2.0, 2.0).log_prob(lib.tensor(1.5)),
    lambda lib: lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2)).log_prob(
        lib.zeros(3)),
    lambda lib: lib.distributions.OneHotCategorical(lib.ones(3)).log_prob(
        lib.tensor([1.0, 1.0, 0.0])),
])
def test_invalid_values_raise_torchs_errors(scenario):
    both_errors(scenario)


def test_validation_can_be_switched_off():
    distribution = D.Normal(0.0, -1.0, validate_args=False)
    assert math.isnan(distribution.log_prob(tapegrad.tensor(0.0)).item())
    D.Distribution.set_default_validate_args(False)
    try:
        assert not D.Normal(0.0, -1.0)._validate_args
        D.Bernoulli(0.5).log_prob(tapegrad.tensor(3.0))
    finally:
        D.Distribution.set_default_validate_args(True)
    assert D.Normal(0.0, 1.0)._validate_args
    with pytest.raises(ValueError) as info:
        D.Distribution.set_default_validate_args(1.5)
    assert str(info.value) == ""
    expanded = D.Normal(0.0, 1.0, validate_args=False).expand((2,))
    assert not expanded._validate_args


def test_sample_n_warns_as_torch():
    torch = torch_or_skip()
    tapegrad.manual_seed(0)
    torch.manual_seed(0)
    with pytest.warns(FutureWarning, match=r"`sample_n\(n\)` will be deprecated"):
        ours = D.Normal(0.0, 1.0).sample_n(3)
    with pytest.warns(FutureWarning):
        theirs = torch.distributions.Normal(0.0, 1.0).sample_n(3)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_import_needs_no_scipy():
    import subprocess
    import sys
    code = ("import sys, tapegrad.distributions; "
            "print('scipy' in sys.modules, 'torch' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert run.stdout.split() == ["False", "False"], run.stderr


def test_sample_is_outside_autograd_and_rsample_inside():
    scale = tapegrad.tensor([1.0, 2.0], requires_grad=True)
    distribution = D.Normal(0.0, scale)
    assert not distribution.sample().requires_grad
    assert distribution.rsample().requires_grad
    assert not D.Bernoulli(0.5).has_rsample
    with pytest.raises(NotImplementedError):
        D.Bernoulli(0.5).rsample()


# ---- without torch: moments, normalisation -----------------------------------------------------

def _vector(*values):
    return tapegrad.tensor(values, dtype=tapegrad.float64)


# densities finite on their support (the shared parameters include poles at 0)
INTEGRABLE = {
    "Normal": (lambda: D.Normal(_vector(0.5, -1.0), _vector(1.0, 2.5)), (-60.0, 60.0)),
    "Laplace": (lambda: D.Laplace(_vector(0.5, -1.0), _vector(1.0, 2.5)), (-80.0, 80.0)),
    "Gumbel": (lambda: D.Gumbel(_vector(0.5, -1.0), _vector(1.0, 2.5)), (-30.0, 120.0)),
    "Gamma": (lambda: D.Gamma(_vector(1.5, 3.0), _vector(2.0, 0.5)), (0.0, 200.0)),
    "Chi2": (lambda: D.Chi2(_vector(3.0, 5.0)), (0.0, 200.0)),
    "Exponential": (lambda: D.Exponential(_vector(0.5, 3.0)), (0.0, 200.0)),
    "HalfNormal": (lambda: D.HalfNormal(_vector(0.5, 3.0)), (0.0, 60.0)),
    "LogNormal": (lambda: D.LogNormal(_vector(0.5, -1.0), _vector(0.5, 0.3)), (1e-12, 200.0)),
    "Beta": (lambda: D.Beta(_vector(2.0, 1.5), _vector(3.0, 1.2)), (0.0, 1.0)),
    "Weibull": (lambda: D.Weibull(_vector(1.0, 2.5), _vector(1.5, 3.0)), (1e-12, 60.0)),
    # its log_prob is not masked below the scale (nor is torch's): the grid starts there
    "Pareto": (lambda: D.Pareto(_vector(1.0, 1.0), _vector(6.0, 8.0)), (1.0, 80.0)),
}


@pytest.mark.parametrize("name", sorted(INTEGRABLE))
def test_density_integrates_to_one_with_the_stated_mean_and_variance(name):
    build, (low, high) = INTEGRABLE[name]
    distribution = build()
    grid = np.linspace(low, high, 400001)
    density = np.exp(distribution.log_prob(tapegrad.tensor(grid[:, None])).numpy())
    density[~np.isfinite(density)] = 0.0

    def integral(values):
        return ((values[1:] + values[:-1]) / 2 * np.diff(grid)[:, None]).sum(0)

    np.testing.assert_allclose(integral(density), 1.0, atol=1e-4)
    mean = integral(density * grid[:, None])
    np.testing.assert_allclose(mean, distribution.mean.numpy(), rtol=1e-3)
    variance = integral(density * (grid[:, None] - mean) ** 2)
    np.testing.assert_allclose(variance, distribution.variance.numpy(), rtol=1e-3)


@pytest.mark.parametrize("name", ["Normal", "Gamma", "Beta", "Dirichlet", "Poisson", "Binomial",
                                  "Geometric", "Uniform", "Exponential", "Multinomial",
                                  "NegativeBinomial", "Weibull"])
def test_sample_moments(name):
    distribution, _ = make(tapegrad, name)
    tapegrad.manual_seed(0)
    draws = distribution.sample((4000,)).numpy()
    mean, variance = distribution.mean.numpy(), distribution.variance.numpy()
    standard_error = np.sqrt(variance / draws.shape[0])
    assert np.all(np.abs(draws.mean(0) - mean) < 5 * standard_error + 1e-12)
    np.testing.assert_allclose(draws.var(0), variance, rtol=0.15)


def test_categorical_frequencies_follow_probs():
    probs = np.array([0.1, 0.2, 0.3, 0.4])
    tapegrad.manual_seed(0)
    draws = D.Categorical(tapegrad.tensor(probs)).sample((20000,)).numpy()
    np.testing.assert_allclose(np.bincount(draws, minlength=4) / 20000, probs, atol=0.015)


def test_exponential_family_entropy_is_the_closed_form():
    # ExponentialFamily.entropy (the Bregman form) against each family's own entropy
    for name in ["Normal", "Exponential", "Gamma", "Bernoulli"]:
        distribution, _ = make(tapegrad, name)
        bregman = D.ExponentialFamily.entropy(distribution)
        np.testing.assert_allclose(bregman.detach().numpy(), distribution.entropy().numpy(),
                                   rtol=1e-10)


def test_generalized_pareto_matches_torch():
    # torch's log_prob compares concentration with a float32 zero, so only float32 works there
    torch = torch_or_skip()
    params = dict(loc=real(*BATCH), scale=positive(*BATCH),
                  concentration=np.array([[0.3, 0.0, -0.4], [0.8, -0.1, 0.05]]))

    def run(lib):
        leaves = {k: lib.tensor(v, dtype=lib.float32, requires_grad=True)
                  for k, v in params.items()}
        distribution = lib.distributions.GeneralizedPareto(**leaves)
        lib.manual_seed(3)
        sample = distribution.rsample((4,))
        log_prob = distribution.log_prob(sample.detach())
        results = [sample, log_prob, distribution.cdf(sample.detach()), distribution.mean,
                   distribution.variance, distribution.entropy(), distribution.mode]
        grads = lib.autograd.grad(sample.sum() + log_prob.sum(), list(leaves.values()))
        return [to_numpy(r) for r in results + list(grads)], repr(distribution.support)

    (ours, support), (theirs, torch_support) = run(tapegrad), run(torch)
    for mine, reference in zip(ours, theirs):
        np.testing.assert_allclose(mine, reference, rtol=2e-5, atol=2e-6, equal_nan=True)
    assert support == torch_support
    for lib_errors in zip(*[[error_of(lambda: lib.distributions.GeneralizedPareto(
            lib.zeros(2, dtype=lib.float64), lib.ones(2, dtype=lib.float64),
            lib.zeros(2, dtype=lib.float64)).log_prob(lib.ones(2, dtype=lib.float64)))]
            for lib in (tapegrad, torch)]):
        assert lib_errors[0] == lib_errors[1]


def _subclass_warnings(lib):
    class NoConstraints(lib.distributions.Distribution):
        pass

    class NoSupport(lib.distributions.Distribution):
        arg_constraints = {}

    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        NoConstraints(validate_args=True)
        NoSupport(validate_args=True)._validate_sample(lib.zeros(()))
    return [str(w.message).replace(lib.__name__, "LIB") for w in caught]


def test_subclass_validation_warnings_match_torch():
    torch = torch_or_skip()
    ours, theirs = _subclass_warnings(tapegrad), _subclass_warnings(torch)
    assert len(ours) == 2 and ours == theirs


def test_expand_of_a_subclass_with_its_own_init_raises_torchs_error():
    torch = torch_or_skip()

    def scenario(lib):
        class Shifted(lib.distributions.Normal):
            def __init__(self, loc):
                super().__init__(loc, 1.0)

        return Shifted(lib.zeros(2)).expand((3, 2))

    assert error_of(lambda: scenario(tapegrad)) == error_of(lambda: scenario(torch))


@pytest.mark.parametrize("scenario", [
    lambda lib: lib.distributions.Gamma(lib.ones(2, dtype=lib.half), 1.0).sample(),
    lambda lib: lib.distributions.Dirichlet(lib.ones(2, dtype=lib.half)).sample(),
    lambda lib: lib.distributions.Beta(lib.ones(2, dtype=lib.bfloat16),
                                       lib.ones(2, dtype=lib.bfloat16)).sample(),
    lambda lib: lib.distributions.Binomial(lib.ones(2, dtype=lib.half),
                                           lib.ones(2, dtype=lib.half) / 2).sample(),
])
def test_samplers_refuse_reduced_precision_as_torch(scenario):
    both_errors(scenario)
