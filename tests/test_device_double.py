"""The cuda device on every machine: tapegrad's device-generic code against the test double.

tests/device_double.py registers NumPy arrays tagged "cuda:0"/"cuda:1" as tapegrad's cuda
backend; NumPy refuses them as it refuses CuPy's arrays, so an op that calls `np.` where it
should call `xp.`, copies to the host, or mixes devices fails here as on a GPU. These tests
check torch's device semantics (factories, copies, errors, printing), gradients on the
device, a model trained on it, and every op-database sample run on the device against the
same sample on the cpu. The same checks on a real GPU: tests/gpu/run_on_gpu.sh.
"""
import os

import numpy as np
import pytest

import device_double
import tapegrad
from tapegrad import _backend
from compare import as_lib
from device_double_xfails import XFAILS
from op_db import OP_DB
from test_ops import apply_layout, layouts_of, leaf_arrays, requires_grad_of

CUDA0, CUDA1, CPU = (tapegrad.device("cuda", 0), tapegrad.device("cuda", 1),
                     tapegrad.device("cpu"))


# TAPEGRAD_DEVICE_TESTS=cupy runs these tests on a real GPU through CuPy (tests/gpu/)
ON_CUPY = os.environ.get("TAPEGRAD_DEVICE_TESTS") == "cupy"


@pytest.fixture
def gpu():
    if ON_CUPY:
        backend = _backend.backend_for("cuda")
        if backend is None:
            pytest.skip("TAPEGRAD_DEVICE_TESTS=cupy, but CuPy finds no CUDA device")
        yield backend
        return
    backend = device_double.install(count=2)
    yield backend
    device_double.uninstall()


@pytest.fixture
def two_gpus(gpu):
    if gpu.device_count() < 2:
        pytest.skip("needs two devices")
    return gpu


@pytest.mark.skipif(ON_CUPY, reason="a real GPU is there")
def test_without_a_backend_cuda_is_torchs_cpu_build():
    assert not tapegrad.cuda.is_available() and tapegrad.cuda.device_count() == 0
    assert tapegrad.cuda.default_generators == ()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        tapegrad.zeros(2, device="cuda")
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        tapegrad.ones(2).cuda()


# ---- torch.cuda and factories ------------------------------------------------------------

def test_cuda_module_asks_the_backend(two_gpus):
    gpu = two_gpus
    cuda = tapegrad.cuda
    assert (cuda.is_available(), cuda.device_count(), cuda.current_device()) == (True, 2, 0)
    cuda.set_device(1)
    assert cuda.current_device() == 1 and tapegrad.zeros(1, device="cuda").device == CUDA1
    with cuda.device(0):
        assert cuda.current_device() == 0
    assert cuda.current_device() == 1
    cuda.set_device(0)
    cuda.synchronize()
    cuda.manual_seed(7)
    assert cuda.initial_seed() == 7
    if not ON_CUPY:
        assert gpu.synchronized == 1
        assert cuda.get_device_name(0) == "tapegrad test double"
    assert cuda.max_memory_allocated() >= cuda.memory_allocated() >= 0


def test_factories_make_tensors_on_the_device(two_gpus):
    for make in (lambda: tapegrad.zeros(2, 3, device="cuda"),
                 lambda: tapegrad.ones(2, device=CUDA0),
                 lambda: tapegrad.randn(2, device="cuda:0"),
                 lambda: tapegrad.arange(4, device="cuda"),
                 lambda: tapegrad.tensor([1.0, 2.0], device="cuda"),
                 lambda: tapegrad.full((2,), 3.0, device="cuda")):
        tensor = make()
        assert tensor.device == CUDA0 and tensor.is_cuda and tensor.get_device() == 0
        assert type(tensor._data) is two_gpus.array_type
    on_one = tapegrad.zeros(2, device="cuda:1")
    assert on_one.device == CUDA1
    # *_like and new_* follow their input's device unless told otherwise
    assert tapegrad.zeros_like(on_one).device == CUDA1
    assert on_one.new_ones(3).device == CUDA1
    assert tapegrad.ones_like(on_one, device="cpu").device == CPU
    with pytest.raises(RuntimeError, match="CUDA error: invalid device ordinal"):
        tapegrad.zeros(2, device="cuda:2")
    leaf = tapegrad.ones(2, device="cuda", requires_grad=True)
    assert leaf.is_leaf and leaf.requires_grad
    tapegrad.set_default_device("cuda")
    try:
        assert tapegrad.zeros(2).device == CUDA0
    finally:
        tapegrad.set_default_device(None)


