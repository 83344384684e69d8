"""gradcheck and gradgradcheck: analytical Jacobians against central finite differences."""
from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from .engine import grad

if TYPE_CHECKING:
    from .._tensor import Tensor


class GradcheckError(RuntimeError):
    """Raised by gradcheck when the analytical and numerical Jacobians differ."""


def _as_tuple(value):
    return value if isinstance(value, (tuple, list)) else (value,)


def _outputs(func, inputs):
    from .._tensor import Tensor
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, Tensor)]


def _numerical_jacobians(func, inputs, index, eps):
    """One (numel(input), numel(output)) matrix per output, by central differences."""
    tensor = inputs[index]
    original = tensor._data
    tensor._data = original.copy()  # contiguous, so the flat view below perturbs it
    flat = tensor._data.reshape(-1)
    columns = []
    try:  # grad mode stays on: gradgradcheck's function itself calls autograd.grad
        for k in range(flat.size):
            value = flat[k]
            flat[k] = value + eps
            plus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
            flat[k] = value - eps
            minus = [o._data.astype(np.float64).ravel() for o in _outputs(func, inputs)]
            flat[k] = value
            columns.append([(p - m) / (2 * eps) for p, m in zip(plus, minus)])
    finally:
        tensor._data = original
    outputs = _outputs(func, inputs)
    return [np.array([column[j] for column in columns]).reshape(flat.size, output.numel())
            for j, output in enumerate(outputs)]


def _analytical_jacobian(output, inputs, index):
    """d output / d inputs[index] as a (numel(input), numel(output)) matrix, row by row of
    one-hot backward passes."""
    from .._tensor import Tensor
    target = inputs[index]
    jacobian = np.zeros((target.numel(), output.numel()))
    if not output.requires_grad:
        return jacobian
    for k in range(output.numel()):
        seed = np.zeros(output.numel(), dtype=output.dtype.numpy)
        seed[k] = 1
        (result,) = grad(output, target, Tensor._make(seed.reshape(output.shape)),
                         retain_graph=True, allow_unused=True)
        if result is not None:
            jacobian[:, k] = result._data.astype(np.float64).ravel()
    return jacobian


def gradcheck(func: Callable[..., Tensor | Sequence[Tensor]], inputs: Tensor | Sequence[Any], *,
              eps: float = 1e-06, atol: float = 1e-05, rtol: float = 0.001,
              raise_exception: bool = True, **unsupported: Any) -> bool:
    """Check func's gradients with respect to the inputs that require grad against finite
    differences, as torch.autograd.gradcheck (its slow mode; fast_mode is not supported)."""
    from .._tensor import Tensor
    if unsupported.get("fast_mode"):
        raise NotImplementedError("tapegrad's gradcheck has no fast_mode")
    inputs = tuple(_as_tuple(inputs))
    differentiated = [i for i, t in enumerate(inputs)
                      if isinstance(t, Tensor) and t.requires_grad]
    for i in differentiated:
        if inputs[i].dtype.name not in ("float64", "complex128"):
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning)
    outputs = _outputs(func, inputs)
    for i in differentiated:
        numerical = _numerical_jacobians(func, inputs, i, eps)
        for j, output in enumerate(outputs):
            analytical = _analytical_jacobian(output, inputs, i)
            if not np.allclose(analytical, numerical[j], rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    f"Jacobian mismatch for output {j} with respect to input {i},\n"
                    f"numerical:{Tensor._make(numerical[j])}\n"
                    f"analytical:{Tensor._make(analytical)}\n")
    return True


def gradgradcheck(func: Callable[..., Tensor | Sequence[Tensor]], inputs: Tensor | Sequence[Any],
                  grad_outputs: Tensor | Sequence[Tensor] | None = None, *,
                  eps: float = 1e-06, atol: float = 1e-05, rtol: float = 0.001,
                  gen_non_contig_grad_outputs: bool = False, raise_exception: bool = True,
                  **unsupported: Any) -> bool:
    """gradcheck of the gradient of func: second derivatives against finite differences."""
    from .._creation import randn_like
    from .._tensor import Tensor
    inputs = tuple(_as_tuple(inputs))
    outputs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = tuple(randn_like(o, dtype=o.dtype, requires_grad=True) for o in outputs)
    grad_outputs = tuple(_as_tuple(grad_outputs))
    differentiated = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    n_inputs = len(inputs)

    def first_derivatives(*values):
        results = _outputs(func, values[:n_inputs])
        wrt = [v for v in values[:n_inputs] if isinstance(v, Tensor) and v.requires_grad]
        grads = grad(results, wrt, values[n_inputs:], create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)
    if not differentiated:
        return True
    return gradcheck(first_derivatives, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, **unsupported)
