"""The gamma, Dirichlet and binomial samplers on a cuda device (the test double, or a GPU with
TAPEGRAD_DEVICE_TESTS=cupy): their laws against SciPy's, their reproducibility under the cuda
seed, their devices and dtypes, their reparameterisation gradients against the implicit
derivatives, and the cpu streams left as torch's.

The draws are seeded, so each check is deterministic; its bounds are set from the sample size
so that a correct sampler fails one with probability about 1e-6 for any seed (the
Dvoretzky-Kiefer-Wolfowitz bound for the Kolmogorov-Smirnov distance, six standard errors for
means and variances).
"""
import math

import numpy as np
import pytest

import tapegrad
from tapegrad import distributions as D
from tapegrad.distributions import _sampling
from test_device_double import CUDA0, gpu  # noqa: F401 (a fixture)

stats = pytest.importorskip("scipy.stats")
special = pytest.importorskip("scipy.special")
pytestmark = pytest.mark.usefixtures("gpu")  # every test runs on the double or a GPU

N = 40_000
FAILURE = 1e-6


def ks_bound(n):
    return math.sqrt(math.log(2 / FAILURE) / (2 * n))


def host(tensor):
    return tensor.detach().cpu().numpy().astype(np.float64)


def cuda(values, dtype=tapegrad.float64, **kwargs):
    return tapegrad.tensor(values, dtype=dtype, device="cuda", **kwargs)


def assert_moments(samples, mean, variance, fourth_central):
    """Sample mean and variance within six standard errors of the law's."""
    n = samples.size
    assert abs(samples.mean() - mean) <= 6 * math.sqrt(variance / n), (samples.mean(), mean)
    spread = math.sqrt(max(fourth_central - variance ** 2, 0) / n)
    assert abs(samples.var() - variance) <= 6 * spread + 1e-12, (samples.var(), variance)


def ks_distance(samples, cdf):
    """The Kolmogorov-Smirnov distance to a law with CDF cdf (continuous but for atoms, whose
    left limits are the CDF's just below): the largest gap on either side of each sample."""
    ordered = np.sort(samples)
    values = np.unique(ordered)
    right = np.searchsorted(ordered, values, side="right") / samples.size
    left = np.searchsorted(ordered, values, side="left") / samples.size
    return float(max(np.max(np.abs(right - cdf(values))),
                     np.max(np.abs(left - cdf(np.nextafter(values, -np.inf))))))


def clamped_gamma_cdf(alpha, dtype):
    """The CDF of max(X, tiny) for X ~ Gamma(alpha): torch keeps the draws at least the
    dtype's smallest normal number, an atom of mass 1.3% at alpha = 0.05 in float32."""
    tiny, law = np.finfo(dtype).tiny, stats.gamma(alpha)
    return lambda x: np.where(x >= tiny, law.cdf(x), 0.0)


def discrete_ks(samples, cdf):
    """The largest gap between the empirical and the law's CDF over the integers."""
    support = np.arange(samples.min() - 1, samples.max() + 1)
    empirical = np.searchsorted(np.sort(samples), support, side="right") / samples.size
    return float(np.max(np.abs(empirical - cdf(support))))


# ---- the laws ------------------------------------------------------------------------------

@pytest.mark.parametrize("alpha", [0.05, 0.3, 0.999, 1.0, 2.5, 40.0, 1e4])
@pytest.mark.parametrize("dtype", [tapegrad.float64, tapegrad.float32])
def test_gamma_draws_follow_the_gamma_law(alpha, dtype):
    tapegrad.cuda.manual_seed(1)
    drawn = D.Gamma(cuda([alpha], dtype), cuda([1.0], dtype)).sample((N,))
    assert drawn.device == CUDA0 and drawn.dtype == dtype
    samples = host(drawn).ravel()
    storage = np.float64 if dtype == tapegrad.float64 else np.float32
    assert ks_distance(samples, clamped_gamma_cdf(alpha, storage)) <= ks_bound(N)
    assert_moments(samples, alpha, alpha, 3 * alpha ** 2 + 6 * alpha)


