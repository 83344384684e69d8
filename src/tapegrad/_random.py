"""The global random generator behind rand/randn/randint and their seeds, and the in-place
samplers behind Tensor.uniform_, normal_, bernoulli_, exponential_ and random_."""
import math
import numbers

import numpy as np

from . import _mt
from ._device import generator_device
from ._warnings import warn


class Generator:
    """torch.Generator: torch's CPU engine, a 32-bit Mersenne Twister (mt19937), so the
    distributions ported in _mt.py give torch's numbers bit for bit. A sampler not ported
    (numpy_generator: rrelu's slopes) draws from a NumPy generator seeded by one 64-bit draw of
    the engine per call (same law, other numbers), so the engine's state is the whole state,
    in torch's layout."""

    def __init__(self, device="cpu"):
        self.device = generator_device(device)
        self.manual_seed(67280421310721)  # torch's default seed

    def manual_seed(self, seed):
        self._seed = int(seed) % 2**64
        self._engine = None  # built on the first draw (see engine)
        self.next_normal = None  # the second Box-Muller value of the scalar path
        return self

    forbidden = None  # while set, a message: every draw is refused (vmap's randomness="error")

    @property
    def engine(self):
        """The mt19937 state after manual_seed, made on first use: it needs numpy.random, whose
        import alone would cost `import tapegrad` a tenth of its time."""
        if Generator.forbidden is not None:
            raise RuntimeError(Generator.forbidden)
        if self._engine is None:
            self._engine = _mt.engine(self._seed)
        return self._engine

    def initial_seed(self):
        return self._seed

    def seed(self):
        return self.manual_seed(np.random.SeedSequence().entropy % 2**63).initial_seed()

    def get_state(self):
        from ._tensor import Tensor
        return Tensor._make(_mt.pack_state(self))

    def set_state(self, state):
        from ._tensor import Tensor
        if not isinstance(state, Tensor):
            raise TypeError(f"expected a torch.ByteTensor, but got {type_name(state)}")
        if state.dtype.name != "uint8":
            raise TypeError("RNG state must be a torch.ByteTensor")
        if state.numel() != _mt.STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_mt.STATE_BYTES} but "
                               f"found the input RNG state size to be {state.numel()}")
        _mt.unpack_state(self, state._data.reshape(-1))
        return self


class _NumpyStream:
    """A NumPy generator for one sampling call, seeded from the engine on first use only (so
    that checking a generator= argument draws nothing)."""

    def __init__(self, generator):
        self._generator = generator
        self._numpy = None

    def __getattr__(self, name):
        if self._numpy is None:
            self._numpy = np.random.default_rng(int(_mt.random64(self._generator, 1)[0]))
        return getattr(self._numpy, name)


default_generator = Generator()


def manual_seed(seed):
    return default_generator.manual_seed(seed)


def seed():
    return default_generator.seed()


def initial_seed():
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state):
    default_generator.set_state(state)


def numpy_generator(generator=None):
    return _NumpyStream(torch_generator(generator))


def torch_generator(generator=None):
    return generator or default_generator


# ---- in-place sampling: Tensor.uniform_, normal_, bernoulli_, exponential_, random_, ... ---
# Values are torch's (_mt.py): drawn element by element in the order torch's kernels visit the
# tensor (Note [Visiting order]), complex tensors as their real and imaginary parts. Samples are
# written through the in-place path with the node torch records (UniformBackward0, ...), so a
# tensor that requires grad gets torch's leaf error, a tensor in a graph a zero gradient, and
# each write bumps the version once.

def uniform_(tensor, *args, **kwargs):
    """Fill tensor with samples from the uniform distribution on [from, to)."""
    (low, high), _ = float_arguments("uniform_", args, kwargs, {"from": 0.0, "to": 1.0})
    _check_uniform(tensor, low, high)
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "uniform_", lambda count, dtype, contiguous: _mt.uniform(
        generator, count, dtype, low, high))


