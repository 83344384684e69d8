"""The random generators (the cpu's, torch's mt19937 streams, and one per cuda device) with
their seeds and states, the samples each draws, and the in-place samplers behind
Tensor.uniform_, normal_, bernoulli_, exponential_ and random_.

Note [Two sources]: a tensor's samples come from its device's generator. The cpu's is torch's
engine with the transforms of torch's CPU kernels (_mt.py), so a seeded program draws torch's
numbers bit for bit. A cuda device's is a counter-based stream made on the device with its
array module (so nothing is drawn on the host and copied), with the same laws and other
numbers, as torch's CUDA generator has other numbers than its CPU one. Both sources offer the
same draws (_TorchDraws, _DeviceDraws); argument checks, complex parts, layouts and the nodes
recorded are written once, above them.
"""
from __future__ import annotations

import math
import numbers
from typing import TYPE_CHECKING, Any, Optional, Sequence, cast

import numpy as np

from . import _backend, _mt
from ._device import CPU, as_device, device as _device, generator_device, tensor_device
from ._warnings import warn

if TYPE_CHECKING:
    from ._tensor import Tensor

_DEFAULT_SEED = 67280421310721  # torch's default seed


class Generator:
    """torch.Generator. On the cpu, torch's CPU engine, a 32-bit Mersenne Twister (mt19937), so
    the distributions ported in _mt.py give torch's numbers bit for bit. A sampler not ported
    (numpy_generator: rrelu's slopes) draws from a NumPy generator seeded by one 64-bit draw of
    the engine per call (same law, other numbers), so the engine's state is the whole state,
    in torch's layout. On a cuda device: see _CudaGenerator."""

    def __new__(cls, device: Any = "cpu") -> "Generator":
        if cls is Generator and _is_cuda(device):
            cls = _CudaGenerator
        return super().__new__(cls)

    def __init__(self, device: Any = "cpu") -> None:
        self.device = generator_device(device)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed) % 2**64
        self._engine: Any = None  # built on the first draw (see engine)
        self.next_normal = None  # the second Box-Muller value of the scalar path
        return self

    forbidden = None  # while set, a message: every draw is refused (vmap's randomness="error")

    @property
    def engine(self) -> Any:
        """The mt19937 state after manual_seed, made on first use: it needs numpy.random, whose
        import alone would cost `import tapegrad` a tenth of its time."""
        if Generator.forbidden is not None:
            raise RuntimeError(Generator.forbidden)
        if self._engine is None:
            self._engine = _mt.engine(self._seed)
        return self._engine

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        entropy = cast(int, np.random.SeedSequence().entropy)
        return self.manual_seed(entropy % 2**63).initial_seed()

    def get_state(self) -> "Tensor":
        from ._tensor import Tensor
        return Tensor._make(_mt.pack_state(self))

    def set_state(self, new_state: "Tensor") -> "Generator":
        data = _state_bytes(new_state)
        if data.size != _mt.STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_mt.STATE_BYTES} but "
                               f"found the input RNG state size to be {data.size}")
        _mt.unpack_state(self, data)
        return self


def _is_cuda(value: Any) -> bool:
    """Whether torch.Generator(value) is a cuda generator this machine can make."""
    try:
        return as_device(value).type == "cuda" and _backend.backend_for("cuda") is not None
    except (TypeError, RuntimeError):  # not a device: generator_device raises torch's error
        return False


def _state_bytes(state: Any) -> np.ndarray:
    """A generator state's bytes, after torch's checks of the ByteTensor."""
    from ._tensor import Tensor
    if not isinstance(state, Tensor):
        raise TypeError(f"expected a torch.ByteTensor, but got {type_name(state)}")
    if state.dtype.name != "uint8" or state.device.type != "cpu":
        raise TypeError("RNG state must be a torch.ByteTensor")
    return state._data.reshape(-1)


# splitmix64's constants: the counter's step (2**64 / golden ratio) and its two mixers
_GOLDEN, _MIX1, _MIX2 = 0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9, 0x94D049BB133111EB


def _mixed(xp: Any, z: Any) -> Any:
    """splitmix64's finaliser on a uint64 array (in place): 64 well-mixed bits per value."""
    z ^= z >> xp.uint64(30)
    z *= xp.uint64(_MIX1)
    z ^= z >> xp.uint64(27)
    z *= xp.uint64(_MIX2)
    z ^= z >> xp.uint64(31)
    return z


class _CudaGenerator(Generator):
    """torch.Generator("cuda"): a counter-based stream, as torch's CUDA generator (Philox) is.
    Its state is the seed and the count of values drawn (16 bytes, torch's CUDA layout); the
    i-th value (from 1) is splitmix64's mix of key + i * golden, made on the device with its
    array module, so the same seed gives the same numbers on CuPy and on the test double."""

    def __init__(self, device: Any = "cuda") -> None:
        self.device = tensor_device(device)  # with its index (the current device's if none)
        self.manual_seed(_DEFAULT_SEED)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed, self.offset = int(seed) % 2**64, 0
        self._key = int(_mixed(np, np.array([self._seed], np.uint64))[0])  # seeds far apart
        return self

    def get_state(self) -> "Tensor":
        from ._tensor import Tensor
        return Tensor._make(np.array([self._seed, self.offset], "<u8").view(np.uint8))

    def set_state(self, new_state: "Tensor") -> "Generator":
        data = _state_bytes(new_state)
        if data.size not in (8, 16):  # torch takes a seed alone too
            raise RuntimeError("RNG state is wrong size")
        seed_and_offset = np.frombuffer(np.ascontiguousarray(data).tobytes(), "<u8")
        self.manual_seed(int(seed_and_offset[0]))
        self.offset = int(seed_and_offset[1]) if data.size == 16 else 0
        return self

    def bits(self, count: int, index: int) -> Any:
        """The next count values (uint64), made on cuda device index."""
        if Generator.forbidden is not None:
            raise RuntimeError(Generator.forbidden)
        start = (self._key + self.offset * _GOLDEN) % 2**64
        self.offset += count
        backend = _backend.backend_for("cuda")
        xp = backend.xp
        with backend.selected(index):
            z = xp.arange(1, count + 1, dtype=xp.uint64)  # from 1: a zero key would mix to 0
        z *= xp.uint64(_GOLDEN)
        z += xp.uint64(start)
        return _mixed(xp, z)


