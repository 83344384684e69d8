"""Random sampling: torch.bernoulli, normal, poisson and multinomial (also as Tensor methods),
torch.binomial, and the nodes that the in-place samplers of _random.py (Tensor.uniform_, normal_, ...) record.

A sample is not a differentiable function of its distribution's parameters: torch records a
node for each of these ops whose gradient is zero (torch.bernoulli(input, p) records one named
NotImplemented, whose backward raises), and so does tapegrad. Draws come from the generator of
the tensors' device (_random.py, Note [Two sources]): on the cpu torch's streams, so after
manual_seed the numbers torch draws; on a cuda device its own, drawn there.
"""
from typing import Any, Optional

import numpy as np

from .. import _dtype, _random
from .._device import tensor_device
from .._tensor import Tensor
from .._warnings import warn
from ..autograd import grad_mode
from . import _cpu_order
from ._checks import broadcast_shapes
from ._define import defop
from .pointwise import not_implemented_in_torch, require_tensors
from .shape import zeros_of


def _zero(ctx):
    return zeros_of(ctx.grad)


def _drawn_op(node_name, name, formula=_zero):
    """An op whose result is draw(input) in input's shape and dtype: the in-place samplers
    write it over input, torch.bernoulli and torch.poisson return it."""
    @defop(node_name, name=name)
    def drawn(xp, input: Tensor, draw):
        return xp.asarray(draw(input), dtype=input.dtype)
    drawn.derivatives(input=formula)
    return drawn


def _not_implemented(ctx):
    raise RuntimeError("derivative for aten::bernoulli is not implemented")


@defop("BernoulliBackward1", name="_bernoulli_tensor_fill")
def _bernoulli_tensor_fill(xp, input: Tensor, p: Tensor, draw):
    return xp.asarray(draw(input, p), dtype=input.dtype)


_bernoulli_tensor_fill.derivatives(input=_zero, p=lambda ctx: zeros_of(ctx.grad, ctx.p_shape))

# sampler (as _random.py names it) -> the op its in-place write records
FILLS = {sampler: _drawn_op(node_name, f"_{sampler}fill") for sampler, node_name in (
    ("uniform_", "UniformBackward0"), ("normal_", "NormalBackward0"),
    ("log_normal_", "LogNormalBackward0"), ("exponential_", "ExponentialBackward0"),
    ("cauchy_", "CauchyBackward0"), ("geometric_", "GeometricBackward0"),
    ("bernoulli_", "BernoulliBackward2"), ("random_0", "RandomBackward0"),
    ("random_1", "RandomBackward1"), ("random_2", "RandomBackward2"))}
FILLS["bernoulli_tensor_"] = _bernoulli_tensor_fill

_bernoulli = _drawn_op("BernoulliBackward0", "_bernoulli")
_bernoulli_scalar = _drawn_op("NotImplemented", "_bernoulli_scalar", _not_implemented)
_poisson = _drawn_op("PoissonBackward0", "_poisson")


# ---- torch.bernoulli -----------------------------------------------------------------------

_BERNOULLI_OVERLOADS = (
    " * (Tensor input, *, torch.Generator generator = None, Tensor out = None)",
    " * (Tensor input, float p, *, torch.Generator generator = None)")
_BERNOULLI_METHOD_OVERLOADS = (" * (*, torch.Generator generator = None)",
                               " * (float p, *, torch.Generator generator = None)")


def bernoulli(*args: Any, **kwargs: Any) -> Tensor:
    """0/1 samples: with probability input (in [0, 1]) elementwise, or with the number p in
    input's shape and dtype."""
    input = args[0] if args else kwargs.get("input")
    if not isinstance(input, Tensor):
        if not args and "input" not in kwargs:
            raise _random.invalid_combination("bernoulli", args, kwargs, _BERNOULLI_OVERLOADS)
        raise TypeError("bernoulli(): argument 'input' (position 1) must be Tensor, not "
                        f"{_random.type_name(input)}")
    rest = {key: value for key, value in kwargs.items() if key != "input"}
    return _bernoulli_of(input, args[1:], rest, args, kwargs, _BERNOULLI_OVERLOADS)


def _bernoulli_method(self, *args, **kwargs):
    return _bernoulli_of(self, args, kwargs, args, kwargs, _BERNOULLI_METHOD_OVERLOADS)