def normal_(tensor, *args, **kwargs):
    """Fill tensor with samples from the normal distribution N(mean, std**2); a complex tensor
    gets std / sqrt(2) in each part."""
    (mean, std), _ = float_arguments("normal_", args, kwargs, {"mean": 0.0, "std": 1.0})
    check_normal_std(std)
    check_normal_dtype(tensor.dtype)
    std = std / math.sqrt(2) if tensor.dtype.is_complex else std
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "normal_", lambda count, dtype, contiguous: _mt.normal(
        generator, count, dtype, mean, std, contiguous))


def log_normal_(tensor, *args, **kwargs):
    """Fill tensor with exp(N(mean, std**2)) samples."""
    (mean, std), _ = float_arguments("log_normal_", args, kwargs, {"mean": 1.0, "std": 2.0})
    if not std > 0.0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if not tensor.dtype.is_floating_point:
        raise not_implemented("log_normal_cpu", tensor.dtype)
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "log_normal_", lambda count, dtype, contiguous: _mt.log_normal(
        generator, count, mean, std))


def exponential_(tensor, *args, **kwargs):
    """Fill tensor with samples from the exponential distribution of rate lambd:
    -log(1 - u) / lambd for u uniform on [0, 1), in float64 (float32 draws of u would give
    a zero sample once in 2**24)."""
    (lambd,), _ = float_arguments("exponential_", args, kwargs, {"lambd": 1.0})
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _check_continuous("Exponential", tensor, tensor.dtype.legacy_name)
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "exponential_", lambda count, dtype, contiguous: _mt.exponential(
        generator, count, lambd))


def cauchy_(tensor, *args, **kwargs):
    """Fill tensor with samples from the Cauchy distribution: median + sigma * tan(pi (u - 1/2))
    for u uniform on [0, 1)."""
    (median, sigma), _ = float_arguments("cauchy_", args, kwargs,
                                         {"median": 0.0, "sigma": 1.0})
    if not sigma > 0.0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _check_continuous("Cauchy", tensor, _C_TYPE_NAMES[tensor.dtype.name])
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "cauchy_", lambda count, dtype, contiguous: _mt.cauchy(
        generator, count, median, sigma))


def geometric_(tensor, *args, **kwargs):
    """Fill tensor with the number of Bernoulli(p) trials up to the first success (1, 2, ...):
    ceil(log(u) / log(1 - p)) for u uniform on [0, 1)."""
    (p,), _ = float_arguments("geometric_", args, kwargs, {"p": REQUIRED})
    if not 0.0 < p < 1.0:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if tensor.dtype.is_complex or tensor.dtype.name == "bool":
        raise not_implemented("geometric_cpu", tensor.dtype)
    generator = torch_generator(kwargs.get("generator"))
    return _fill(tensor, "geometric_", lambda count, dtype, contiguous: _mt.geometric(
        generator, count, p))


def bernoulli_(tensor, *args, **kwargs):
    """Fill tensor with 1 with probability p (a number, or a tensor broadcast to tensor's
    shape), else 0."""
    from ._tensor import Tensor
    p, generator = _bernoulli_arguments(args, kwargs)
    if isinstance(p, Tensor):
        if tensor.numel() == 0:  # torch's kernel returns at once, before any check of p
            return _fill(tensor, "bernoulli_tensor_", lambda like, probabilities: like, p)
        check_bernoulli_tensor(tensor.dtype, p)
        expanded = p.detach().expand(tensor.shape)
        check_probabilities(expanded._data)
        target = tensor._data  # the kernel visits it and p together: both strides count
        order = _visit_order(target, p._data)
        return _fill(tensor, "bernoulli_tensor_", lambda like, probabilities: _laid_out(
            target, _mt.bernoulli(generator, _in_visit_order(
                np.broadcast_to(probabilities, like.shape), order)), order), p)
    check_bernoulli_scalar(tensor.dtype, p, "bernoulli_")
    return _fill(tensor, "bernoulli_", lambda count, dtype, contiguous: bernoulli_mask(
        generator, (count,), p))