class _NumpyStream:
    """A NumPy generator for one sampling call, seeded from the engine on first use only (so
    that checking a generator= argument draws nothing)."""

    def __init__(self, generator: Generator) -> None:
        self._generator = generator
        self._numpy: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._numpy is None:
            self._numpy = np.random.default_rng(int(_mt.random64(self._generator, 1)[0]))
        return getattr(self._numpy, name)


default_generator = Generator()
_device_generators: dict[int, Generator] = {}  # cuda index -> its default generator
_devices_seed = [_DEFAULT_SEED]  # what torch.manual_seed last gave every device


def device_generator(index: int) -> Generator:
    """The default generator of cuda device index, made on first use (torch seeds devices
    lazily too: one made after torch.manual_seed starts from that seed)."""
    found = _device_generators.get(index)
    if found is None:
        found = _device_generators[index] = Generator(_device("cuda", index))
        found.manual_seed(_devices_seed[0])
    return found


def seed_devices(seed: int) -> None:
    """Every cuda device's generator seeded with seed, now and when it is made."""
    _devices_seed[0] = seed
    for generator in _device_generators.values():
        generator.manual_seed(seed)


def manual_seed(seed: int) -> Generator:
    """Seed the cpu generator and every cuda device's, as torch.manual_seed does."""
    generator = default_generator.manual_seed(seed)
    seed_devices(generator.initial_seed())
    return generator


def seed() -> int:
    chosen = default_generator.seed()
    seed_devices(chosen)
    return chosen


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> "Tensor":
    return default_generator.get_state()


def set_rng_state(new_state: "Tensor") -> None:
    default_generator.set_state(new_state)


def numpy_generator(generator: Optional[Generator] = None) -> Any:
    return _NumpyStream(torch_generator(generator))


compute_dtype = _mt.compute_dtype  # the dtype samples of a dtype are computed in


def torch_generator(generator: Optional[Generator] = None) -> Generator:
    return generator or default_generator


def draws(generator: Optional[Generator], device: Any) -> Any:
    """The draws for a tensor on device from generator= (None: the device's default
    generator), after torch's check that the generator is of the device's type."""
    if generator is None:
        if device.type == "cpu":
            return _DEFAULT_DRAWS
        generator = device_generator(device.index)
    elif generator.device.type != device.type:
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                           f"'{generator.device.type}'")
    if device.type == "cpu":
        return _TorchDraws(generator)
    return _DeviceDraws(generator, device.index)


class _TorchDraws:
    """The cpu generator's samples, flat in drawing order: torch's CPU kernels (_mt.py)."""
    xp = np

    def __init__(self, generator: Generator) -> None:
        self.generator = generator

    def uniform(self, count: int, dtype: np.dtype, low: float, high: float) -> np.ndarray:
        return _mt.uniform(self.generator, count, dtype, low, high)

    def normal(self, count: int, dtype: np.dtype, mean: float, std: float,
               contiguous: bool = True) -> np.ndarray:
        return _mt.normal(self.generator, count, dtype, mean, std, contiguous)

    def log_normal(self, count: int, mean: float, std: float) -> np.ndarray:
        return _mt.log_normal(self.generator, count, mean, std)

    def exponential(self, count: int, lambd: float) -> np.ndarray:
        return _mt.exponential(self.generator, count, lambd)

    def cauchy(self, count: int, median: float, sigma: float) -> np.ndarray:
        return _mt.cauchy(self.generator, count, median, sigma)

    def geometric(self, count: int, p: float) -> np.ndarray:
        return _mt.geometric(self.generator, count, p)

    def bernoulli(self, probabilities: Any) -> np.ndarray:
        return _mt.bernoulli(self.generator, probabilities)

    def bernoulli_number(self, shape: tuple, p: float) -> np.ndarray:
        return _mt.bernoulli(self.generator, np.full(shape, p, np.float64))

    def integers(self, count: int, low: int, span: int, wide: bool) -> np.ndarray:
        return _mt.integers(self.generator, count, low, span, wide)

    def permutation(self, n: int) -> np.ndarray:
        return _mt.permutation(self.generator, n)

    def poisson(self, rates: np.ndarray) -> np.ndarray:
        return _mt.poisson(self.generator, rates)

    def rounded(self, values: np.ndarray, dtype: np.dtype) -> np.ndarray:
        return _mt.rounded(values, dtype)


_DEFAULT_DRAWS = _TorchDraws(default_generator)


