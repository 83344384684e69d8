"""The global random generator behind rand/randn/randint and their seeds, and the in-place
samplers behind Tensor.uniform_, normal_, bernoulli_, exponential_ and random_."""
import numbers
import warnings

import numpy as np


class Generator:
    """torch.Generator on NumPy's PCG64: same seeding API, different random stream."""

    def __init__(self, device="cpu"):
        self._seed = 67280421310721  # torch's default seed
        self.numpy = np.random.default_rng(self._seed)

    def manual_seed(self, seed):
        self._seed = int(seed)
        self.numpy = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        return self._seed

    def seed(self):
        return self.manual_seed(np.random.SeedSequence().entropy % 2**63).initial_seed()

    def get_state(self):
        return self.numpy.bit_generator.state

    def set_state(self, state):
        self.numpy.bit_generator.state = state
        return self


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
    return (generator or default_generator).numpy


# ---- in-place sampling: Tensor.uniform_, normal_, bernoulli_, exponential_, random_ --------
# Values come from NumPy's PCG64 (torch's stream differs); distributions, argument handling,
# checks and error texts are torch's. Samples are written through the in-place path (copy_),
# so a tensor that requires grad gets torch's leaf error and every write bumps the version.

def uniform_(tensor, *args, **kwargs):
    """Fill tensor with samples from the uniform distribution on [from, to)."""
    (low, high), rng = _float_arguments("uniform_", args, kwargs, {"from": 0.0, "to": 1.0})
    _check_uniform(tensor, low, high)
    sample = _per_part(tensor, lambda shape, dtype: (
        dtype.type(low) + dtype.type(high - low) * rng.random(shape, dtype)))
    sample = sample.astype(tensor._data.dtype)
    return _write(tensor, _below(sample, high) if low < high else sample)


def normal_(tensor, *args, **kwargs):
    """Fill tensor with samples from the normal distribution N(mean, std**2)."""
    (mean, std), rng = _float_arguments("normal_", args, kwargs, {"mean": 0.0, "std": 1.0})
    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise _not_implemented("normal_kernel_cpu", tensor.dtype)
    # a complex sample splits the variance between its real and imaginary parts
    part_std = std / np.sqrt(2) if tensor.dtype.is_complex else std
    return _write(tensor, _per_part(tensor, lambda shape, dtype: (
        rng.standard_normal(shape, dtype) * dtype.type(part_std) + dtype.type(mean))))


def exponential_(tensor, *args, **kwargs):
    """Fill tensor with samples from the exponential distribution of rate lambd."""
    (lambd,), rng = _float_arguments("exponential_", args, kwargs, {"lambd": 1.0})
    if not lambd > 0.0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    if not tensor.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{tensor.dtype.legacy_name}")
    return _write(tensor, rng.standard_exponential(tensor.shape, _compute_dtype(tensor)) / lambd)


def bernoulli_(tensor, *args, **kwargs):
    """Fill tensor with 1 with probability p (a number, or a tensor broadcast to tensor's
    shape), else 0."""
    from ._tensor import Tensor
    p, rng = _bernoulli_arguments(args, kwargs)
    if isinstance(p, Tensor):
        p = p.detach().expand(tensor.shape)
        if tensor.dtype.is_complex:
            raise _not_implemented("bernoulli_tensor_cpu_self_", tensor.dtype)
        if not p.dtype.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
        p = p._data
        if not np.all((p >= 0) & (p <= 1)):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  "
                               "(Could this error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
    else:
        if not 0.0 <= p <= 1.0:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p:g}")
        if tensor.dtype.is_complex:
            raise _not_implemented("bernoulli_scalar_cpu_", tensor.dtype)
    return _write(tensor, rng.random(tensor.shape) < p)


def random_(tensor, *args, **kwargs):
    """Fill tensor with integers uniform on [from, to - 1]; without `to`, up to the largest
    value the dtype holds exactly (2**mantissa digits for floats)."""
    low, high, rng = _random_arguments(args, kwargs)
    low, top = _random_range(tensor, low, high)
    # endpoint=True: `top` may be the largest int64, which has no exclusive bound
    return _write(tensor, rng.integers(low, top, tensor.shape, np.int64, endpoint=True))


def _write(tensor, sample):
    """Copy the sample into tensor through the in-place path (checks, version bump, history)."""
    from ._tensor import Tensor
    from .ops import copy_
    sample = np.asarray(sample).astype(tensor._data.dtype, copy=False)
    return copy_(tensor, Tensor._make(sample))


def _below(sample, high):
    """Pull the values that rounding to the tensor's precision carried up to `high` back under
    it (float16 is drawn in float32): uniform_'s range is half-open."""
    parts = (sample.real, sample.imag) if np.iscomplexobj(sample) else (sample,)
    for part in parts:
        limit = part.dtype.type(high)
        if limit >= high:
            limit = np.nextafter(limit, part.dtype.type(-np.inf))
        np.minimum(part, limit, out=part)
    return sample


def _compute_dtype(tensor):
    """The real NumPy dtype samples are drawn in: float16 is drawn as float32."""
    double = tensor._data.dtype in (np.float64, np.complex128)
    return np.dtype(np.float64 if double else np.float32)


def _per_part(tensor, draw):
    """draw(shape, dtype) for a real tensor; independent real and imaginary parts otherwise."""
    dtype = _compute_dtype(tensor)
    if not tensor.dtype.is_complex:
        return draw(tensor.shape, dtype)
    return draw(tensor.shape, dtype) + 1j * draw(tensor.shape, dtype)


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtype.legacy_name}\'')


