"""tapegrad.autograd: the engine, grad modes and graph nodes, as torch.autograd."""
from . import forward_ad, function, functional, graph
from .anomaly_mode import detect_anomaly, set_detect_anomaly
from .engine import backward, grad
from .function import Function, once_differentiable
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled, is_inference_mode_enabled,
                        no_grad, set_grad_enabled)
from .gradcheck import gradcheck, gradgradcheck
from .variable import Variable


def variable(*args, **kwargs):
    """Removed in torch: raises, pointing to tensor()."""
    raise RuntimeError(
        "torch.autograd.variable(...) is deprecated, use torch.tensor(...) instead")


__all__ = ["Function", "backward", "detect_anomaly", "forward_ad", "enable_grad", "function", "functional", "grad", "gradcheck",
           "gradgradcheck", "graph", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "no_grad", "once_differentiable",
           "set_detect_anomaly", "set_grad_enabled", "Variable"]