class _DeviceDraws:
    """A cuda generator's samples on device index, flat: each law a transform, written once on
    the device's array module, of the generator's uniform bits (Note [Two sources])."""

    def __init__(self, generator: Generator, index: int) -> None:
        self.generator, self.index = cast(_CudaGenerator, generator), index
        self.xp = _backend.backend_for("cuda").xp

    def unit(self, count: int, dtype: np.dtype) -> Any:
        """count uniforms on [0, 1) in float64 (53 bits) or float32 (24 bits)."""
        bits = self.generator.bits(count, self.index)
        if dtype == np.float64:
            return (bits >> self.xp.uint64(11)).astype(np.float64) * 2.0 ** -53
        return (bits >> self.xp.uint64(40)).astype(np.float32) * np.float32(2.0 ** -24)

    def standard_normal(self, count: int, dtype: np.dtype) -> Any:
        """count N(0, 1) samples: Box-Muller, both values of each pair used."""
        pairs = (count + 1) // 2
        uniform = self.unit(2 * pairs, dtype)
        radius = self.xp.sqrt(-2 * self.xp.log1p(-uniform[:pairs]))
        angle = (2 * math.pi) * uniform[pairs:]
        both = self.xp.concatenate([radius * self.xp.cos(angle), radius * self.xp.sin(angle)])
        return both[:count].astype(dtype, copy=False)

    def uniform(self, count: int, dtype: np.dtype, low: float, high: float) -> Any:
        compute = _mt.compute_dtype(dtype)
        sample = (self.unit(count, compute) * compute.type(high - low)
                  + compute.type(low)).astype(dtype)
        # a sample that rounds up to `to` becomes `from`, as in torch's kernels
        return self.xp.where(sample == dtype.type(high), dtype.type(low), sample)

    def normal(self, count: int, dtype: np.dtype, mean: float, std: float,
               contiguous: bool = True) -> Any:
        compute = _mt.compute_dtype(dtype)
        return self.standard_normal(count, compute) * compute.type(std) + compute.type(mean)

    def log_normal(self, count: int, mean: float, std: float) -> Any:
        return self.xp.exp(self.normal(count, np.dtype(np.float64), mean, std))

    def exponential(self, count: int, lambd: float) -> Any:
        return self.xp.log1p(-self.unit(count, np.dtype(np.float64))) * (-1.0 / lambd)

    def cauchy(self, count: int, median: float, sigma: float) -> Any:
        uniform = self.unit(count, np.dtype(np.float64))
        return self.xp.tan(math.pi * (uniform - 0.5)) * sigma + median

    def geometric(self, count: int, p: float) -> Any:
        # 1 - u is in (0, 1]: its logarithm is finite, and 1 - u = 1 gives the first trial
        uniform = 1 - self.unit(count, np.dtype(np.float64))
        return self.xp.maximum(self.xp.ceil(self.xp.log(uniform) / math.log1p(-p)), 1)

    def bernoulli(self, probabilities: Any) -> Any:
        dtype = np.dtype(np.float64 if probabilities.dtype == np.float64 else np.float32)
        uniform = self.unit(probabilities.size, dtype).reshape(probabilities.shape)
        return uniform < probabilities.astype(dtype, copy=False)

    def bernoulli_number(self, shape: tuple, p: float) -> Any:
        return self.unit(math.prod(shape), np.dtype(np.float64)).reshape(shape) < p

    def integers(self, count: int, low: int, span: int, wide: bool) -> Any:
        bits = self.generator.bits(count, self.index)
        if span == 2**64:
            return bits.view(np.int64)
        return (bits % self.xp.uint64(span)).astype(np.int64) + np.int64(low)

    def permutation(self, n: int) -> Any:
        """The order of n random keys: each permutation equally likely (ties of 64-bit keys
        aside)."""
        return self.xp.argsort(self.generator.bits(n, self.index)).astype(np.int64)

    def poisson(self, rates: Any) -> Any:
        return _device_poisson(self, rates)

    def rounded(self, values: Any, dtype: np.dtype) -> Any:
        return values.astype(dtype, copy=False)


def _device_poisson(source: _DeviceDraws, rates: Any) -> Any:
    """torch.poisson's laws on a device: Knuth's product of uniforms below rate 10, Hoermann's
    transformed rejection from 10 on, as torch's kernels; each round draws for every element
    and keeps the draws of those still open, so the loop runs over rounds, not elements."""
    xp, double = source.xp, np.dtype(np.float64)
    if not all_true(rates >= 0):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    rates = rates.astype(np.float64)
    samples = xp.zeros_like(rates)  # whole numbers, as doubles until the caller's dtype
    # Knuth: the number of uniforms whose running product stays above exp(-rate)
    limit, product = xp.exp(-rates), xp.ones_like(rates)
    open_ = (rates > 0) & (rates < 10)
    while bool(open_.any()):
        product = xp.where(open_, product * source.unit(rates.size, double).reshape(rates.shape),
                           product)
        open_ &= product > limit
        samples += open_
    # transformed rejection (PTRS)
    large = xp.where(rates >= 10, rates, 10.0)
    root, log_rate = xp.sqrt(large), xp.log(large)
    b = 0.931 + 2.53 * root
    a = -0.059 + 0.02483 * b
    log_inverse_alpha = xp.log(1.1239 + 1.1328 / (b - 3.4))
    vr = 0.9277 - 3.6224 / (b - 2)
    open_ = rates >= 10
    with np.errstate(all="ignore"):  # the draws rejected may overflow on the way
        while bool(open_.any()):
            u = source.unit(rates.size, double).reshape(rates.shape) - 0.5
            v = source.unit(rates.size, double).reshape(rates.shape)
            us = 0.5 - xp.abs(u)
            k = xp.floor((2 * a / us + b) * u + large + 0.43)
            squeezed = (us >= 0.07) & (v <= vr)
            possible = (k >= 0) & ~((us < 0.013) & (v > us))
            bound = -large + k * log_rate - _log_factorial(xp, xp.maximum(k, 0))
            test = xp.log(v) + log_inverse_alpha - xp.log(a / (us * us) + b)
            accepted = open_ & (squeezed | (possible & (test <= bound)))
            samples = xp.where(accepted, k, samples)
            open_ &= ~accepted
    return samples


