"""tapegrad.autograd: the engine, grad modes and graph nodes, as torch.autograd."""
from . import graph
from .engine import backward, grad
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["backward", "enable_grad", "grad", "gradcheck", "gradgradcheck", "graph",
           "is_grad_enabled", "no_grad", "set_grad_enabled"]
