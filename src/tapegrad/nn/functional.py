"""tapegrad.nn.functional: activations, losses, convolutions..., as torch.nn.functional.
Every function is declared with its op in tapegrad/ops (its family's NN_FUNCTIONS)."""
from typing import TYPE_CHECKING

from ..ops import NN_FUNCTIONS

globals().update(NN_FUNCTIONS)
from . import grad as grad  # noqa: E402  (torch.nn.functional.grad is torch.nn.grad)
from .attention_functional import (  # noqa: E402  (`as`: a public name, to a type checker)
    multi_head_attention_forward as multi_head_attention_forward)

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._functions import *  # noqa: F403