def _log_factorial(xp: Any, k: Any) -> Any:
    """log(k!) for whole k >= 0 (neither NumPy nor CuPy has lgamma): Stirling's series for
    (k + 10)!, within 1e-12 there, less the logarithms of k + 1 .. k + 10."""
    x = k + 11.0
    result = ((x - 0.5) * xp.log(x) - x + 0.5 * math.log(2 * math.pi)
              + 1 / (12 * x) - 1 / (360 * x ** 3) + 1 / (1260 * x ** 5))
    for step in range(1, 11):
        result -= xp.log(k + step)
    return result


# ---- in-place sampling: Tensor.uniform_, normal_, bernoulli_, exponential_, random_, ... ---
# Values are torch's (_mt.py): drawn element by element in the order torch's kernels visit the
# tensor (Note [Visiting order]), complex tensors as their real and imaginary parts. Samples are
# written through the in-place path with the node torch records (UniformBackward0, ...), so a
# tensor that requires grad gets torch's leaf error, a tensor in a graph a zero gradient, and
# each write bumps the version once.

def uniform_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with samples from the uniform distribution on [from, to)."""
    (low, high), generator = float_arguments("uniform_", args, kwargs, {"from": 0.0, "to": 1.0})
    _check_uniform(tensor, low, high)
    return _fill(tensor, "uniform_", generator, lambda source, count, dtype, contiguous:
                 source.uniform(count, dtype, low, high))


def normal_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with samples from the normal distribution N(mean, std**2); a complex tensor
    gets std / sqrt(2) in each part."""
    (mean, std), generator = float_arguments("normal_", args, kwargs, {"mean": 0.0, "std": 1.0})
    check_normal_std(std)
    check_normal_dtype(tensor.dtype)
    std = std / math.sqrt(2) if tensor.dtype.is_complex else std
    return _fill(tensor, "normal_", generator, lambda source, count, dtype, contiguous:
                 source.normal(count, dtype, mean, std, contiguous))


def log_normal_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with exp(N(mean, std**2)) samples."""
    (mean, std), generator = float_arguments("log_normal_", args, kwargs,
                                             {"mean": 1.0, "std": 2.0})
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not tensor.dtype.is_floating_point:
        raise not_implemented("log_normal_cpu", tensor.dtype)
    return _fill(tensor, "log_normal_", generator, lambda source, count, dtype, contiguous:
                 source.log_normal(count, mean, std))


def exponential_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with samples from the exponential distribution of rate lambd:
    -log(1 - u) / lambd for u uniform on [0, 1), in float64 (float32 draws of u would give
    a zero sample once in 2**24)."""
    (lambd,), generator = float_arguments("exponential_", args, kwargs, {"lambd": 1.0})
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _check_continuous("Exponential", tensor, tensor.dtype.legacy_name)
    return _fill(tensor, "exponential_", generator, lambda source, count, dtype, contiguous:
                 source.exponential(count, lambd))


def cauchy_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with samples from the Cauchy distribution: median + sigma * tan(pi (u - 1/2))
    for u uniform on [0, 1)."""
    (median, sigma), generator = float_arguments("cauchy_", args, kwargs,
                                                 {"median": 0.0, "sigma": 1.0})
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _check_continuous("Cauchy", tensor, _C_TYPE_NAMES[tensor.dtype.name])
    return _fill(tensor, "cauchy_", generator, lambda source, count, dtype, contiguous:
                 source.cauchy(count, median, sigma))


def geometric_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with the number of Bernoulli(p) trials up to the first success (1, 2, ...):
    ceil(log(u) / log(1 - p)) for u uniform on [0, 1)."""
    (p,), generator = float_arguments("geometric_", args, kwargs, {"p": REQUIRED})
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if tensor.dtype.is_complex or tensor.dtype.name == "bool":
        raise not_implemented("geometric_cpu", tensor.dtype)
    return _fill(tensor, "geometric_", generator, lambda source, count, dtype, contiguous:
                 source.geometric(count, p))


