"""SciPy for an op's arrays: SciPy's own for NumPy's, the device backend's twin for a device's
(CuPy's: cupyx.scipy). A backend without one, or a twin without the function, makes the op say
so rather than copy the data to the host."""

import numpy as np

from .. import _backend
from .._scipy import scipy


def scipy_of(xp, submodule, array, op_name, needed_by):
    """scipy.<submodule> for NumPy's arrays, the device backend's twin of it for a device's
    (CuPy's: cupyx.scipy.<submodule>); op_name is tapegrad's op, needed_by torch's function
    (for SciPy's ImportError)."""
    if xp is np:
        return scipy(submodule, needed_by)
    twin = getattr(_backend.ARRAY_TYPES.get(type(array)), "scipy", None)
    if twin is None:
        raise NotImplementedError(f"tapegrad's {op_name} does not run on "
                                  f"{_backend.device_of(array)} yet: its array module has no "
                                  f"scipy.{submodule}")
    return twin(submodule)


def scipy_value(xp, submodule, compute, array, op_name, needed_by):
    """compute(module, array) with scipy_of's module, or the op's NotImplementedError where
    CuPy's module lacks the function (cupyx.scipy.special has no airy or spherical_jn)."""
    module = scipy_of(xp, submodule, array, op_name, needed_by)
    try:
        return compute(module, array)
    except AttributeError as error:
        if xp is np:
            raise
        raise NotImplementedError(f"tapegrad's {op_name} does not run on "
                                  f"{_backend.device_of(array)} yet: CuPy's "
                                  f"cupyx.scipy.{submodule} lacks {error.name}") from None
