"""torch.backends.cuda without CUDA: not built; the cuBLAS and attention flags keep torch's
defaults so code that sets or reads them runs unchanged."""


def is_built():
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: allow_tf32 mirrors torch.get_float32_matmul_precision()."""

    __slots__ = ("_precision", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction")

    def __init__(self):
        self._precision = "highest"
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self):
        return self._precision != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value):
        self._precision = "high" if value else "highest"

    def __getattr__(self, name):
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name, value):
        if name not in cuBLASModule.__slots__ and name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = cuBLASModule()
_attention = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled():
    return _attention["flash"]


def enable_flash_sdp(enabled):
    _attention["flash"] = enabled


def mem_efficient_sdp_enabled():
    return _attention["mem_efficient"]


def enable_mem_efficient_sdp(enabled):
    _attention["mem_efficient"] = enabled


def math_sdp_enabled():
    return _attention["math"]


def enable_math_sdp(enabled):
    _attention["math"] = enabled


def cudnn_sdp_enabled():
    return _attention["cudnn"]


def enable_cudnn_sdp(enabled):
    _attention["cudnn"] = enabled