def bernoulli_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with 1 with probability p (a number, or a tensor broadcast to tensor's
    shape), else 0."""
    from ._tensor import Tensor
    p, generator = _bernoulli_arguments(args, kwargs)
    if isinstance(p, Tensor):
        if tensor.numel() == 0:  # torch's kernel returns at once, before any check of p
            return _fill(tensor, "bernoulli_tensor_", generator, lambda like, p: like, p)
        check_bernoulli_tensor(tensor.dtype, p)
        expanded = p.detach().expand(tensor.shape)
        check_probabilities(expanded._data)
        source = draws(generator, tensor.device)
        target = tensor._data  # the kernel visits it and p together: both strides count
        if _backend.on_device(target):  # Note [Two sources]: no visiting order to follow
            return _fill(tensor, "bernoulli_tensor_", generator, lambda like, probabilities:
                         source.bernoulli(source.xp.broadcast_to(probabilities, like.shape)), p)
        order = _visit_order(target, p._data)
        return _fill(tensor, "bernoulli_tensor_", generator, lambda like, probabilities:
                     _laid_out(target, source.bernoulli(_in_visit_order(
                         np.broadcast_to(probabilities, like.shape), order)), order), p)
    check_bernoulli_scalar(tensor.dtype, p, "bernoulli_")
    return _fill(tensor, "bernoulli_", generator, lambda source, count, dtype, contiguous:
                 source.bernoulli_number((count,), p))


def random_(tensor: "Tensor", *args: Any, **kwargs: Any) -> "Tensor":
    """Fill tensor with integers uniform on [from, to - 1]; without `to`, up to the largest
    value the dtype holds exactly (2**mantissa digits for floats)."""
    low, high, generator = _random_arguments(args, kwargs)
    overload = 2 if low is None else 1 if "from" not in kwargs and len(args) == 1 else 0
    unbounded = low is None  # random_()
    low, top = _random_range(tensor, low, high)
    span = top - low + 1
    # random_() takes 64-bit draws for int64 and float64 only; random_(from, to) whenever its
    # range (after the float bounds' rounding) reaches 2**28, in every dtype
    is_wide = tensor.dtype.name in ("int64", "float64") if unbounded else span >= 2**28
    return _fill(tensor, f"random_{overload}", generator, lambda source, count, dtype,
                 contiguous: source.integers(count, low, span, is_wide))


def uniform_array(generator: Optional[Generator], shape: tuple, dtype: Any, low: float,
                  high: float, layout: Any = None, device: Any = CPU) -> Any:
    """An array of dtype filled as uniform_ fills a tensor (laid out as `layout`, an array of
    that shape, when given: its strides say the order of the draws, its device the device)."""
    return _drawn_array(generator, shape, dtype, layout, device, lambda source, count, dtype,
                        contiguous: source.uniform(count, dtype, low, high))


def normal_array(generator: Optional[Generator], shape: tuple, dtype: Any, mean: float,
                 std: float, layout: Any = None, device: Any = CPU) -> Any:
    """An array of dtype filled as normal_ fills a tensor (layout: as for uniform_array)."""
    std = std / math.sqrt(2) if dtype.is_complex else std
    return _drawn_array(generator, shape, dtype, layout, device, lambda source, count, dtype,
                        contiguous: source.normal(count, dtype, mean, std, contiguous))


def _drawn_array(generator, shape, dtype, layout, device, sample):
    if layout is not None:
        device = _backend.device_of(layout)
    target = _backend.empty(shape, dtype.numpy, device) if layout is None else layout
    return _drawn(target, draws(generator, device), sample)


def _drawn(array, source, sample):
    """sample(source, count, real dtype, contiguous) drawn for array's elements (the parts of
    complex ones) in the order torch visits them, in array's shape and dtype."""
    real = np.empty(0, array.dtype).real.dtype
    if _backend.on_device(array):  # Note [Two sources]: no visiting order to follow
        if array.dtype.kind == "c":
            parts = sample(source, 2 * array.size, real, True).astype(real, copy=False)
            parts = parts.reshape(array.shape + (2,))
            return (parts[..., 0] + 1j * parts[..., 1]).astype(array.dtype)
        flat = sample(source, array.size, real, True)
        return flat.astype(array.dtype, copy=False).reshape(array.shape)
    if array.dtype.kind == "c":  # drawn as torch.view_as_real(array)
        parts = np.lib.stride_tricks.as_strided(
            array.real, array.shape + (2,), array.strides + (real.itemsize,))
        return _drawn(parts, source, sample).view(array.dtype).reshape(array.shape)
    flat = np.asarray(sample(source, array.size, real, array.flags.c_contiguous))
    if _mt.is_floating(array.dtype):
        flat = _mt.rounded(flat, array.dtype)
    return _laid_out(array, flat, _visit_order(array)).astype(array.dtype, copy=False)


# Note [Visiting order]: a serial kernel draws one sample per element in the order torch's
# TensorIterator visits them (ops/strided.iteration_order): memory order for a dense tensor.
# Where elements share memory (an unfolded tensor), the sample drawn last for a place stays.

def _visit_order(array, *inputs):
    """The C-order indices of array's elements in the order torch visits them with the
    kernel's inputs (broadcast to array's shape); None for C order."""
    if array.flags.c_contiguous and all(other.flags.c_contiguous for other in inputs):
        return None
    from .ops import strided
    strides = [array.strides] + [np.broadcast_to(o, array.shape).strides for o in inputs]
    return strided.iteration_order(array.shape, strides)


def _in_visit_order(values, order):
    """values (in the visited array's shape) flat in visiting order."""
    return values.reshape(-1) if order is None else values.reshape(-1)[order]


