"""Type aliases for tapegrad.nn's annotations, as torch.nn.common_types: a size or ratio given
as one number or as a tuple with one entry per dimension, and what a device may be given as."""
from typing import TypeAlias

from tapegrad._device import device

_size_any_t: TypeAlias = int | tuple[int, ...]
_size_1_t: TypeAlias = int | tuple[int]
_size_2_t: TypeAlias = int | tuple[int, int]
_size_3_t: TypeAlias = int | tuple[int, int, int]
_size_any_opt_t: TypeAlias = int | None | tuple[int | None, ...]
_size_2_opt_t: TypeAlias = int | None | tuple[int | None, int | None]
_size_3_opt_t: TypeAlias = int | None | tuple[int | None, int | None, int | None]
_ratio_2_t: TypeAlias = float | tuple[float, float]
_ratio_3_t: TypeAlias = float | tuple[float, float, float]
_ratio_any_t: TypeAlias = float | tuple[float, ...]
DeviceLikeType: TypeAlias = str | device | int
