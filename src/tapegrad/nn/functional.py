"""tapegrad.nn.functional: activations, losses, convolutions..., as torch.nn.functional.
Every function is declared with its op in tapegrad/ops (its family's NN_FUNCTIONS)."""
from ..ops import NN_FUNCTIONS

globals().update(NN_FUNCTIONS)
from .attention_functional import multi_head_attention_forward  # noqa: E402,F401
