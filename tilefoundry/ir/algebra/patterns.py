"""Patterns: the reusable predicates shared by parser dispatch and specialization dispatch.

Parser dispatch matches a `ParamDef.pattern` against an argument's type during overload
resolution (`ScalarPat`, `TensorPat`, `AndPat`, and the singletons `Scalar` and `Tensor`).
Specialization dispatch reads the fields of a `DimVarRangePat` directly; `match` is the same
half-open test on a concrete size.

```python
Tensor.match(TensorType((4, 8), "f32"))                  # True
AndPat((TensorPat(rank=2), TensorPat(dtype="bf16")))     # a rank-2 bf16 tensor
DimVarRangePat("n", 1, 128).match(64)                    # True: 1 <= 64 < 128
```
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tilefoundry.builtin.types import DTYPES, TensorType
from tilefoundry.support.arguments import items_of, shown

__all__ = [
    "AndPat",
    "DimVarRangePat",
    "Pattern",
    "Scalar",
    "ScalarPat",
    "Tensor",
    "TensorPat",
]


def _subject_type(subject: object) -> object:
    """Match against an Expr's type when given an Expr."""
    from_expr = getattr(subject, "type", None)
    return subject if isinstance(subject, TensorType) or from_expr is None else from_expr


@dataclass(frozen=True)
class Pattern:
    """The base predicate: it matches everything; subclasses narrow it by overriding `match`."""

    def match(self, subject: object) -> bool:
        return True

    def __str__(self) -> str:
        return "Any"


@dataclass(frozen=True)
class ScalarPat(Pattern):
    """Matches a rank-0 tensor type (a scalar)."""

    def match(self, subject: object) -> bool:
        t = _subject_type(subject)
        return isinstance(t, TensorType) and t.rank == 0

    def __str__(self) -> str:
        return "Scalar"


@dataclass(frozen=True)
class TensorPat(Pattern):
    """Matches a non-scalar tensor type, of the given rank (>= 1) and dtype when they are set."""

    rank: int | None = None
    dtype: str | None = None

    def __post_init__(self) -> None:
        if self.rank is not None:
            if not isinstance(self.rank, int) or isinstance(self.rank, bool) or self.rank < 1:
                raise ValueError(
                    f"TensorPat.rank must be an int >= 1 (a rank-0 tensor is a Scalar), "
                    f"got {shown(self.rank)}"
                )
        if self.dtype is not None and self.dtype not in DTYPES:
            raise ValueError(
                f"unknown dtype {shown(self.dtype)}; expected one of {', '.join(DTYPES)}"
            )

    def match(self, subject: object) -> bool:
        t = _subject_type(subject)
        if not isinstance(t, TensorType) or t.rank == 0:
            return False
        if self.rank is not None and t.rank != self.rank:
            return False
        return self.dtype is None or t.dtype == self.dtype

    def __str__(self) -> str:
        fields = [f"rank={self.rank}"] * (self.rank is not None)
        fields += [f"dtype={self.dtype}"] * (self.dtype is not None)
        return f"Tensor({', '.join(fields)})" if fields else "Tensor"


@dataclass(frozen=True)
class AndPat(Pattern):
    """Matches what every one of its parts matches."""

    parts: tuple[Pattern, ...]

    def __init__(self, parts: Iterable[Pattern]) -> None:
        items = items_of(parts, "AndPat parts", "an iterable of Patterns")
        if not items:
            raise ValueError("AndPat needs at least one part")
        for part in items:
            if not isinstance(part, Pattern):
                raise TypeError(f"AndPat parts must be Patterns, got {shown(part)}")
        object.__setattr__(self, "parts", items)

    def match(self, subject: object) -> bool:
        return all(part.match(subject) for part in self.parts)

    def __str__(self) -> str:
        return " & ".join(str(p) for p in self.parts)


Scalar = ScalarPat()
Tensor = TensorPat()


@dataclass(frozen=True)
class DimVarRangePat(Pattern):
    """The per-variant sub-range `[lo, hi)` of the DimVar named `dim_var`.

    `match(v)` is `lo <= v < hi` and ignores `dim_var`. Containment in the DimVar's own envelope
    is checked where the signature is known (the function verifier), not here.
    """

    dim_var: str
    lo: int
    hi: int

    def __post_init__(self) -> None:
        if not isinstance(self.dim_var, str):
            raise TypeError(f"DimVarRangePat.dim_var must be a str, got {shown(self.dim_var)}")
        if not self.dim_var:
            raise ValueError("DimVarRangePat.dim_var must be a non-empty DimVar name")
        for field in ("lo", "hi"):
            value = getattr(self, field)
            if not isinstance(value, int) or isinstance(value, bool):
                raise TypeError(
                    f"DimVarRangePat.{field} must be a plain int, got {type(value).__name__} "
                    f"{shown(value)}"
                )
        if not self.lo < self.hi:
            raise ValueError(
                f"DimVarRangePat for '{self.dim_var}' needs lo < hi, got [{shown(self.lo)}, {shown(self.hi)}); "
                f"a single point k is [k, k+1)"
            )

    def match(self, subject: object) -> bool:
        if not isinstance(subject, int) or isinstance(subject, bool):
            return False
        return self.lo <= subject < self.hi

    def __str__(self) -> str:
        return f"{self.dim_var}: {self.lo} to {self.hi}"
