"""tapegrad.autograd: the engine, grad modes and graph nodes, as torch.autograd."""
from . import function, functional, graph
from .engine import backward, grad
from .function import Function, once_differentiable
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import gradcheck, gradgradcheck

__all__ = ["Function", "backward", "enable_grad", "function", "functional", "grad", "gradcheck",
           "gradgradcheck", "graph", "is_grad_enabled", "no_grad", "once_differentiable",
           "set_grad_enabled"]
