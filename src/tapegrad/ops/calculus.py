"""Finite differences and integrals: diff, gradient, trapezoid, trapz, cumulative_trapezoid.

torch records no nodes of its own for these: each is composed of slices, arithmetic, cat,
sum and cumsum, so their graphs end in the nodes torch's end in (SubBackward0, CatBackward0,
MulBackward1, DivBackward1, CumsumBackward0)."""
import numbers

from .._tensor import Tensor
from ._checks import is_number, overload_error, type_name, wrap_dim
from .indexing import select
from .joining import cat, narrow
from .pointwise import div_scalar, logical_xor, mul_scalar
from .reduction import cumsum, sum
from .shape import reshape, zeros_of

_NO_DX = object()
_NO_X = object()  # x not given (an x of None is refused, as torch)


def _slice(input, dim, start, stop=None):
    """input[start:stop] along dim, negative positions counting from the end."""
    start, stop, _ = slice(start, stop).indices(input.shape[dim])
    return narrow(input, dim, start, max(stop - start, 0))


# ---- diff ----------------------------------------------------------------------------------

def _check_diff_part(input, part, dim):
    if part.ndim != input.ndim:
        raise RuntimeError("diff expects prepend or append to be the same dimension as input")
    for d in range(input.ndim):
        if d != dim and part.shape[d] != input.shape[d]:
            raise RuntimeError(
                "diff expects the shape of tensor to prepend or append to match that of input "
                f"except along the differencing dimension; input.size({d}) = "
                f"{input.shape[d]}, but got tensor.size({d}) = {part.shape[d]}")


def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The n-th forward difference along dim, after joining prepend and append on."""
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    dim = wrap_dim(dim, input.ndim)
    parts = [input]
    for position, part in ((0, prepend), (1 + (prepend is not None), append)):
        if part is not None:
            _check_diff_part(input, part, dim)
            parts.insert(position, part)
    if n == 0:  # torch copies the input, without prepend and append, into a new tensor
        return zeros_of(input).copy_(input)
    result = cat(parts, dim) if len(parts) > 1 else input
    for _ in range(n):
        size = result.shape[dim]
        if size == 0:
            break
        later, earlier = narrow(result, dim, 1, size - 1), narrow(result, dim, 0, size - 1)
        # bools differ where they are unequal
        result = logical_xor(later, earlier) if result.dtype.name == "bool" else later - earlier
    return result


# ---- gradient ------------------------------------------------------------------------------

def _spacings(input, spacing, dims, given_dims):
    """One entry per dim: a number (uniform spacing) or a 1-D tensor of coordinates."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, (numbers.Number, Tensor)) and not (
            isinstance(spacing, Tensor) and spacing.ndim):
        return [float(spacing)] * len(dims)
    spacing = list(spacing)
    if len(spacing) != len(dims):
        if given_dims:
            raise RuntimeError(
                "torch.gradient expected spacing to be unspecified, a scalar or it's spacing "
                "and dim arguments to have the same length, but got a spacing argument of "
                f"length {len(spacing)} and a dim argument of length {len(dims)}.")
        raise RuntimeError(
            "torch.gradient expected spacing to be unspecified, a scalar, or a list of length "
            f"equal to 'self.dim() = {input.ndim}', since dim argument was not given, but got "
            f"a list of length {len(spacing)}")
    for entry in spacing:
        if isinstance(entry, Tensor) and entry.ndim != 1:
            raise RuntimeError("torch.gradient expected each element of spacing to have one "
                               f"dimension, but got an element with {entry.ndim} dimensions!")
    return spacing


def _uniform_gradient(input, h, dim, edge_order):
    """Central differences inside, one-sided ones of edge_order at the two ends."""
    centre = div_scalar(_slice(input, dim, 2) - _slice(input, dim, 0, -2), h)
    if edge_order == 1:
        first = _slice(input, dim, 1, 2) - _slice(input, dim, 0, 1)
        last = _slice(input, dim, -1) - _slice(input, dim, -2, -1)
    else:
        first = (mul_scalar(_slice(input, dim, 0, 1), -1.5)
                 + mul_scalar(_slice(input, dim, 1, 2), 2.0)
                 - mul_scalar(_slice(input, dim, 2, 3), 0.5))
        last = (mul_scalar(_slice(input, dim, -3, -2), 0.5)
                - mul_scalar(_slice(input, dim, -2, -1), 2.0)
                + mul_scalar(_slice(input, dim, -1), 1.5))
    return cat([div_scalar(first, h), div_scalar(centre, 2.0), div_scalar(last, h)], dim)


def _coordinate_gradient(input, coordinates, dim, edge_order):
    """Second-order differences on unevenly spaced coordinates (the weights of a parabola
    through three neighbours), edges of edge_order."""
    steps = diff(coordinates)
    before, after = steps[:-1], steps[1:]
    shape = [1] * input.ndim
    shape[dim] = -1

    def along(weights):
        return reshape(weights, shape)
    centre = (along(-after / (before * (before + after))) * _slice(input, dim, 0, -2)
              + along((after - before) / (before * after)) * _slice(input, dim, 1, -1)
              + along(before / (after * (before + after))) * _slice(input, dim, 2))
    if edge_order == 1:
        first = (_slice(input, dim, 1, 2) - _slice(input, dim, 0, 1)) / steps[0]
        last = (_slice(input, dim, -1) - _slice(input, dim, -2, -1)) / steps[-1]
    else:  # terms added, negative weights included: torch's edges end in AddBackward0
        h0, h1, hn, hm = steps[0], steps[1], steps[-1], steps[-2]
        first = (-(2.0 * h0 + h1) / (h0 * (h0 + h1)) * _slice(input, dim, 0, 1)
                 + (h0 + h1) / (h0 * h1) * _slice(input, dim, 1, 2)
                 + -h0 / (h1 * (h0 + h1)) * _slice(input, dim, 2, 3))
        last = (hn / (hm * (hn + hm)) * _slice(input, dim, -3, -2)
                + -(hn + hm) / (hn * hm) * _slice(input, dim, -2, -1)
                + (2 * hn + hm) / (hn * (hn + hm)) * _slice(input, dim, -1))
    return cat([first, centre, last], dim)