def _laid_out(array, flat, order):
    """flat samples, drawn in visiting order, in array's shape (Note [Visiting order])."""
    if order is None:
        return flat.reshape(array.shape)
    from .ops import strided
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)  # when each element is visited
    positions = strided.shared_positions(array)
    if positions is not None:  # each element gets the last sample written to its place
        places, where = np.unique(positions.reshape(-1), return_inverse=True)
        last = np.full(places.size, -1)
        np.maximum.at(last, where.reshape(-1), rank)
        rank = last[where.reshape(-1)]
    return flat[rank].reshape(array.shape)


def bernoulli_mask(generator: Optional[Generator], shape: tuple, p: float,
                   device: Any = CPU) -> Any:
    """True with probability p (a number), as bernoulli_(p) draws it, on device."""
    return draws(generator, device).bernoulli_number(tuple(shape), p)


def normal_sample(source: Any, mean: Any, std: Any, numpy_dtype: np.dtype, shape: tuple) -> Any:
    """torch.normal's samples from source (draws()): normal_(mean, std) for two numbers,
    normal_(0, std) + mean for a mean array and a number std, else normal_(0, 1) * std + mean."""
    count = math.prod(shape)
    scale = 1 / math.sqrt(2) if numpy_dtype.kind == "c" else 1.0
    parts = np.empty(0, numpy_dtype).real.dtype

    def normal(mean, std):
        values = source.normal(count * (2 if scale != 1 else 1), parts, mean, std * scale)
        return source.rounded(values, parts).view(numpy_dtype).reshape(shape)
    if _ndim(std) == 0 and _ndim(mean) == 0:
        return normal(mean, std)
    sample = normal(0.0, std if _ndim(std) == 0 else 1.0)
    if _ndim(std) != 0:
        sample = (sample * std).astype(numpy_dtype)
    return (sample + mean).astype(numpy_dtype)


def _ndim(value):
    return getattr(value, "ndim", 0)  # numbers have none (np.ndim refuses device arrays)


def permutation(generator: Optional[Generator], n: int, device: Any = CPU) -> Any:
    return draws(generator, device).permutation(n)


def _fill(tensor, sampler, generator, sample, *tensors):
    """Write samples into tensor in place, recording the node torch records for `sampler`
    (ops/sampling.py declares one op per sampler). sample(source, count, dtype, contiguous)
    draws them flat for _drawn; with tensors, sample(array, *their arrays) draws them all."""
    from .ops import inplace, sampling
    target = tensor._data  # its strides say the order of the draws, even if a copy is filled
    if tensors:
        draw = sample
    else:
        source = draws(generator, tensor.device)
        draw = lambda like: _drawn(target, source, sample)  # noqa: E731
    drawn = []

    def draw_once(*arrays):
        # torch draws once per element: where elements share memory, the in-place path may
        # rerun the op to write them in turn, and must get the same samples
        if not drawn:
            drawn.append(draw(*arrays))
        return drawn[0]
    return inplace(sampling.FILLS[sampler], tensor, *tensors, draw_once)


# ---- checks and draws shared with ops/sampling.py (torch.bernoulli, torch.normal, ...) ---------

def check_normal_std(std: float) -> None:
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def check_normal_dtype(dtype: Any) -> None:
    if not (dtype.is_floating_point or dtype.is_complex):
        raise not_implemented("normal_kernel_cpu", dtype)


def check_bernoulli_tensor(dtype: Any, p: Any) -> None:
    """torch's checks of bernoulli's probabilities tensor p for a result of dtype."""
    if dtype.is_complex:
        raise not_implemented("bernoulli_tensor_cpu_self_", dtype)
    if not p.dtype.is_floating_point:
        raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)


def all_true(condition: Any) -> bool:
    """Whether every element of a boolean array (on any device) is true."""
    return bool(_backend.array_module(condition).all(condition))


def check_probabilities(probabilities: Any) -> None:
    if not all_true((probabilities >= 0) & (probabilities <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


def check_bernoulli_scalar(dtype: Any, p: Any, name: str) -> None:
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={p:g}")
    if dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", dtype)


def _check_continuous(name, tensor, type_name):
    if not tensor.dtype.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {type_name}")


def not_implemented(kernel: str, dtype: Any) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype.legacy_name}\'')


# C++ type names in torch's messages (bounds checks see complex tensors as their parts)
_C_TYPE_NAMES = {"float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
                 "float64": "double", "bool": "bool", "uint8": "unsigned char",
                 "int8": "signed char", "int16": "short int", "int32": "int",
                 "int64": "long int", "complex64": "c10::complex<float>",
                 "complex128": "c10::complex<double>"}