def _bernoulli_of(input, args, kwargs, given_args, given_kwargs, overloads):
    bound = dict(kwargs)
    twice = bool(args) and "p" in bound
    if twice and overloads is _BERNOULLI_METHOD_OVERLOADS:  # torch's parser says so here
        raise TypeError("bernoulli() got multiple values for argument 'p'")
    bound.update(zip(("p",), args))
    p, generator = bound.pop("p", None), bound.pop("generator", None)
    number = None if p is None else _random.as_number(p)
    if (len(args) > 1 or twice or bound or isinstance(p, Tensor)
            or (p is not None and number is None) or not _random.is_generator(generator)):
        raise _random.invalid_combination("bernoulli", given_args, given_kwargs, overloads)
    if p is None:
        _random.check_bernoulli_tensor(input.dtype, input)
        _random.check_probabilities(input._data)
        source = _random.draws(generator, input.device)
        return _bernoulli(input, source.bernoulli)
    _random.check_bernoulli_scalar(input.dtype, float(number), "bernoulli_")
    source = _random.draws(generator, input.device)
    return _bernoulli_scalar(input, lambda like: source.bernoulli_number(like.shape,
                                                                         float(number)))


# ---- torch.normal --------------------------------------------------------------------------

@defop("NormalBackward1")
def _normal_tensor_float(xp, mean: Tensor, std, draw):
    return xp.asarray(draw(mean, std))


@defop("NormalBackward2")
def _normal_float_tensor(xp, mean, std: Tensor, draw):
    return xp.asarray(draw(mean, std))


@defop("NormalBackward3")
def _normal_tensor_tensor(xp, mean: Tensor, std: Tensor, draw):
    return xp.asarray(draw(mean, std))


_normal_tensor_float.derivatives(mean=lambda ctx: zeros_of(ctx.grad, ctx.mean_shape))
_normal_float_tensor.derivatives(std=lambda ctx: zeros_of(ctx.grad, ctx.std_shape))
_normal_tensor_tensor.derivatives(mean=lambda ctx: zeros_of(ctx.grad, ctx.mean_shape),
                                  std=lambda ctx: zeros_of(ctx.grad, ctx.std_shape))

_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
    " * (Tensor mean, float std = 1, *, torch.Generator generator = None, Tensor out = None)",
    " * (float mean, Tensor std, *, torch.Generator generator = None, Tensor out = None)",
    " * (float mean, float std, tuple of ints size, *, torch.Generator generator = None, Tensor "
    "out = None, torch.dtype dtype = None, torch.layout layout = None, torch.device device = "
    "None, bool pin_memory = False, bool requires_grad = False)")
_FACTORY_OPTIONS = ("dtype", "layout", "device", "pin_memory", "requires_grad")


def normal(*args: Any, **kwargs: Any) -> Tensor:
    """Samples of N(mean, std**2): mean and std are tensors (broadcast together) or numbers;
    with two numbers, a size says the result's shape."""
    bound = _normal_overload(args, kwargs)
    mean, std = bound.get("mean"), bound.get("std", 1.0)
    generator = bound.get("generator")
    if "size" in bound:
        return _normal_factory(mean, std, bound, generator)
    if isinstance(std, Tensor):
        if std.dtype.is_complex:
            raise RuntimeError("normal expects standard deviation to be non-complex")
        if not _random.all_true(std._data >= 0):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    else:
        _random.check_normal_std(float(_random.as_number(std)))
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        broadcast_shapes(mean.shape, std.shape)
    result = mean if isinstance(mean, Tensor) else std  # torch's result has its dtype
    _random.check_normal_dtype(result.dtype)
    _check_complex_grad(result.dtype, mean, std)
    op = (_normal_tensor_tensor if isinstance(std, Tensor) else _normal_tensor_float) \
        if isinstance(mean, Tensor) else _normal_float_tensor
    mean = mean if isinstance(mean, Tensor) else float(_random.as_number(mean))
    std = std if isinstance(std, Tensor) else float(_random.as_number(std))
    source = _random.draws(generator, result.device)
    return op(mean, std, lambda mean, std: _normal_sample(source, mean, std,
                                                          result.dtype.numpy))


def _normal_sample(source, mean, std, numpy_dtype, shape=None):
    if shape is None:
        shape = np.broadcast_shapes(*(getattr(v, "shape", ()) for v in (mean, std)))
    sample = _random.normal_sample(source, mean, std, np.dtype(numpy_dtype), shape)
    return source.xp.asarray(sample).astype(numpy_dtype, copy=False)


