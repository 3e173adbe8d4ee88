"""When the folder may bake an op's result into a literal: the result the interpreter computes
(`evaluate_op`) is folded only when it is a defined value that the docs promise (docs/ir.md,
"Numeric semantics"; docs/passes.md, `tf-fold-constants`).

- A float result must be finite (an inf or a NaN is left to run time).
- An integer result must be exact: the op computed on unbounded Python integers gives the same
  value, within the dtype's range (so no overflow is ever baked in, however large the dtype: the
  check is integer arithmetic, not float64). An integer division by zero, a negative integer
  power and a cast into an integer type that changes a value (a fraction, NaN, out of range,
  i1 of anything but 0 / 1) are not folded.
- Each op states its own rule, `exact_integers(arrays, value)` on its class (`Binary`, `Cast`,
  `MatMul`, ...). An op without one (the method returns None) has an exact i1 result, and an
  integer one judged by its own `reference` run on unbounded Python integers (object arrays):
  folded when that run succeeds and gives the same values, in range (an op that only moves
  values, or adds exactly); not folded when it fails.

```python
exact_result(Binary(kind=BinaryKind.ADD), [np.int64([2**62])] * 2, np.int64([-2**63]))  # False
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.ops.folding import same_exact, unbounded

__all__ = ["exact_result"]


def exact_result(op: Op, arrays: Sequence[Any], value: Any) -> bool:
    """Whether the interpreter's `value` of `op` on `arrays` may become a literal."""
    import numpy as np

    kind = value.dtype.kind
    if kind == "f":
        return bool(np.all(np.isfinite(value)))
    verdict = op.exact_integers(arrays, value)
    if verdict is None:
        verdict = kind == "b" or _by_unbounded_reference(op, arrays, value)
    return bool(verdict)


def _by_unbounded_reference(op: Op, arrays: Sequence[Any], value: Any) -> bool:
    """The op's reference on object arrays of Python integers gives the same values, in range."""
    if not op.has_reference():
        return False
    try:
        exact = op.reference(*[unbounded(a) for a in arrays])
        return same_exact(exact, value)
    except Exception:  # a kernel that needs numpy dtypes: judged not exact, never an error
        return False