def test_to_copies_between_devices_and_keeps_the_graph(two_gpus):
    host = tapegrad.arange(4.0, requires_grad=True)
    moved = host.to("cuda")
    assert moved.device == CUDA0 and moved.grad_fn.name() == "ToCopyBackward0"
    assert host.to("cpu") is host and moved.to("cuda:0") is moved
    back = moved.cpu()
    assert back.device == CPU and back is not host
    back.detach()[0] = 100.0  # a copy: the source stays as it was
    assert host[0].item() == 0.0
    (moved * 2).sum().backward()
    assert host.grad.device == CPU and host.grad.tolist() == [2.0] * 4
    assert moved.to("cuda:1", tapegrad.float32).device == CUDA1
    assert host.cuda(1).device == CUDA1 and host.cuda().device == CUDA0
    with pytest.raises(RuntimeError, match="Invalid device, must be cuda device"):
        host.cuda("cpu")


def test_mixing_devices_raises_torchs_error(two_gpus):
    on_gpu, on_cpu = tapegrad.ones(2, device="cuda"), tapegrad.ones(2)
    message = ("Expected all tensors to be on the same device, but found at least two devices, "
               "cuda:0 and cpu!")
    with pytest.raises(RuntimeError, match=message):
        on_gpu + on_cpu
    with pytest.raises(RuntimeError, match="cuda:0 and cuda:1!"):
        on_gpu * tapegrad.ones(2, device="cuda:1")
    # Python numbers and 0-d cpu tensors join a device op, as torch allows
    assert (on_gpu + 1.5).device == CUDA0
    assert (on_gpu * tapegrad.tensor(3.0)).tolist() == [3.0, 3.0]
    assert (tapegrad.tensor(3.0) * on_gpu).device == CUDA0


def test_host_conversions_copy_or_refuse(gpu):
    tensor = tapegrad.tensor([1.5, 2.5], device="cuda")
    with pytest.raises(TypeError, match="can't convert cuda:0 device type tensor to numpy. Use "
                                        "Tensor.cpu\\(\\) to copy the tensor to host memory "
                                        "first."):
        tensor.numpy()
    assert tensor.tolist() == [1.5, 2.5] and tensor[1].item() == 2.5
    assert isinstance(tensor.cpu().numpy(), np.ndarray)
    assert repr(tensor) == "tensor([1.5000, 2.5000], device='cuda:0')"
    assert repr(tensor.requires_grad_() * 2) == ("tensor([3., 5.], device='cuda:0', "
                                                 "grad_fn=<MulBackward0>)")


def test_an_op_without_a_device_path_says_so(gpu):
    # a function CuPy's special lacks (here SciPy's airy, which airy_ai no longer needs): the
    # op names itself, the device and what is missing, never copying to the host behind the
    # user's back
    from tapegrad.ops._scipy_of import scipy_value
    array = tapegrad.ones(3, device="cuda")._data
    with pytest.raises(NotImplementedError, match="tapegrad's special_airy_ai does not run on "
                                                  "cuda:0 yet: CuPy's cupyx.scipy.special "
                                                  "lacks airy"):
        scipy_value(_backend.module_of((array,))[0], "special",
                    lambda special, x: special.airy(x), array, "special_airy_ai",
                    "torch.special.airy_ai")


# ---- gradients on the device -------------------------------------------------------------

def test_accumulation_hooks_and_higher_order_stay_on_the_device(gpu):
    x = tapegrad.tensor([0.5, -1.0, 2.0], device="cuda", requires_grad=True)
    seen = []
    x.register_hook(lambda grad: seen.append(grad.device))
    for _ in range(2):
        (x ** 3).sum().backward()
    assert x.grad.device == CUDA0 and seen == [CUDA0, CUDA0]
    np.testing.assert_allclose(x.grad.tolist(), [2 * 3 * v * v for v in (0.5, -1.0, 2.0)])
    (first,) = tapegrad.autograd.grad((x ** 3).sum(), x, create_graph=True)
    (second,) = tapegrad.autograd.grad(first.sum(), x)
    assert second.device == CUDA0
    np.testing.assert_allclose(second.tolist(), [6 * v for v in (0.5, -1.0, 2.0)])
    jacobian = tapegrad.autograd.functional.jacobian(lambda v: v.sin(), x.detach())
    assert jacobian.device == CUDA0
    np.testing.assert_allclose(np.diag(jacobian.cpu().numpy()),
                               np.cos([0.5, -1.0, 2.0]))