def _normal_overload(args, kwargs):
    """normal's arguments by name, once they fit one of torch's four overloads."""
    bound = dict(zip(("mean", "std", "size"), args))
    known = {"mean", "std", "size", "generator", *_FACTORY_OPTIONS}
    fits = len(args) <= 3 and not set(bound) & set(kwargs) and not set(kwargs) - known
    bound.update(kwargs)
    mean, std = bound.get("mean"), bound.get("std")
    numbers = [_random.as_number(v) is not None and not isinstance(v, Tensor)
               for v in (mean, std)]
    if "size" in bound:
        fits = fits and all(numbers) and _is_size(bound["size"])
    else:
        fits = fits and not set(_FACTORY_OPTIONS) & set(bound) and (
            isinstance(mean, Tensor) and ("std" not in bound or numbers[1]
                                          or isinstance(std, Tensor))
            or numbers[0] and isinstance(std, Tensor))
    if not fits or not _random.is_generator(bound.get("generator")):
        raise _random.invalid_combination("normal", args, kwargs, _NORMAL_OVERLOADS)
    return bound


def _is_size(size):
    return isinstance(size, (tuple, list)) and all(_random.is_int(s) for s in size)


def _normal_factory(mean, std, options, generator):
    """normal(mean, std, size): a new tensor of N(mean, std**2) samples, drawn on its device."""
    target = tensor_device(options.get("device"), "normal.float_float",
                           options.get("pin_memory", False))
    dtype = options.get("dtype") or _dtype.get_default_dtype()
    _random.check_normal_std(float(std))
    _random.check_normal_dtype(dtype)
    size = tuple(options["size"])
    if any(s < 0 for s in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(size)}: {list(size)}")
    sample = _normal_sample(_random.draws(generator, target), float(mean), float(std),
                            np.dtype(dtype.numpy), size)
    return Tensor._make(sample, dtype).requires_grad_(bool(options.get("requires_grad")))


def _check_complex_grad(dtype, *inputs):
    if dtype.is_complex and grad_mode.is_recording() and any(
            isinstance(t, Tensor) and t.requires_grad for t in inputs):
        raise RuntimeError("normal does not support automatic differentiation for outputs "
                           "with complex dtype.")


# ---- torch.poisson and torch.multinomial ---------------------------------------------------

def poisson(input: Tensor, generator: Optional[_random.Generator] = None) -> Tensor:
    """Poisson samples with rates input (>= 0), in input's dtype."""
    if not isinstance(input, Tensor):
        raise TypeError("poisson(): argument 'input' (position 1) must be Tensor, not "
                        f"{_random.type_name(input)}")
    generator = _random.checked_generator("poisson", generator, position=2)
    if not input.dtype.is_floating_point:
        raise _random.not_implemented("poisson_cpu", input.dtype)
    source = _random.draws(generator, input.device)
    # the result is a new contiguous tensor, so the rates are visited in C order
    return _poisson(input, lambda rates: source.rounded(
        source.poisson(rates.reshape(-1)), rates.dtype).reshape(rates.shape))


# torch's binomial writes into a tensor shaped as count, which it resizes to the broadcast shape
RESIZED_OUTPUT = ("An output with one or more elements was resized since it had shape {}, which "
                  "does not match the required output shape {}. This behavior is deprecated, and "
                  "in a future PyTorch release outputs will not be resized unless they have zero "
                  "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to "
                  "zero elements with t.resize_(0).")


@defop("NotImplemented", name="_binomial")
def _binomial(xp, count: Tensor, prob: Tensor, draw):
    return draw(count, prob)


not_implemented_in_torch(_binomial, "binomial")


def binomial(count: Tensor, prob: Tensor, generator: Optional[_random.Generator] = None) -> Tensor:
    """Binomial(count, prob) draws, in count's (floating) dtype, drawn in torch's order from
    generator (the device's default one when None)."""
    require_tensors("binomial", count=count, prob=prob)
    generator = _random.checked_generator("binomial", generator)  # (torch names no position)
    if not count.dtype.is_floating_point:
        raise ValueError("binomial only supports floating-point dtypes for count, got: "
                         f"{count.dtype.legacy_name}")
    if prob.dtype is not count.dtype:
        raise RuntimeError(f"Found dtype {prob.dtype.legacy_name} but expected "
                           f"{count.dtype.legacy_name}")
    if count.device.type == "cpu" and count.dtype not in (_dtype.float32, _dtype.float64):
        raise _random.not_implemented("binomial_cpu", count.dtype)
    shape = broadcast_shapes(count.shape, prob.shape)
    if shape != count.shape and count.numel():
        warn(RESIZED_OUTPUT.format(list(count.shape), list(shape)), UserWarning)
    from ..distributions._sampling import binomial_array  # (distributions load on first use)
    return _binomial(count.expand(shape), prob.expand(shape),
                     lambda c, p: binomial_array(c, p, generator))


