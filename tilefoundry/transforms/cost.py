"""`Cost`: one function's measurement by `tf-analyze`, and its `tf.cost` attribute.

```mlir
hir.func @mm(...) attributes {tf.cost = {flops = 65536 : i64, bytes = 14336 : i64, time_s = 4.27e-09 : f64, bound = "memory", self_flops = 65536 : i64, self_bytes = 14336 : i64}} { ... }
```
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass

from xdsl.dialects.builtin import DictionaryAttr, FloatAttr, IntegerAttr, StringAttr, f64, i64
from xdsl.ir import Attribute

__all__ = ["COST_ATTR", "Cost"]

COST_ATTR = "tf.cost"
"""The discardable attribute a function's measurement is recorded in."""

_FIELDS = ("flops", "bytes", "time_s", "bound", "self_flops", "self_bytes")


@dataclass(frozen=True)
class Cost:
    """One function's measurement (see the module docstring): `flops` and `bytes` are inclusive
    (its own and its callees'), `self_flops` and `self_bytes` its own; `time_s` and `bound` are
    the roofline of the inclusive figures."""

    flops: int
    bytes: int
    time_s: float
    bound: str
    self_flops: int
    self_bytes: int

    @property
    def intensity(self) -> float:
        """Arithmetic intensity, FLOPs per byte of the inclusive figures (inf with no bytes)."""
        if self.bytes == 0:
            return math.inf if self.flops else 0.0
        return self.flops / self.bytes

    def to_attr(self) -> DictionaryAttr:
        return DictionaryAttr(
            {
                "flops": IntegerAttr(self.flops, i64),
                "bytes": IntegerAttr(self.bytes, i64),
                "time_s": FloatAttr(self.time_s, f64),
                "bound": StringAttr(self.bound),
                "self_flops": IntegerAttr(self.self_flops, i64),
                "self_bytes": IntegerAttr(self.self_bytes, i64),
            }
        )

    @staticmethod
    def from_attr(attr: Attribute) -> Cost:
        """The cost a `tf.cost` attribute records (ValueError when it is not one)."""
        if not isinstance(attr, DictionaryAttr):
            raise ValueError(f"{COST_ATTR} must be a dictionary, got {attr}")
        fields = attr.data
        if set(fields) != set(_FIELDS):
            raise ValueError(
                f"{COST_ATTR} holds {', '.join(_FIELDS)}, got {', '.join(sorted(fields)) or 'none'}"
            )
        flops, bytes_, time_s, bound, self_flops, self_bytes = (fields[k] for k in _FIELDS)
        counts = (flops, bytes_, self_flops, self_bytes)
        if not all(isinstance(c, IntegerAttr) for c in counts):
            raise ValueError(f"{COST_ATTR} flops, bytes, self_flops and self_bytes are integers")
        if not isinstance(time_s, FloatAttr):
            raise ValueError(f"{COST_ATTR} time_s is a float")
        if not isinstance(bound, StringAttr) or bound.data not in ("compute", "memory"):
            raise ValueError(f'{COST_ATTR} bound is "compute" or "memory"')
        f, b, sf, sb = (typing.cast(IntegerAttr, c).value.data for c in counts)
        return Cost(f, b, time_s.value.data, bound.data, sf, sb)