@pytest.mark.parametrize("name", ["Gamma", "Dirichlet", "Beta"])
def test_the_gamma_based_samplers_draw_on_the_device(gpu, name):
    # their laws and gradients: tests/test_device_samplers.py
    from tapegrad import distributions
    concentration = tapegrad.ones(3, device="cuda")
    made = (getattr(distributions, name)(concentration, 1.0) if name != "Dirichlet" else
            distributions.Dirichlet(concentration))
    assert made.sample().device == CUDA0


def test_vmap_same_randomness_replays_the_devices_stream(gpu):
    x = tapegrad.zeros(3, 4, device="cuda")
    same = tapegrad.func.vmap(lambda row: row + tapegrad.rand(4, device="cuda"),
                              randomness="same")(x)
    assert all(bool((same[0] == row).all()) for row in same[1:])
    different = tapegrad.func.vmap(lambda row: row + tapegrad.rand(4, device="cuda"),
                                   randomness="different")(x)
    assert not bool((different[0] == different[1]).all())
    generators = tapegrad.cuda.default_generators
    assert len(generators) == gpu.device_count()
    assert [g.device.index for g in generators] == list(range(gpu.device_count()))


def test_the_legacy_new_makes_its_tensor_on_the_tensors_device(gpu):
    x = tapegrad.ones(2, device="cuda")
    assert [x.new(3).device, x.new([1.0, 2.0]).device, x.new(tapegrad.Size([2])).device] == [
        CUDA0] * 3
    with pytest.raises(RuntimeError, match="^legacy constructor expects device type: cuda but "
                                           "device type: cpu was passed$"):
        x.new(2, device="cpu")


@pytest.mark.parametrize("name, args", [
    ("Normal", (0.5, 2.0)), ("Uniform", (-1.0, 2.0)), ("Laplace", (0.0, 1.5)),
    ("Cauchy", (0.0, 1.0)), ("Gumbel", (0.0, 1.0)), ("LogNormal", (0.0, 0.5)),
    ("Exponential", (1.5,)), ("Bernoulli", (0.3,)), ("Geometric", (0.3,)), ("Poisson", (2.0,)),
    ("HalfNormal", (1.0,))])
def test_distributions_with_number_parameters_run_on_the_device(gpu, name, args):
    """A number beside a cuda parameter becomes a tensor on that device (broadcast_all), so
    samples and densities stay there and equal the cpu's densities."""
    from tapegrad import distributions
    first, *rest = args
    on_device = getattr(distributions, name)(tapegrad.full((3,), first, device="cuda"), *rest)
    on_cpu = getattr(distributions, name)(tapegrad.full((3,), first), *rest)
    sample = on_device.sample((2,))
    assert sample.device == CUDA0 and sample.shape == (2, 3)
    density = on_device.log_prob(sample)
    assert density.device == CUDA0
    np.testing.assert_allclose(density.cpu().numpy(), on_cpu.log_prob(sample.cpu()).numpy(),
                               rtol=1e-6)


def test_checkpoint_recomputes_on_the_device(gpu):
    from tapegrad.utils.checkpoint import checkpoint
    x = tapegrad.randn(4, 3, device="cuda", requires_grad=True)
    checkpoint(lambda v: v.tanh().exp(), x, use_reentrant=False).sum().backward()
    expected = tapegrad.autograd.grad(x.tanh().exp().sum(), x)[0]
    assert x.grad.device == CUDA0
    np.testing.assert_allclose(x.grad.tolist(), expected.tolist())


def _train(device, steps=5):
    tapegrad.manual_seed(0)
    model = tapegrad.nn.Sequential(tapegrad.nn.Linear(4, 8), tapegrad.nn.ReLU(),
                                   tapegrad.nn.Linear(8, 3)).to(device)
    optimizer = tapegrad.optim.Adam(model.parameters(), lr=0.01)
    data, labels = tapegrad.randn(16, 4), tapegrad.randint(0, 3, (16,))
    data, labels = data.to(device), labels.to(device)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = tapegrad.nn.functional.cross_entropy(model(data), labels)
        loss.backward()
        optimizer.step()
    return model, optimizer, loss


def test_a_model_trains_on_the_device_as_on_the_cpu(gpu):
    on_cpu, _, cpu_loss = _train("cpu")
    on_gpu, optimizer, gpu_loss = _train("cuda")
    assert gpu_loss.device == CUDA0
    for name, parameter in on_gpu.state_dict().items():
        assert parameter.device == CUDA0, name
        np.testing.assert_allclose(parameter.cpu().numpy(), on_cpu.state_dict()[name].numpy(),
                                   rtol=1e-6, atol=1e-7)
    state = optimizer.state_dict()["state"][0]
    assert state["exp_avg"].device == CUDA0 and state["step"].device == CPU  # as torch's Adam
    np.testing.assert_allclose(gpu_loss.item(), cpu_loss.item(), rtol=1e-6)


