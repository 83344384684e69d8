"""tapegrad.nn.functional: activations, losses, convolutions..., as torch.nn.functional.
Every function is declared with its op in tapegrad/ops (its family's NN_FUNCTIONS)."""
from typing import TYPE_CHECKING

from ..ops import NN_FUNCTIONS

globals().update(NN_FUNCTIONS)
from .attention_functional import multi_head_attention_forward  # noqa: E402,F401

if TYPE_CHECKING:  # their signatures, for type checkers (written by tools/stubs.py)
    from ._functions import *  # noqa: F403