def random_(tensor, *args, **kwargs):
    """Fill tensor with integers uniform on [from, to - 1]; without `to`, up to the largest
    value the dtype holds exactly (2**mantissa digits for floats)."""
    low, high, generator = _random_arguments(args, kwargs)
    overload = 2 if low is None else 1 if "from" not in kwargs and len(args) == 1 else 0
    # random_() takes 64-bit draws for int64 and float64 only; random_(from, to) for the
    # 32-bit floats too
    wide = ("int64", "float64") + (() if low is None else ("float32", "bfloat16"))
    wide = tensor.dtype.name in wide
    low, top = _random_range(tensor, low, high)
    span = top - low + 1
    return _fill(tensor, f"random_{overload}", lambda count, dtype, contiguous: _mt.integers(
        generator, count, low, span, wide))


def uniform_array(generator, shape, dtype, low, high, layout=None):
    """An array of dtype filled as uniform_ fills a tensor (laid out as `layout`, an array of
    that shape, when given: its strides say the order of the draws)."""
    generator = torch_generator(generator)
    return _drawn_array(shape, dtype, layout, lambda count, dtype, contiguous: _mt.uniform(
        generator, count, dtype, low, high))


def normal_array(generator, shape, dtype, mean, std, layout=None):
    """An array of dtype filled as normal_ fills a tensor (layout: as for uniform_array)."""
    generator = torch_generator(generator)
    std = std / math.sqrt(2) if dtype.is_complex else std
    return _drawn_array(shape, dtype, layout, lambda count, dtype, contiguous: _mt.normal(
        generator, count, dtype, mean, std, contiguous))


def _drawn_array(shape, dtype, layout, sample):
    target = np.empty(shape, dtype.numpy) if layout is None else layout
    return _drawn(target, sample)


def _drawn(array, sample):
    """sample(count, real dtype, contiguous) drawn for array's elements (the parts of complex
    ones) in the order torch visits them, in array's shape and dtype."""
    real = np.empty(0, array.dtype).real.dtype
    if array.dtype.kind == "c":  # drawn as torch.view_as_real(array)
        parts = np.lib.stride_tricks.as_strided(
            array.real, array.shape + (2,), array.strides + (real.itemsize,))
        return _drawn(parts, sample).view(array.dtype).reshape(array.shape)
    flat = np.asarray(sample(array.size, real, array.flags.c_contiguous))
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


def bernoulli_mask(generator, shape, p):
    """True with probability p (a number), as bernoulli_(p) draws it."""
    return _mt.bernoulli(torch_generator(generator), np.full(shape, p, np.float64))


def normal_sample(generator, mean, std, numpy_dtype, shape):
    """torch.normal's samples: normal_(mean, std) for two numbers, normal_(0, std) + mean for a
    mean tensor and a number std, else normal_(0, 1) * std + mean."""
    generator = torch_generator(generator)
    count = int(np.prod(shape))
    scale = 1 / math.sqrt(2) if numpy_dtype.kind == "c" else 1.0
    parts = np.empty(0, numpy_dtype).real.dtype

    def normal(mean, std):
        values = _mt.normal(generator, count * (2 if scale != 1 else 1), parts, mean,
                            std * scale)
        return values.view(numpy_dtype).reshape(shape)
    if np.ndim(std) == 0 and np.ndim(mean) == 0:
        return normal(mean, std)
    sample = normal(0.0, std if np.ndim(std) == 0 else 1.0)
    if np.ndim(std) != 0:
        sample = (sample * std).astype(numpy_dtype)
    return (sample + mean).astype(numpy_dtype)


def permutation(generator, n):
    return _mt.permutation(torch_generator(generator), n)


