"""tapegrad.nn: neural-network building blocks, as torch.nn."""
from . import functional, grad, init, modules, parallel, utils
from .modules import *  # noqa: F401,F403  (every layer class, Module included)
from .parallel import DataParallel
from .parameter import Buffer, Parameter

# the public names, which a type checker reads here (an imported name is public when listed)
__all__ = ["Buffer", "DataParallel", "Parameter", "functional", "grad", "init", "modules", "parallel",
           "utils"]
__all__ += modules.__all__
