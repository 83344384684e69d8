from __future__ import annotations

from typing import TYPE_CHECKING

from tapegrad._tensor import Tensor

from . import constraints
from .gamma import Gamma
from .utils import _size

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with df degrees of freedom: Gamma(df / 2, 1 / 2)."""
    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: _size, _instance: Self | None = None) -> Self:
        return super().expand(batch_shape, self._get_checked_instance(Chi2, _instance))

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
