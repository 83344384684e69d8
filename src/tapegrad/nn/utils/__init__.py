"""tapegrad.nn.utils: gradient clipping, parameter/vector conversion and variable-length
sequences (rnn), as torch.nn.utils."""
from . import rnn, stateless
from .clip_grad import clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_, get_total_norm
from .convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "rnn", "stateless", "vector_to_parameters"]
from . import parametrizations, parametrize  # noqa: E402  (prune, as torch's, on import only)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402

__all__ += ["parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
            "spectral_norm", "weight_norm"]