@pytest.mark.parametrize("model", ["mlp", "cnn"])
def test_the_main_job_trains_on_the_device_as_on_the_cpu(gpu, model, tmp_path):
    for extra in ("sklearn", "tqdm", "matplotlib", "threadpoolctl"):
        pytest.importorskip(extra)
    from tapegrad.examples import digits
    runs = {device: digits.main(["--model", model, "--epochs", "1", "--device", device,
                                 "--plot", str(tmp_path / f"{device}.png")])[model]
            for device in ("cpu", "cuda")}
    if model == "mlp":  # its dropout masks come from the device's generator: other numbers
        np.testing.assert_allclose(runs["cuda"]["loss"], runs["cpu"]["loss"], rtol=0.05)
        np.testing.assert_allclose(runs["cuda"]["accuracy"], runs["cpu"]["accuracy"], atol=0.05)
        return
    np.testing.assert_allclose(runs["cuda"]["loss"], runs["cpu"]["loss"], rtol=1e-5)
    assert runs["cuda"]["accuracy"] == runs["cpu"]["accuracy"]


@pytest.mark.parametrize("name", ["w.pt", "w.safetensors"])
def test_save_and_load_keep_the_device_or_map_it(gpu, tmp_path, name):
    if name.endswith(".safetensors"):
        pytest.importorskip("safetensors")
    path = tmp_path / name
    state = {"weight": tapegrad.arange(6.0, device="cuda").reshape(2, 3),
             "bias": tapegrad.ones(2)}
    tapegrad.save(state, path)
    loaded = tapegrad.load(path)  # back where each was saved from, as torch's
    assert (loaded["weight"].device, loaded["bias"].device) == (CUDA0, CPU)
    assert loaded["weight"].tolist() == state["weight"].tolist()
    assert tapegrad.load(path, map_location="cpu")["weight"].device == CPU
    assert tapegrad.load(path, map_location={"cpu": "cuda:0"})["bias"].device == CUDA0
    on_cpu = tapegrad.load(path, map_location=lambda storage, location: storage)
    assert on_cpu["weight"].device == CPU
    device_double.uninstall()  # now no GPU: torch's error, unless mapped to the cpu
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device "
                                           r"but torch.cuda.is_available\(\) is False"):
        tapegrad.load(path)
    assert tapegrad.load(path, map_location=tapegrad.device("cpu"))["weight"].device == CPU


def test_torch_loads_what_tapegrad_saved_from_the_device(gpu, tmp_path):
    torch = pytest.importorskip("torch")
    tapegrad.save({"w": tapegrad.ones(2, device="cuda")}, tmp_path / "w.pt")
    # a CPU-only torch reads the cuda location and needs map_location, as for its own files
    with pytest.raises(RuntimeError, match="Attempting to deserialize object on a CUDA device"):
        torch.load(tmp_path / "w.pt")
    assert torch.load(tmp_path / "w.pt", map_location="cpu")["w"].tolist() == [1.0, 1.0]


# ---- random numbers on the device ---------------------------------------------------------

N = 200_000