def gradient(input, *, spacing=None, dim=None, edge_order=1):
    """Estimates of the partial derivatives of the sampled function input along each of dims:
    central differences inside, one-sided ones of edge_order at the edges."""
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    given_dims = dim is not None
    dims = range(input.ndim) if dim is None else [dim] if isinstance(dim, int) else dim
    dims = [wrap_dim(d, input.ndim) for d in dims]
    spacings = _spacings(input, spacing, dims, given_dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    if not (input.dtype.is_floating_point or input.dtype.is_complex):  # integers, bool
        input = input.float()
    results = []
    for d, h in zip(dims, spacings):
        if isinstance(h, Tensor):
            results.append(_coordinate_gradient(input, h, d, edge_order))
        else:
            results.append(_uniform_gradient(input, h, d, edge_order))
    return tuple(results)


# ---- trapezoid, trapz, cumulative_trapezoid ------------------------------------------------

def _check_samples(name, y, x):
    if y.dtype.name == "bool":
        raise RuntimeError(f"{name}: received a bool input for `y`, but bool is not supported")
    if x is not None and x.dtype.name == "bool":
        raise RuntimeError(f"{name}: received a bool input for `x`, but bool is not supported")


def _steps(name, y, x, dim):
    """The distances between neighbouring sample points, x laid out against y."""
    if x.ndim == 1:
        if x.shape[0] != y.shape[dim]:
            raise RuntimeError(f"{name}: There must be one `x` value for each sample point")
        shape = [1] * y.ndim
        shape[dim] = x.shape[0]
        x = reshape(x, shape)
    elif x.ndim < y.ndim:
        x = reshape(x, (1,) * (y.ndim - x.ndim) + tuple(x.shape))
    return _slice(x, dim, 1) - _slice(x, dim, 0, -1)


# torch's overloads, as its errors list them
_INTEGRAL_OVERLOADS = {
    "trapz": ("Tensor y, *, float dx = 1, int dim = -1", "Tensor y, Tensor x, *, int dim = -1"),
    "trapezoid": ("Tensor y, Tensor x, *, int dim = -1",
                  "Tensor y, *, Number dx = 1, int dim = -1"),
}
_INTEGRAL_OVERLOADS["cumulative_trapezoid"] = _INTEGRAL_OVERLOADS["trapezoid"]


def _samples_given(name, y, x, dx):
    """x (None where not given), once y, x and dx are of types one of torch's overloads takes."""
    if not isinstance(y, Tensor):
        raise TypeError(f"{name}(): argument 'y' (position 1) must be Tensor, not {type_name(y)}")
    given_x = () if x is _NO_X else (x,)
    given_dx = () if dx is _NO_DX else (("dx", dx),)
    if given_x and (given_dx or not isinstance(x, Tensor)) or given_dx and not is_number(dx):
        raise overload_error(name, _INTEGRAL_OVERLOADS[name], (y, *given_x), given_dx)
    return None if x is _NO_X else x


def _integral(name, y, x, dx, dim, cumulative):
    x = _samples_given(name, y, x, dx)
    _check_samples(name, y, x)
    if y.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    dim = wrap_dim(dim, y.ndim)
    if y.shape[dim] == 0 and not cumulative:
        return zeros_of(y, y.shape[:dim] + y.shape[dim + 1:])
    pairs = _slice(y, dim, 1) + _slice(y, dim, 0, -1)
    # torch multiplies and divides by C++ numbers here: MulBackward1 and DivBackward1
    if x is not None:
        weighted = _steps(name, y, x, dim) * pairs
        return div_scalar(cumsum(weighted, dim) if cumulative else sum(weighted, dim), 2.0)
    dx = 1.0 if dx is _NO_DX else float(dx)
    if cumulative:
        return cumsum(mul_scalar(pairs, dx / 2.0), dim)
    ends = select(y, dim, 0) + select(y, dim, -1)
    return mul_scalar(sum(y, dim) - mul_scalar(ends, 0.5), dx)


def trapezoid(y, x=_NO_X, *, dx=_NO_DX, dim=-1):
    """The trapezoidal rule along dim, at points x or spaced dx apart (1 by default)."""
    return _integral("trapezoid", y, x, dx, dim, False)


def trapz(y, x=_NO_X, *, dx=_NO_DX, dim=-1):
    return _integral("trapz", y, x, dx, dim, False)


def cumulative_trapezoid(y, x=_NO_X, *, dx=_NO_DX, dim=-1):
    """The running trapezoidal rule along dim: one element fewer than y along dim."""
    return _integral("cumulative_trapezoid", y, x, dx, dim, True)


FUNCTIONS = "cumulative_trapezoid diff gradient trapezoid trapz".split()
METHODS = ["diff"]
