"""nn.utils.stateless: the deprecated home of functional_call (now tapegrad.func's)."""
from ... import func
from ..._warnings import warn

__all__ = ["functional_call"]


def functional_call(module, parameters_and_buffers, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """tapegrad.func.functional_call, with torch's deprecation warning."""
    warn("`torch.nn.utils.stateless.functional_call` is deprecated as of PyTorch 2.0 and will "
         "be removed in a future version of PyTorch. Please use `torch.func.functional_call` "
         "instead which is a drop-in replacement.", FutureWarning)
    return func.functional_call(module, parameters_and_buffers, args, kwargs,
                                tie_weights=tie_weights, strict=strict)