_MULTINOMIAL_PARAMS = (("num_samples", int, _random.REQUIRED), ("replacement", bool, False))


def multinomial(*args: Any, **kwargs: Any) -> Tensor:
    """num_samples category indices per row of input (weights, one row or a batch of rows);
    without replacement each index appears at most once per row."""
    (input, num_samples, replacement), generator = _random.bind_arguments(
        "multinomial", (("input", Tensor, _random.REQUIRED),) + _MULTINOMIAL_PARAMS, args,
        kwargs)
    return _multinomial(input, num_samples, replacement, generator)


def _multinomial_method(self, *args, **kwargs):
    (num_samples, replacement), generator = _random.bind_arguments(
        "multinomial", _MULTINOMIAL_PARAMS, args, kwargs)
    return _multinomial(self, num_samples, replacement, generator)


def _multinomial(input, num_samples, replacement, generator):
    _check_multinomial(input, num_samples, replacement)
    source = _random.draws(generator, input.device)
    xp = source.xp
    rows = input.shape[0] if input.ndim == 2 else 1
    weights = input._data.reshape(rows, input.shape[-1])
    if weights.shape[0] == 0:
        indices = xp.zeros_like(weights, dtype=np.int64, shape=(0, num_samples))
    elif weights.shape[1] == 0:  # torch's validity check reduces over the categories first
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    elif replacement and num_samples > 1:
        indices = _with_replacement(source, weights, num_samples)
    else:
        _check_weights_without_replacement(weights)
        # torch's exponential race: the num_samples largest w / E (E ~ Exp(1), drawn as
        # exponential_ in w's dtype) are a sample of categories without replacement, each
        # drawn with probability proportional to w
        race = source.exponential(weights.size, 1.0).reshape(weights.shape)
        keys = weights / source.rounded(race, weights.dtype)
        if xp is np:
            indices = np.stack([_largest(row, num_samples) for row in keys])
        else:  # a device's own numbers: torch's order of tied keys is the cpu's matter
            indices = xp.argsort(-keys, axis=1)[:, :num_samples]
    shape = (num_samples,) if input.ndim == 1 else (input.shape[0], num_samples)
    return Tensor._make(indices.reshape(shape).astype(np.int64))


def _largest(keys, count):
    """The indices of the count largest keys, as torch picks them: argmax (the first) for one,
    else topk, whose order of tied keys is libstdc++'s selection's."""
    if count > 1 and np.unique(keys).size < keys.size:
        return np.array(_cpu_order.topk((-keys).tolist(), count, True))
    return np.argsort(-keys, kind="stable")[:count]


def _check_multinomial(input, num_samples, replacement):
    if not 1 <= input.ndim <= 2:
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{input.dtype.legacy_name}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if input.shape[-1] > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")


def _check_weights_without_replacement(weights):
    if not _random.all_true((weights >= 0) & (weights < np.inf)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if not _random.all_true(weights.sum(axis=1) != 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _with_replacement(source, weights, num_samples):
    """torch's inverse-CDF draws, row by row: the first category whose normalised cumulative
    weight (summed in the weights' compute dtype, the last one set to 1) reaches a double
    uniform."""
    xp = source.xp
    for row in weights:  # torch checks row by row: entries first, then the row's sum
        if not _random.all_true(row >= 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry < 0)")
        if not _random.all_true(xp.isfinite(row)):
            raise RuntimeError("invalid multinomial distribution (encountering probability "
                               "entry = infinity or NaN)")
        if not row.sum() > 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    indices = []
    for row in weights:
        cumulative = xp.cumsum(row, dtype=_random.compute_dtype(row.dtype))
        cumulative = cumulative / cumulative[-1]
        cumulative[-1] = 1
        uniform = source.uniform(num_samples, np.dtype(np.float64), 0.0, 1.0)
        indices.append(xp.searchsorted(cumulative.astype(np.float64), uniform, side="left"))
    return xp.stack(indices)


FUNCTIONS = ("bernoulli", "binomial", "multinomial", "normal", "poisson")
TENSOR_ONLY = {"bernoulli": _bernoulli_method, "multinomial": _multinomial_method}