def test_gamma_draws_of_mixed_concentrations_in_one_tensor():
    # elements accepted in different rounds land in their own places
    alphas = np.array([0.2, 1.0, 7.0, 300.0])
    tapegrad.cuda.manual_seed(2)
    samples = host(D.Gamma(cuda(alphas), 1.0).sample((N // 4,)))
    for column, alpha in enumerate(alphas):
        assert (ks_distance(samples[:, column], clamped_gamma_cdf(alpha, np.float64))
                <= ks_bound(N // 4))


def test_gamma_of_concentration_zero_is_the_smallest_normal_number():
    drawn = D.Gamma(cuda([0.0, 0.0]), 1.0, validate_args=False).sample()
    np.testing.assert_array_equal(host(drawn), np.finfo(np.float64).tiny)


@pytest.mark.parametrize("count, prob", [
    (10, 0.3), (30, 0.2), (1e5, 1e-6),    # inversion
    (20, 0.5), (1000, 0.37), (1e9, 0.5),  # BTRS, from count * p = 10 on
    (200, 0.99), (1e6, 0.999), (50, 0.97), (3, 1 - 1e-9),  # p > 0.5, turned round
])
def test_binomial_draws_follow_the_binomial_law(count, prob):
    tapegrad.cuda.manual_seed(3)
    counts, probs = cuda([count] * N), cuda([prob] * N)
    drawn = _sampling.binomial(counts, probs)
    assert drawn.device == CUDA0 and drawn.dtype == tapegrad.float64
    samples = host(drawn)
    assert np.array_equal(samples, np.round(samples)) and 0 <= samples.min() <= samples.max() <= count
    law = stats.binom(count, prob)
    assert discrete_ks(samples, law.cdf) <= ks_bound(N)
    mean, variance = law.stats("mv")
    q = prob * (1 - prob)
    assert_moments(samples, mean, variance, count * q * (1 + 3 * (count - 2) * q))


def test_binomial_edges():
    counts = cuda([0.0, 0.0, 7.0, 7.0, 1e9, math.nan, 5.0, math.inf])
    probs = cuda([0.5, 1.0, 0.0, 1.0, 1.0, 0.5, math.nan, 0.5])
    drawn = host(_sampling.binomial(counts, probs))
    np.testing.assert_array_equal(drawn, [0, 0, 0, 7, 1e9, math.nan, math.nan, math.nan])


def test_binomial_of_many_parameters_in_one_tensor():
    counts = np.array([5.0, 40.0, 1e4, 1e4])
    probs = np.array([0.1, 0.5, 0.002, 0.9])
    tapegrad.cuda.manual_seed(4)
    n = N // 4
    drawn = _sampling.binomial(cuda(np.tile(counts, (n, 1))), cuda(np.tile(probs, (n, 1))))
    samples = host(drawn)
    for column, (count, prob) in enumerate(zip(counts, probs)):
        assert discrete_ks(samples[:, column], stats.binom(count, prob).cdf) <= ks_bound(n)


def test_dirichlet_draws_follow_the_dirichlet_law():
    alpha = np.array([0.3, 2.0, 5.0])
    total = alpha.sum()
    tapegrad.cuda.manual_seed(5)
    drawn = D.Dirichlet(cuda(alpha)).sample((N,))
    assert drawn.device == CUDA0 and drawn.shape == (N, 3)
    samples = host(drawn)
    np.testing.assert_allclose(samples.sum(-1), 1, rtol=1e-12)
    for column, a in enumerate(alpha):
        marginal = stats.beta(a, total - a)  # each component is Beta(a_i, total - a_i)
        assert ks_distance(samples[:, column], marginal.cdf) <= ks_bound(N)
        mean, variance = marginal.stats("mv")
        assert abs(samples[:, column].mean() - mean) <= 6 * math.sqrt(variance / N)


@pytest.mark.parametrize("name, make, law", [
    ("Beta", lambda: D.Beta(cuda([0.7]), cuda([3.0])), stats.beta(0.7, 3.0)),
    ("Chi2", lambda: D.Chi2(cuda([3.0])), stats.chi2(3.0)),
    ("StudentT", lambda: D.StudentT(cuda([2.5])), stats.t(2.5)),
])
def test_the_distributions_built_on_the_gamma_follow_their_laws(name, make, law):
    tapegrad.cuda.manual_seed(6)
    drawn = make().rsample((N,))
    assert drawn.device == CUDA0
    assert ks_distance(host(drawn).ravel(), law.cdf) <= ks_bound(N)


def test_the_binomial_distribution_samples_on_the_device():
    drawn = D.Binomial(cuda([10.0, 300.0]), cuda([0.5, 0.1])).sample((3,))
    assert drawn.device == CUDA0 and drawn.shape == (3, 2)


# ---- seeds, devices and dtypes -------------------------------------------------------------

SAMPLERS = {
    "Gamma": lambda: D.Gamma(cuda([0.5, 3.0]), cuda([1.0, 2.0])).sample((50,)),
    "Dirichlet": lambda: D.Dirichlet(cuda([0.5, 3.0])).sample((50,)),
    "binomial": lambda: _sampling.binomial(cuda([5.0, 100.0] * 50), cuda([0.2, 0.7] * 50)),
}


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_the_cuda_seed_and_rng_state_replay_the_draws(name):
    draw = SAMPLERS[name]
    tapegrad.cuda.manual_seed(9)
    first = host(draw())
    state = tapegrad.cuda.get_rng_state()
    second = host(draw())
    tapegrad.cuda.manual_seed(9)
    np.testing.assert_array_equal(host(draw()), first)
    tapegrad.cuda.set_rng_state(state)
    np.testing.assert_array_equal(host(draw()), second)
    assert not np.array_equal(first, second)
    tapegrad.manual_seed(9)  # torch.manual_seed seeds the devices too
    np.testing.assert_array_equal(host(draw()), first)


@pytest.mark.parametrize("name", sorted(SAMPLERS))
def test_the_device_draws_leave_the_cpu_generator_alone(name):
    state = tapegrad.get_rng_state()
    SAMPLERS[name]()
    np.testing.assert_array_equal(tapegrad.get_rng_state().numpy(), state.numpy())


def test_the_draws_are_made_on_the_tensors_device():
    if tapegrad.cuda.device_count() < 2:
        pytest.skip("needs two devices")
    one = tapegrad.device("cuda", 1)
    concentration = tapegrad.tensor([0.5, 2.0], device=one, requires_grad=True)
    x = D.Gamma(concentration, 1.0).rsample((3,))
    x.sum().backward()
    assert x.device == one and concentration.grad.device == one
    assert D.Dirichlet(concentration).rsample().device == one
    counts = tapegrad.tensor([4.0, 50.0], device=one)
    assert _sampling.binomial(counts, counts / 100).device == one


@pytest.mark.parametrize("dtype", [tapegrad.float16, tapegrad.float32, tapegrad.float64])
def test_the_draws_keep_the_parameters_dtype(dtype):
    # torch's CUDA kernels take half too, computing in float (these in double)
    concentration = cuda([0.5, 2.0, 30.0], dtype)
    for drawn in (D.Gamma(concentration, concentration).rsample(),
                  D.Dirichlet(concentration).rsample(),
                  D.Beta(concentration, concentration).rsample(),
                  _sampling.binomial(concentration.round(), concentration / 40)):
        assert drawn.dtype == dtype and drawn.device == CUDA0
        assert bool(tapegrad.isfinite(drawn).all())


@pytest.mark.parametrize("kernel, draw", [
    ("gamma_cuda", lambda like: _sampling.StandardGamma.apply(like)),
    ("dirichlet", lambda like: _sampling._Dirichlet.apply(like)),
    ("binomial_cuda", lambda like: _sampling.binomial(like, like)),
])
def test_other_dtypes_are_refused_with_torchs_cuda_kernel_name(kernel, draw):
    with pytest.raises(NotImplementedError, match=f"^\"{kernel}\" not implemented for 'Long'$"):
        draw(tapegrad.ones(2, dtype=tapegrad.int64, device="cuda"))


def test_the_cpu_streams_stay_torchs_with_a_device_present():
    torch = pytest.importorskip("torch")
    concentration = [0.4, 1.0, 6.0]
    for lib in (tapegrad, torch):
        lib.manual_seed(13)
    SAMPLERS["Gamma"]()  # a device draw in between changes nothing on the cpu
    ours = (D.Gamma(tapegrad.tensor(concentration), 1.0).sample((4,)),
            D.Dirichlet(tapegrad.tensor(concentration)).sample((2,)),
            D.Binomial(tapegrad.tensor([10.0, 500.0]), tapegrad.tensor([0.3, 0.8])).sample())
    theirs = (torch.distributions.Gamma(torch.tensor(concentration), 1.0).sample((4,)),
              torch.distributions.Dirichlet(torch.tensor(concentration)).sample((2,)),
              torch.distributions.Binomial(torch.tensor([10.0, 500.0]),
                                           torch.tensor([0.3, 0.8])).sample())
    for mine, reference in zip(ours, theirs):
        np.testing.assert_array_equal(mine.numpy(), reference.numpy())


# ---- gradients -----------------------------------------------------------------------------

def test_the_gamma_gradients_are_the_implicit_derivatives():
    # d x / d concentration at a fixed quantile u = F(x; a), and d x / d rate = -x / rate
    alpha, rate = np.array([0.4, 1.0, 3.5, 20.0]), np.array([2.0, 1.0, 0.5, 3.0])
    concentration, rates = cuda(alpha, requires_grad=True), cuda(rate, requires_grad=True)
    tapegrad.cuda.manual_seed(8)
    x = D.Gamma(concentration, rates).rsample()
    assert type(x.grad_fn).__name__ == "DivBackward0"
    assert type(x.grad_fn.next_functions[0][0]).__name__ == "StandardGammaBackward0"
    grad_concentration, grad_rate = tapegrad.autograd.grad(x.sum(), (concentration, rates))
    assert grad_concentration.device == CUDA0
    standard = host(x) * rate
    u, h = special.gammainc(alpha, standard), 1e-6
    implicit = (special.gammaincinv(alpha + h, u) - special.gammaincinv(alpha - h, u)) / (2 * h)
    np.testing.assert_allclose(host(grad_concentration), implicit / rate, rtol=1e-5)
    np.testing.assert_allclose(host(grad_rate), -host(x) / rate, rtol=1e-12)


def test_the_beta_gradients_are_the_implicit_derivatives():
    a, b = np.array([0.5, 2.0, 7.0]), np.array([3.0, 1.5, 0.8])
    alpha, beta = cuda(a, requires_grad=True), cuda(b, requires_grad=True)
    tapegrad.cuda.manual_seed(10)
    x = D.Beta(alpha, beta).rsample()
    grad_alpha, grad_beta = tapegrad.autograd.grad(x.sum(), (alpha, beta))
    u, h = special.betainc(a, b, host(x)), 1e-6
    np.testing.assert_allclose(
        host(grad_alpha),
        (special.betaincinv(a + h, b, u) - special.betaincinv(a - h, b, u)) / (2 * h),
        rtol=1e-4)
    np.testing.assert_allclose(
        host(grad_beta),
        (special.betaincinv(a, b + h, u) - special.betaincinv(a, b - h, u)) / (2 * h),
        rtol=1e-4)


def test_the_dirichlet_gradient_is_the_cpus_formula():
    alpha = np.array([[0.5, 2.0, 4.0], [1.5, 0.7, 9.0]])
    weights = np.array([[1.0, -2.0, 0.5], [0.3, 0.0, 2.0]])
    concentration = cuda(alpha, requires_grad=True)
    tapegrad.cuda.manual_seed(12)
    x = D.Dirichlet(concentration).rsample()
    (grad,) = tapegrad.autograd.grad((x * cuda(weights)).sum(), concentration)
    sample = host(x)
    totals = np.broadcast_to(alpha.sum(-1, keepdims=True), alpha.shape)
    per_component = _sampling.dirichlet_grad(sample, alpha, totals)  # the cpu's, on host arrays
    expected = per_component * (weights - (sample * weights).sum(-1, keepdims=True))
    np.testing.assert_allclose(host(grad), expected, rtol=1e-10)