# C++ type names in torch's bound messages; complex tensors are checked as their parts
_C_TYPE_NAMES = {"float16": "c10::Half", "float32": "float", "float64": "double",
                 "bool": "bool", "uint8": "unsigned char", "int8": "signed char",
                 "int16": "short int", "int32": "int", "int64": "long int"}
_LIMITS_NAMES = {"float16": "Half", "float32": "Float", "float64": "Double"}


def _value_type(tensor):
    """The NumPy dtype of one real value of tensor (complex64 -> float32)."""
    return np.empty(0, tensor._data.dtype).real.dtype


def _check_in_bounds(value, name, low, high, value_type):
    if not low <= value <= high:  # also false for nan
        raise RuntimeError(f"{name} is out of bounds for {_C_TYPE_NAMES[value_type.name]}")


def _check_uniform(tensor, low, high):
    if not (tensor.dtype.is_floating_point or tensor.dtype.is_complex):
        raise _not_implemented("check_uniform_bounds", tensor.dtype)
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
            raise _not_implemented("random_kernel_cpu", dtype)
        return 0, _largest_exact(tensor)
    if high is not None and low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if dtype.is_complex:
        where = "check_random_bounds" if high is not None else "random_from_to_impl"
        raise RuntimeError(f"{where} handles only integral, floating-point and boolean types")
    if high is None and low == -2**63:
        return low, 2**63 - 1  # torch's full 64-bit range
    top = _largest_exact(tensor) if high is None else high - 1
    if high is None and dtype.is_floating_point and low >= top:
        raise RuntimeError("random_ expects 'from' casted to dtype to be less than or equal to "
                           f"'to_inc' casted to dtype, but got from={low} > to_inc={top}")
    _check_random_bounds(tensor, low, top)
    return low, top


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
            warnings.warn(f"{name} is out of bounds [-(2^{digits}), 2^{digits}]. Due to "
                          f"precision limitations {_C_TYPE_NAMES[value_type.name]} can support "
                          "discrete uniform distribution only within this range. This warning "
                          "will become an error in version 1.7 release, please fix the code in "
                          "advance", UserWarning, stacklevel=4)


# ---- torch's argument parsing for these methods --------------------------------------------

_OVERLOADS = {
    "bernoulli_": (" * (Tensor p, *, torch.Generator generator = None)",
                   " * (float p = 0.5, *, torch.Generator generator = None)"),
    "random_": (" * (*, torch.Generator generator = None)",
                " * (int from, int to, *, torch.Generator generator = None)",
                " * (int to, *, torch.Generator generator = None)"),
}


def _float_arguments(name, args, kwargs, defaults):
    """Bind float parameters (name -> default) and the keyword generator as torch's parser
    does; returns the floats and the NumPy generator."""
    params = list(defaults)
    if len(args) > len(params):
        raise TypeError(f"{name}() takes from 0 to {len(params)} positional arguments but "
                        f"{len(args)} were given")
    unknown = [key for key in kwargs if key not in params and key != "generator"]
    if unknown:
        raise TypeError(f"{name}() got an unexpected keyword argument '{unknown[0]}'")
    values = []
    for position, param in enumerate(params):
        given_by_position = position < len(args)
        value = args[position] if given_by_position else kwargs.get(param, defaults[param])
        number = _as_number(value)
        if number is None:
            where = f" (position {position + 1})" if given_by_position else ""
            raise TypeError(f"{name}(): argument '{param}'{where} must be float, not "
                            f"{type(value).__name__}")
        values.append(float(number))
    generator = kwargs.get("generator")
    if not _is_generator(generator):
        raise TypeError(f"{name}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return values, numpy_generator(generator)


def _bernoulli_arguments(args, kwargs):
    """p (a float or a Tensor) and the NumPy generator, from bernoulli_'s two overloads."""
    from ._tensor import Tensor
    bound = dict(zip(("p",), args), **kwargs)
    p, generator = bound.pop("p", 0.5), bound.pop("generator", None)
    number = None if isinstance(p, Tensor) else _as_number(p)
    if (len(args) > 1 or bound or (number is None and not isinstance(p, Tensor))
            or not _is_generator(generator)):
        raise _invalid_combination("bernoulli_", args, kwargs)
    return (p if number is None else float(number)), numpy_generator(generator)


def _random_arguments(args, kwargs):
    """(from, to, NumPy generator) from random_'s overloads: (), (to) or (from, to); from is
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
        low, high, valid = 0, bound["to"], _is_int(bound["to"])
    elif set(bound) == {"from", "to"}:  # here `to` may be None
        low, high = bound["from"], bound["to"]
        valid = _is_int(low) and (high is None or _is_int(high))
    else:
        valid = False
    if not valid or not _is_generator(generator):
        raise _invalid_combination("random_", args, kwargs)
    return low, high, numpy_generator(generator)


def _is_generator(value):
    return value is None or isinstance(value, Generator)


def _is_int(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _as_number(value):
    """A real number from a Python/NumPy number or a one-element Tensor; None otherwise."""
    from ._tensor import Tensor
    if isinstance(value, Tensor) and value.numel() == 1:
        return value.item()
    return value if isinstance(value, numbers.Real) else None


def _invalid_combination(name, args, kwargs):
    """torch's TypeError when no overload of an in-place sampler matches the arguments."""
    from ._tensor import Tensor

    def type_name(value):
        return "Tensor" if isinstance(value, Tensor) else type(value).__name__

    got = ", ".join([type_name(a) for a in args]
                    + [f"{key}={type_name(value)}" for key, value in kwargs.items()])
    if kwargs and not args:
        got += ", "  # torch's own formatting
    overloads = "\n".join(_OVERLOADS[name])
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n{overloads}\n")
