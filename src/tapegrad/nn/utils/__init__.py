"""tapegrad.nn.utils: gradient clipping, parameter/vector conversion, variable-length
sequences (rnn), batch-norm fusion and skip_init, as torch.nn.utils."""
from . import fusion, rnn, stateless
from .clip_grad import (clip_grad_norm, clip_grad_norm_, clip_grad_value_, clip_grads_with_norm_,
                        get_total_norm)
from .convert_parameters import parameters_to_vector, vector_to_parameters
from .fusion import (fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval,
                     fuse_linear_bn_weights)
from .init import skip_init

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval",
           "fuse_linear_bn_weights", "fusion", "get_total_norm", "parameters_to_vector", "rnn",
           "skip_init", "stateless", "vector_to_parameters"]
from . import parametrizations, parametrize  # noqa: E402  (prune, as torch's, on import only)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: E402

__all__ += ["parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm",
            "spectral_norm", "weight_norm"]