def _fill(tensor, sampler, sample, *tensors):
    """Write samples into tensor in place, recording the node torch records for `sampler`
    (ops/sampling.py declares one op per sampler). sample(count, dtype, contiguous) draws
    them flat for _drawn; with tensors, sample(array, *their arrays) draws them all."""
    from .ops import inplace, sampling
    target = tensor._data  # its strides say the order of the draws, even if a copy is filled
    draw = sample if tensors else lambda like: _drawn(target, sample)
    drawn = []

    def draw_once(*arrays):
        # torch draws once per element: where elements share memory, the in-place path may
        # rerun the op to write them in turn, and must get the same samples
        if not drawn:
            drawn.append(draw(*arrays))
        return drawn[0]
    return inplace(sampling.FILLS[sampler], tensor, *tensors, draw_once)


# ---- checks and draws shared with ops/sampling.py (torch.bernoulli, torch.normal, ...) ---------

def check_normal_std(std):
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def check_normal_dtype(dtype):
    if not (dtype.is_floating_point or dtype.is_complex):
        raise not_implemented("normal_kernel_cpu", dtype)


def check_bernoulli_tensor(dtype, p):
    """torch's checks of bernoulli's probabilities tensor p for a result of dtype."""
    if dtype.is_complex:
        raise not_implemented("bernoulli_tensor_cpu_self_", dtype)
    if not p.dtype.is_floating_point:
        raise not_implemented("bernoulli_tensor_cpu_p_", p.dtype)


def check_probabilities(probabilities):
    if not np.all((probabilities >= 0) & (probabilities <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                           "(Could this error message be improved?  If so, please report an "
                           "enhancement request to PyTorch.)")


def check_bernoulli_scalar(dtype, p, name):
    if not 0.0 <= p <= 1.0:
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={p:g}")
    if dtype.is_complex:
        raise not_implemented("bernoulli_scalar_cpu_", dtype)


def _check_continuous(name, tensor, type_name):
    if not tensor.dtype.is_floating_point:
        raise RuntimeError(f"{name} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {type_name}")


def not_implemented(kernel, dtype):
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
    if dtype.is_complex:
        where = "check_random_bounds" if high is not None else "random_from_to_impl"
        raise RuntimeError(f"{where} handles only integral, floating-point and boolean types")
    if high is None and low == -2**63:
        return low, 2**63 - 1  # torch's full 64-bit range
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


def float_arguments(name, args, kwargs, defaults):
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


def bind_arguments(name, params, args, kwargs):
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


def checked_generator(name, generator, position=None):
    """The generator a generator= argument names (None: the default one), after torch's type
    check."""
    if not is_generator(generator):
        where = "" if position is None else f" (position {position})"
        raise TypeError(f"{name}(): argument 'generator'{where} must be torch.Generator, not "
                        f"{type_name(generator)}")
    return torch_generator(generator)


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
    return (p if number is None else float(number)), torch_generator(generator)


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
    return low, high, torch_generator(generator)


def is_generator(value):
    return value is None or isinstance(value, Generator)


def is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def as_number(value):
    """A real number from a Python/NumPy number or a one-element Tensor; None otherwise."""
    from ._tensor import Tensor
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.item()
    return value if isinstance(value, numbers.Real) else None


def type_name(value):
    """A value's type as torch's argument parser names it (Tensor, torch.dtype, float, ...)."""
    from ._tensor import Tensor
    if isinstance(value, Tensor):
        return "Tensor"
    if type(value).__module__.startswith("tapegrad") and type(value).__name__ in (
            "Generator", "dtype", "device", "memory_format", "layout"):
        return f"torch.{type(value).__name__}"
    return type(value).__name__


def invalid_combination(name, args, kwargs, overloads):
    """torch's TypeError when no overload of a function matches the arguments."""
    got = ", ".join([type_name(a) for a in args]
                    + [f"{key}={type_name(value)}" for key, value in kwargs.items()])
    if kwargs and not args:
        got += ", "  # torch's own formatting
    lines = "\n".join(overloads)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{lines}\n")
