"""torch.backends.cuda without CUDA: not built; the cuBLAS and attention flags keep torch's
defaults so code that sets or reads them runs unchanged."""
from __future__ import annotations

from typing import Any, Callable


def is_built() -> bool:
    return False


class cuBLASModule:
    """torch.backends.cuda.matmul: allow_tf32 mirrors torch.get_float32_matmul_precision()."""

    __slots__ = ("_precision", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction")

    def __init__(self) -> None:
        self._precision = "highest"
        self.allow_fp16_reduced_precision_reduction = True
        self.allow_bf16_reduced_precision_reduction = True

    @property
    def allow_tf32(self) -> bool:
        return self._precision != "highest"

    @allow_tf32.setter
    def allow_tf32(self, value: bool) -> None:
        self._precision = "high" if value else "highest"

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in cuBLASModule.__slots__ and name != "allow_tf32":
            raise AttributeError(f"Unknown attribute {name}")
        object.__setattr__(self, name, value)


matmul = cuBLASModule()


def _attention_switch(kernel: str) -> tuple[Callable[[], bool], Callable[[bool], None]]:
    """The query and the setter of one scaled-dot-product-attention kernel flag."""
    state = {"enabled": True}

    def is_enabled() -> bool:
        return state["enabled"]

    def enable(enabled: bool) -> None:
        state["enabled"] = enabled
    is_enabled.__name__, enable.__name__ = f"{kernel}_sdp_enabled", f"enable_{kernel}_sdp"
    return is_enabled, enable


flash_sdp_enabled, enable_flash_sdp = _attention_switch("flash")
mem_efficient_sdp_enabled, enable_mem_efficient_sdp = _attention_switch("mem_efficient")
math_sdp_enabled, enable_math_sdp = _attention_switch("math")
cudnn_sdp_enabled, enable_cudnn_sdp = _attention_switch("cudnn")