_LIMITS_NAMES = {"float16": "Half", "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}


def _value_type(tensor):
    """The NumPy dtype of one real value of tensor (complex64 -> float32)."""
    return np.empty(0, tensor._data.dtype).real.dtype


def _check_in_bounds(value, name, low, high, value_type):
    if not low <= value <= high:  # also false for nan
        raise RuntimeError(f"{name} is out of bounds for {_C_TYPE_NAMES[value_type.name]}")


def _check_uniform(tensor, low, high):
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise not_implemented("check_uniform_bounds", tensor.dtype)
    value_type = _value_type(tensor)
    largest = float(np.finfo(value_type).max)
    _check_in_bounds(low, "from", -largest, largest, value_type)
    _check_in_bounds(high, "to", -largest, largest, value_type)
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={low:g} > to={high:g}")
    if high - low > largest:
        raise RuntimeError(f"uniform_ expects to-from <= std::numeric_limits<"
                           f"{_LIMITS_NAMES[value_type.name]}>::max(), but found to={high:g} "
                           f"and from={low:g} which result in to-from to exceed the limit")


def _random_range(tensor, low, high):
    """random_'s inclusive range [low, top] after torch's checks; low None means random_()."""
    dtype = tensor.dtype
    if low is None:
        if dtype.is_complex:
            raise not_implemented("random_kernel_cpu", dtype)
        return 0, _largest_exact(tensor)
    if high is not None and low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if high is None and low == -2**63:  # torch's full 64-bit range, a kernel of its own
        _check_full_range_dtype(tensor)
        return low, 2**63 - 1
    if dtype.is_complex:
        where = "check_random_bounds" if high is not None else "random_from_to_impl"
        raise RuntimeError(f"{where} handles only integral, floating-point and boolean types")
    if dtype.is_floating_point:
        low = _inside_after_cast(tensor, low, 1)
        high = None if high is None else _inside_after_cast(tensor, high, -1)
        if high is not None and low >= high:
            raise RuntimeError("random_ expects 'from' casted to dtype to be less than 'to' "
                               f"casted to dtype, but got from={low} >= to={high}")
    top = _largest_exact(tensor) if high is None else high - 1
    if high is None and dtype.is_floating_point and low >= top:
        raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to "
                           f"'to_inc' casted to dtype, but got from={low} > to_inc={top}")
    _check_random_bounds(tensor, low, top)
    return low, top


def _check_full_range_dtype(tensor):
    """The full-range kernel's refusals (an empty tensor returns before it runs): the small
    integer types reach its own check, the other dtypes lack a loop."""
    kernel, name = "random_full_64_bits_range_kernel_cpu", tensor.dtype.name
    if tensor.numel() == 0 or name in ("int64", "float64", "float32", "bfloat16"):
        return
    if name in ("int8", "int16", "int32", "uint8"):
        raise RuntimeError(f"{kernel} handles only int64, double, float and bfloat16")
    raise not_implemented(kernel, tensor.dtype)


def _inside_after_cast(tensor, bound, step):
    """torch's update_from (step 1) and update_to (step -1): a bound whose neighbour inside
    the range rounds outside it in the tensor's dtype moves inward by one of the dtype's
    steps, so that no sample rounds out of the range."""
    neighbour = np.array([bound + step], np.int64)
    rounded = _mt.to_int64(float(_mt.rounded(neighbour, np.dtype(tensor.dtype.numpy))[0]))
    if (rounded >= bound) if step > 0 else (rounded < bound):
        return bound
    digits = np.finfo(_value_type(tensor)).nmant + 1
    return rounded + step * (1 << (abs(bound + step).bit_length() - digits))


def _largest_exact(tensor):
    """The top of random_'s default range: 2**digits for floats, the maximum for integers."""
    value_type = _value_type(tensor)
    if tensor.dtype.is_floating_point:
        return 2 ** (np.finfo(value_type).nmant + 1)
    return _integer_limits(value_type)[1]


def _integer_limits(value_type):
    if value_type == np.bool_:
        return 0, 1
    return int(np.iinfo(value_type).min), int(np.iinfo(value_type).max)


def _check_random_bounds(tensor, low, top):
    value_type = _value_type(tensor)
    if not tensor.dtype.is_floating_point:
        _check_in_bounds(low, "from", *_integer_limits(value_type), value_type)
        _check_in_bounds(top, "to - 1", *_integer_limits(value_type), value_type)
        return
    largest = float(np.finfo(value_type).max)
    digits = np.finfo(value_type).nmant + 1
    for value, name in ((low, "from"), (top, "to - 1")):
        _check_in_bounds(value, name, -largest, largest, value_type)
        if not -2 ** digits <= value <= 2 ** digits:
            warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                 f"precision limitations {_C_TYPE_NAMES[value_type.name]} can support "
                 "discrete uniform distribution only within this range. This warning "
                 "will become an error in version 1.7 release, please fix the code in "
                 "advance", UserWarning)


# ---- torch's argument parsing for these methods --------------------------------------------

REQUIRED = object()  # a parameter without a default
_OVERLOADS = {
    "bernoulli_": (" * (Tensor p, *, torch.Generator generator = None)",
                   " * (float p = 0.5, *, torch.Generator generator = None)"),
    "random_": (" * (*, torch.Generator generator = None)",
                " * (int from, int to, *, torch.Generator generator = None)",
                " * (int to, *, torch.Generator generator = None)"),
}


def float_arguments(name: str, args: Sequence[Any], kwargs: dict[str, Any],
                    defaults: dict[str, Any]) -> tuple[list[float], Optional[Generator]]:
    """Bind float parameters (name -> default or REQUIRED) and the keyword generator as torch's
    parser does; returns the floats and the generator."""
    params = list(defaults)
    _check_positional_count(name, args, [defaults[p] for p in params])
    unknown = [key for key in kwargs if key not in params and key != "generator"]
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
    values = []
    for position, param in enumerate(params):
        given_by_position = position < len(args)
        if given_by_position and param in kwargs:
            raise TypeError(f"{name}() got multiple values for argument '{param}'")
        value = args[position] if given_by_position else kwargs.get(param, defaults[param])
        if value is REQUIRED:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{param}"')
        number = as_number(value)
        if number is None:
            where = f" (position {position + 1})" if given_by_position else ""
            raise TypeError(f"{name}(): argument '{param}'{where} must be float, not "
                            f"{type_name(value)}")
        values.append(float(number))
    return values, checked_generator(name, kwargs.get("generator"))