def _inputs_on(device):
    return {"ones": tapegrad.ones(N, dtype=tapegrad.float64, device=device),
            "weight": tapegrad.empty(400, 500, device=device),
            "rows": tapegrad.ones(N // 100, 10, device=device),
            "pair": tapegrad.tensor([1.0, 3.0], device=device)}


def _draws_on(device, ones, weight, rows, pair):
    """Every kind of random draw on device, as host arrays (factories, the samplers with
    tensor parameters, the in-place samplers, dropout's mask, nn.init)."""
    on = {"device": device}
    return {
        "rand": tapegrad.rand(N, **on), "randn": tapegrad.randn(N, **on),
        "rand_like": tapegrad.rand_like(ones), "randn_like": tapegrad.randn_like(ones),
        "randint": tapegrad.randint(-3, 5, (N,), **on),
        "randint_like": tapegrad.randint_like(ones, 7),
        "randperm": tapegrad.randperm(1000, **on),
        "normal_size": tapegrad.normal(1.5, 2.0, (N,), **on),
        "normal_tensors": tapegrad.normal(ones * 1.5, ones * 2.0),
        "bernoulli": tapegrad.bernoulli(ones * 0.3), "bernoulli_p": ones.bernoulli(0.3),
        "poisson": tapegrad.poisson(ones * 4.0), "poisson_large": tapegrad.poisson(ones * 40.0),
        "multinomial": tapegrad.multinomial(rows, 10),
        "multinomial_replacement": tapegrad.multinomial(pair, N, True),
        "uniform_": ones.clone().uniform_(-2, 3), "normal_": ones.clone().normal_(1.5, 2.0),
        "exponential_": ones.clone().exponential_(2.0),
        "geometric_": ones.clone().geometric_(0.25), "cauchy_": ones.clone().cauchy_(),
        "log_normal_": ones.clone().log_normal_(0.0, 0.5), "random_": ones.clone().random_(10),
        "bernoulli_": ones.clone().bernoulli_(ones * 0.3),
        "dropout": tapegrad.nn.functional.dropout(ones, 0.25),
        "kaiming_uniform_": tapegrad.nn.init.kaiming_uniform_(weight),
    }


def _within(values, mean, variance):
    """Whether the sample mean is within 5 standard errors of the law's mean."""
    return abs(values.mean() - mean) < 5 * np.sqrt(variance / values.size)


# law checks, on host copies: (mean, variance) within sampling error, and the support
LAWS = {
    "rand": lambda v: (_within(v, 0.5, 1 / 12), v.min() >= 0 and v.max() < 1),
    "rand_like": lambda v: (_within(v, 0.5, 1 / 12), v.min() >= 0 and v.max() < 1),
    "randn": lambda v: (_within(v, 0, 1), _within(v * v, 1, 2)),
    "randn_like": lambda v: (_within(v, 0, 1), _within(v * v, 1, 2)),
    "randint": lambda v: set(np.unique(v)) == set(range(-3, 5)),
    "randint_like": lambda v: set(np.unique(v)) == set(range(7)),
    "randperm": lambda v: sorted(v) == list(range(1000)) and list(v) != list(range(1000)),
    "normal_size": lambda v: (_within(v, 1.5, 4), _within((v - 1.5) ** 2, 4, 32)),
    "normal_tensors": lambda v: (_within(v, 1.5, 4), _within((v - 1.5) ** 2, 4, 32)),
    "normal_": lambda v: (_within(v, 1.5, 4), _within((v - 1.5) ** 2, 4, 32)),
    "bernoulli": lambda v: (_within(v, 0.3, 0.21), set(np.unique(v)) == {0, 1}),
    "bernoulli_p": lambda v: (_within(v, 0.3, 0.21), set(np.unique(v)) == {0, 1}),
    "bernoulli_": lambda v: (_within(v, 0.3, 0.21), set(np.unique(v)) == {0, 1}),
    "poisson": lambda v: (_within(v, 4, 4), _within((v - 4) ** 2, 4, 4 + 2 * 16),
                          np.all(v == np.round(v)) and v.min() >= 0),
    "poisson_large": lambda v: (_within(v, 40, 40), _within((v - 40) ** 2, 40, 40 + 2 * 1600),
                                np.all(v == np.round(v)) and v.min() >= 0),
    "multinomial": lambda v: all(sorted(row) == list(range(10)) for row in v),
    "multinomial_replacement": lambda v: _within(v, 0.75, 0.1875),
    "uniform_": lambda v: (_within(v, 0.5, 25 / 12), v.min() >= -2 and v.max() < 3),
    "exponential_": lambda v: (_within(v, 0.5, 0.25), v.min() > 0),
    "geometric_": lambda v: (_within(v, 4, 12), v.min() == 1 and np.all(v == np.round(v))),
    "cauchy_": lambda v: abs(np.median(v)) < 0.02 and abs(np.mean(np.abs(v) < 1) - 0.5) < 0.01,
    "log_normal_": lambda v: _within(np.log(v), 0, 0.25),
    "random_": lambda v: set(np.unique(v)) == set(range(10)),
    "dropout": lambda v: (_within(v == 0, 0.25, 0.1875), set(np.unique(v)) == {0, 4 / 3}),
    "kaiming_uniform_": lambda v: (np.abs(v).max() <= np.sqrt(6 / 500),  # a = 0: gain sqrt(2)
                                   _within(v, 0, 2 / 500)),
}


def test_random_draws_are_made_on_the_device_with_the_laws_of_the_cpu(gpu, monkeypatch):
    tapegrad.manual_seed(0)
    on_cpu = _draws_on("cpu", **_inputs_on("cpu"))
    last = tapegrad.device("cuda", gpu.device_count() - 1)  # cuda:1 where there are two
    inputs = _inputs_on(last)
    if not ON_CUPY:  # no host round trip: nothing drawn is copied onto the device
        monkeypatch.setattr(gpu, "to_device", lambda *args: pytest.fail("copied to the device"))
    on_gpu = _draws_on(last, **inputs)
    assert set(on_gpu) == set(LAWS)
    for name, tensor in on_gpu.items():
        assert tensor.device == last and type(tensor._data) is gpu.array_type, name
        assert (tensor.dtype, tensor.shape) == (on_cpu[name].dtype, on_cpu[name].shape), name
        values = tensor.cpu().numpy()
        assert all(np.all(check) for check in np.atleast_1d(LAWS[name](values))), name
        assert not np.array_equal(values, on_cpu[name].numpy()), name  # the device's own


def test_complex_and_half_samples_on_the_device(gpu):
    for dtype in (tapegrad.complex64, tapegrad.complex128):
        values = tapegrad.randn(N, dtype=dtype, device="cuda")
        assert values.dtype is dtype
        parts = values.cpu().numpy()
        for part in (parts.real, parts.imag):  # each part N(0, 1/2)
            assert _within(part.astype(np.float64), 0, 0.5)
    half = tapegrad.rand(N, dtype=tapegrad.float16, device="cuda")
    assert half.dtype is tapegrad.float16 and 0 <= half.min().item() < half.max().item() < 1


def _a_draw():
    return tapegrad.randn(5, device="cuda").tolist() + tapegrad.rand(3, device="cuda:1").tolist()


def test_the_same_cuda_seed_gives_the_same_numbers(two_gpus):
    cuda = tapegrad.cuda
    cuda.manual_seed_all(3)
    first = _a_draw()
    cuda.manual_seed_all(3)
    assert _a_draw() == first
    cuda.manual_seed_all(4)
    assert _a_draw() != first
    tapegrad.manual_seed(3)  # torch.manual_seed seeds every device too
    assert _a_draw() == first
    cuda.manual_seed(3)  # the current device only
    cuda.set_device(1)
    cuda.manual_seed(5)
    cuda.set_device(0)
    assert _a_draw()[:5] == first[:5] and _a_draw()[5:] != first[5:]
    assert cuda.initial_seed() == 3
    cuda.set_device(1)
    assert cuda.initial_seed() == 5
    cuda.set_device(0)
    cuda.seed_all()
    states = cuda.get_rng_state_all()
    assert states[0].tolist() == states[1].tolist() and cuda.initial_seed() != 3


def test_the_cpu_stream_is_unaffected_by_cuda_draws(gpu):
    tapegrad.manual_seed(0)
    alone = tapegrad.randn(6).tolist()
    tapegrad.manual_seed(0)
    tapegrad.randn(100, device="cuda").normal_()
    tapegrad.nn.functional.dropout(tapegrad.ones(50, device="cuda"))
    assert tapegrad.randn(6).tolist() == alone
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    assert torch.randn(6).tolist() == alone  # still torch's numbers


def test_cuda_rng_state_saves_and_restores_the_stream(gpu):
    cuda = tapegrad.cuda
    cuda.manual_seed(11)
    state = cuda.get_rng_state()
    assert (state.dtype, state.device, state.shape) == (tapegrad.uint8, CPU, (16,))
    first = tapegrad.randn(4, device="cuda").tolist()
    assert cuda.get_rng_state().tolist() != state.tolist()  # the offset moved on
    cuda.set_rng_state(state)
    assert tapegrad.randn(4, device="cuda").tolist() == first
    cuda.set_rng_state(state[:8])  # a seed alone, as torch takes it: the stream's start
    assert tapegrad.randn(4, device="cuda").tolist() == first
    before, cpu_before = cuda.get_rng_state_all(), tapegrad.get_rng_state()
    with tapegrad.random.fork_rng():  # every device's state, and the cpu's, put back
        tapegrad.rand(7, device="cuda"), tapegrad.rand(3)
    assert [s.tolist() for s in cuda.get_rng_state_all()] == [s.tolist() for s in before]
    assert tapegrad.get_rng_state().tolist() == cpu_before.tolist()
    cuda.set_rng_state(state)
    with tapegrad.random.fork_rng():
        inside = tapegrad.randn(4, device="cuda").tolist()
    assert inside == first == tapegrad.randn(4, device="cuda").tolist()
    with pytest.raises(RuntimeError, match="RNG state is wrong size"):
        cuda.set_rng_state(state[:5])
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        cuda.set_rng_state(state.float())


def test_generators_of_the_other_device_type_are_refused(gpu):
    on_cpu, on_gpu = tapegrad.Generator(), tapegrad.Generator("cuda")
    assert on_gpu.device == CUDA0 and isinstance(on_gpu, tapegrad.Generator)
    ones = tapegrad.ones(3, device="cuda")
    message = "Expected a 'cuda' device type for generator but found 'cpu'"
    for draw in (lambda g: tapegrad.randn(3, device="cuda", generator=g),
                 lambda g: tapegrad.randperm(3, device="cuda", generator=g),
                 lambda g: ones.clone().uniform_(generator=g),
                 lambda g: tapegrad.normal(ones, 1.0, generator=g),
                 lambda g: tapegrad.bernoulli(ones * 0.5, generator=g),
                 lambda g: tapegrad.multinomial(ones, 2, generator=g)):
        with pytest.raises(RuntimeError, match=message):
            draw(on_cpu)
        assert draw(on_gpu.manual_seed(2)).tolist() == draw(on_gpu.manual_seed(2)).tolist()
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        tapegrad.randn(3, generator=on_gpu)


def test_reparameterised_samples_have_the_formulas_gradients(gpu):
    loc = tapegrad.tensor([0.5, -1.0, 2.0], dtype=tapegrad.float64, device="cuda",
                          requires_grad=True)
    scale = tapegrad.tensor([1.0, 0.5, 3.0], dtype=tapegrad.float64, device="cuda",
                            requires_grad=True)
    sample = tapegrad.distributions.Normal(loc, scale).rsample((4,))
    assert sample.device == CUDA0
    sample.sum().backward()
    noise = ((sample - loc) / scale).detach()  # d sample / d scale = the standard noise
    np.testing.assert_allclose(loc.grad.cpu().numpy(), [4.0] * 3)
    np.testing.assert_allclose(scale.grad.cpu().numpy(), noise.sum(0).cpu().numpy())
    # torch.normal itself is not reparameterised: zero gradients, on the device too
    mean = loc.detach().requires_grad_()
    tapegrad.normal(mean, 2.0).sum().backward()
    assert mean.grad.device == CUDA0 and mean.grad.tolist() == [0.0] * 3


# ---- every op-database sample on the device ----------------------------------------------

def _dense(tensor):
    return tensor.to_dense() if tensor.is_sparse else tensor


def run_on(device, row, sample):
    """(outputs, leaf gradients) of one sample on device, as host arrays."""
    arrays, flags = leaf_arrays(row, sample), requires_grad_of(sample)
    leaves = [tapegrad.tensor(array, dtype=tapegrad.float64, device=device, requires_grad=flag)
              for array, flag in zip(arrays, flags)]
    inputs = [apply_layout(leaf, layout) for leaf, layout in zip(leaves, layouts_of(sample))]
    # constants become tensors on the default device: cuda while check_on_device runs there
    constants = {name: as_lib(tapegrad, value) for name, value in sample.constants.items()}
    result = row.fn(tapegrad, *inputs, **constants)
    outputs = list(result) if isinstance(result, (tuple, list)) else [result]
    outputs = [out for out in outputs if isinstance(out, tapegrad.Tensor)]
    for out in outputs:
        if out.device.type != tapegrad.device(device).type:
            raise AssertionError(f"an output is on {out.device}, not {device}")
    differentiable = [out for out in outputs if out.requires_grad]
    if differentiable:
        tapegrad.autograd.backward(differentiable, [tapegrad.ones_like(out)
                                                    for out in differentiable])
    grads = [None if leaf.grad is None else _dense(leaf.grad).cpu().numpy() for leaf in leaves]
    return [out.detach().cpu().numpy() for out in outputs], grads


def _on_the_simplex(values, sample):
    dim = sample.constants.get("dim", -1)
    assert np.all((values >= 0) & (values <= 1))
    np.testing.assert_allclose(values.sum(dim), 1, rtol=1e-12)


def _one_hot(values, sample):
    assert set(np.unique(values)) <= {0.0, 1.0}
    assert np.all(values.sum(sample.constants.get("dim", -1)) == 1)


def _singular_values(values, sample):
    assert np.all(values >= 0) and np.all(np.diff(values, axis=-1) <= 0)


def _finite(values, sample):
    assert np.all(np.isfinite(values))


# Rows whose outputs are draws that are not certain, or depend on draws (the randomised
# low-rank SVDs' projections): the device's generator gives other numbers than the cpu's
# (Note [Two sources] in _random.py), so their outputs are checked for the cpu's dtype and
# shape, their support, and the same values from the same seed (the rows seed it themselves).
RANDOM_ROWS = {"gumbel_softmax": _on_the_simplex, "gumbel_softmax_hard": _one_hot,
               "svd_lowrank_S": _singular_values, "svd_lowrank_M": _singular_values,
               "pca_lowrank_S": _singular_values, "svd_lowrank_USV": _finite,
               "pca_lowrank_USV": _finite}
# ... and their gradients are the cpu's, except where they depend on the draws too (a
# softmax's outputs sum to 1 whatever the noise, so gumbel_softmax's summed output has none)
DRAWN_GRADIENTS = {name for name in RANDOM_ROWS if "lowrank" in name}


def check_on_device(row, sample):
    """The sample on cuda:0 gives the cpu's values and gradients (summation order may round
    differently on a device, as torch's CUDA kernels do: 1e-10); a random row's outputs are
    checked as RANDOM_ROWS says."""
    try:
        expected = run_on("cpu", row, sample)
    except Exception as error:  # a sample refused on purpose: the device refuses it alike
        expected = error
    tapegrad.set_default_device("cuda")  # tensors a row's function makes go there too
    try:
        got = run_on("cuda", row, sample)
        again = run_on("cuda", row, sample) if row.name in RANDOM_ROWS else got
    except Exception as error:
        if not isinstance(expected, Exception):
            raise
        assert (type(error), str(error)) == (type(expected), str(expected))
        return
    finally:
        tapegrad.set_default_device(None)
    assert not isinstance(expected, Exception), f"the cpu raised {expected!r}, the device not"
    for kind, want_all, got_all, again_all in zip(("output", "gradient"), expected, got, again):
        for i, (want, have, repeated) in enumerate(zip(want_all, got_all, again_all)):
            if want is None or have is None:
                assert want is have, f"{kind} {i}: {have} vs {want}"
                continue
            assert have.dtype == want.dtype and have.shape == want.shape, f"{kind} {i}"
            if row.name in RANDOM_ROWS:
                np.testing.assert_array_equal(repeated, have, err_msg=f"{kind} {i} again")
                if kind == "output":
                    RANDOM_ROWS[row.name](have, sample)
                if kind == "output" or row.name in DRAWN_GRADIENTS:
                    _finite(have, sample)
                    continue
            np.testing.assert_allclose(have, want, rtol=1e-10, atol=1e-12, equal_nan=True,
                                       err_msg=f"{kind} {i}")


def check_row_on_device(row):
    for sample in row.samples:
        try:
            check_on_device(row, sample)
        except Exception as error:
            raise AssertionError(f"{sample.label}: {type(error).__name__}: {error}") from error


@pytest.mark.parametrize("row", [
    pytest.param(row, id=row.name, marks=[pytest.mark.xfail(reason=XFAILS[row.name],
                                                            strict=not ON_CUPY)]
                 if row.name in XFAILS else [])
    for row in OP_DB])
def test_op_database_on_the_device(gpu, row):
    check_row_on_device(row)


if __name__ == "__main__":
    # python tests/test_device_double.py [--write-xfails]: each row's first failure on the
    # double, and the counts (a row is in XFAILS while any of its samples fails)
    import pathlib
    import sys
    import warnings
    warnings.filterwarnings("ignore")
    device_double.install(count=2)
    failures = {}
    for row in OP_DB:
        try:
            check_row_on_device(row)
        except AssertionError as error:
            failures[row.name] = str(error)[:240]
    # rows that differ from the cpu on purpose: their reason is why, not the first failure
    BY_DESIGN = {
        name: "torch's CUDA accepts only lstsq's 'gels' driver (and gives no rank or singular "
              "values); these samples use the cpu's other drivers"
        for name in ("linalg_lstsq_gelsd", "linalg_lstsq_gelss", "linalg_lstsq_rank",
                     "linalg_lstsq_residuals", "linalg_lstsq_singular_values")}
    BY_DESIGN["namespace_predicates"] = ("get_device() and typename() name the device, so "
                                         "a cuda tensor's differ from a cpu tensor's")
    failures.update((name, BY_DESIGN[name]) for name in failures.keys() & BY_DESIGN.keys())
    rows = {row.name for row in OP_DB}
    print(f"{len(rows) - len(failures)} of {len(rows)} op-database rows pass on the device "
          "double")
    if "--write-xfails" in sys.argv:
        lines = ['"""Op-database rows not yet device-generic: the first failure of each on the '
                 'test\ndouble (`python tests/test_device_double.py --write-xfails` writes it)."""',
                 "XFAILS = {"]
        lines += [f"    {name!r}: {reason.splitlines()[0]!r}," for name, reason in
                  sorted(failures.items())]
        lines.append("}")
        pathlib.Path(__file__).with_name("device_double_xfails.py").write_text(
            "\n".join(lines) + "\n")