def _check_positional_count(name, args, defaults):
    if len(args) <= len(defaults):
        return
    required = sum(default is REQUIRED for default in defaults)
    if required == len(defaults):
        takes = f"{required} positional argument{'s' * (required != 1)}"
    else:
        takes = f"from {required} to {len(defaults)} positional arguments"
    raise TypeError(f"{name}() takes {takes} but {len(args)} were given")


def bind_arguments(name: str, params: Sequence[tuple[str, Any, Any]], args: Sequence[Any],
                   kwargs: dict[str, Any]) -> tuple[list[Any], Optional[Generator]]:
    """Bind (name, type, default or REQUIRED) parameters and the keyword generator with
    torch's messages; returns the values and the generator (a torch.Generator or None)."""
    from ._tensor import Tensor
    defaults = [default for _, _, default in params]
    _check_positional_count(name, args, defaults)
    names = [param for param, _, _ in params]
    unknown = [key for key in kwargs if key not in names and key != "generator"]
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
    values = []
    for position, (param, kind, default) in enumerate(params):
        given_by_position = position < len(args)
        value = args[position] if given_by_position else kwargs.get(param, default)
        if value is REQUIRED:
            raise TypeError(f'{name}() missing 1 required positional arguments: "{param}"')
        fits = is_int(value) if kind is int else isinstance(value, kind)
        if not fits:
            where = f" (position {position + 1})" if given_by_position else ""
            kind_name = "Tensor" if kind is Tensor else kind.__name__
            raise TypeError(f"{name}(): argument '{param}'{where} must be {kind_name}, not "
                            f"{type_name(value)}")
        values.append(value)
    generator = kwargs.get("generator")
    checked_generator(name, generator)
    return values, generator


def checked_generator(name: str, generator: Any,
                      position: Optional[int] = None) -> Optional[Generator]:
    """A generator= argument (a Generator, or None for the tensor's device's default), after
    torch's type check."""
    if not is_generator(generator):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{name}(): argument 'generator'{where} must be torch.Generator, not "
                        f"{type_name(generator)}")
    return generator


def _bernoulli_arguments(args, kwargs):
    """p (a float or a Tensor) and the generator, from bernoulli_'s two overloads."""
    from ._tensor import Tensor
    bound = dict(kwargs)
    twice = bool(args) and "p" in bound
    bound.update(zip(("p",), args))
    p, generator = bound.pop("p", 0.5), bound.pop("generator", None)
    number = None if isinstance(p, Tensor) else as_number(p)
    if (len(args) > 1 or twice or bound or (number is None and not isinstance(p, Tensor))
            or not is_generator(generator)):
        raise invalid_combination("bernoulli_", args, kwargs, _OVERLOADS["bernoulli_"])
    return (p if number is None else float(number)), generator


def _random_arguments(args, kwargs):
    """(from, to, generator) from random_'s overloads: (), (to) or (from, to); from is
    None for random_() and to None for "up to the dtype's top"."""
    if len(args) > 2:
        raise TypeError(f"random_() takes 2 positional arguments but {len(args)} were given")
    bound = dict(kwargs)
    generator = bound.pop("generator", None)
    names = ("to",) if len(args) == 1 and "to" not in bound else ("from", "to")
    bound.update(zip(names, args))
    if not bound:
        low, high, valid = None, None, True
    elif set(bound) == {"to"}:
        low, high, valid = 0, bound["to"], is_int(bound["to"])
    elif set(bound) == {"from", "to"}:  # here `to` may be None
        low, high = bound["from"], bound["to"]
        valid = is_int(low) and (high is None or is_int(high))
    else:
        valid = False
    if not valid or not is_generator(generator):
        raise invalid_combination("random_", args, kwargs, _OVERLOADS["random_"])
    check_long_arguments(low, high)
    return low, high, generator


def check_long_arguments(*values: Any) -> None:
    """torch's parser error for an int bound that int64 cannot hold (2**63 included)."""
    for value in values:
        if is_int(value) and not -2**63 <= value < 2**63:
            raise ValueError("Overflow when unpacking long long")


def is_generator(value: Any) -> bool:
    return value is None or isinstance(value, Generator)


def is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_number(value: Any) -> Any:
    """A real number from a Python/NumPy number or a one-element Tensor; None otherwise."""
    from ._tensor import Tensor
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.item()
    return value if isinstance(value, numbers.Real) else None


def type_name(value: Any) -> str:
    """A value's type as torch's argument parser names it (Tensor, torch.dtype, float, ...)."""
    from ._tensor import Tensor
    if isinstance(value, Tensor):
        return "Tensor"
    if isinstance(value, Generator):
        return "torch.Generator"
    if type(value).__module__.startswith("tapegrad") and type(value).__name__ in (
            "dtype", "device", "memory_format", "layout"):
        return f"torch.{type(value).__name__}"
    return type(value).__name__


def invalid_combination(name: str, args: Sequence[Any], kwargs: dict[str, Any],
                        overloads: Sequence[str]) -> TypeError:
    """torch's TypeError when no overload of a function matches the arguments."""
    got = ", ".join([type_name(a) for a in args]
                    + [f"{key}={type_name(value)}" for key, value in kwargs.items()])
    if kwargs and not args:
        got += ", "  # torch's own formatting
    lines = "\n".join(overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{lines}\n")
