"""When the folder may bake an op's result into a literal: the result the interpreter computes
(`evaluate_op`) is folded only when it is a defined value that the docs promise (docs/ir.md,
"Numeric semantics"; docs/passes.md, `tf-fold-constants`).

- A float result must be finite (an inf or a NaN is left to run time).
- An integer result must be exact: the op computed on unbounded Python integers gives the same
  value, within the dtype's range (so no overflow is ever baked in, however large the dtype: the
  check is integer arithmetic, not float64). An integer division by zero, a negative integer
  power and a cast into an integer type that changes a value (a fraction, NaN, out of range,
  i1 of anything but 0 / 1) are not folded.
- An op with an integer result and no rule here (`@exact_integers(OpClass)`:
  `check(op, arrays, value) -> bool`) is judged by its own reference run on unbounded Python
  integers (object arrays): folded when that run succeeds and gives the same values, in range
  (an op that only moves values, or adds exactly); not folded when it fails.

```python
exact_result(Binary(kind=BinaryKind.ADD), [np.int64([2**62])] * 2, np.int64([-2**63]))  # False
```
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tilefoundry.dialects.tf.numerics import int_range
from tilefoundry.ir.algebra.op_registry import Op, op_table_decorator
from tilefoundry.ops.linalg import MatMul, Transpose
from tilefoundry.ops.math import Binary, BinaryKind, Cast, Unary, UnaryKind
from tilefoundry.ops.reduce import ReduceMax, ReduceSum

__all__ = ["EXACT_INTEGERS", "exact_integers", "exact_result"]

Check = Callable[[Any, Sequence[Any], Any], bool]
EXACT_INTEGERS: dict[type[Op], Check] = {}


exact_integers = op_table_decorator(EXACT_INTEGERS)
"""`@exact_integers(OpClass)`: when the op's integer result may be folded (see the module
docstring)."""


def exact_result(op: Op, arrays: Sequence[Any], value: Any) -> bool:
    """Whether the interpreter's `value` of `op` on `arrays` may become a literal."""
    import numpy as np

    kind = value.dtype.kind
    if kind == "f":
        return bool(np.all(np.isfinite(value)))
    if kind == "b" and not isinstance(op, Cast):
        return True
    check: Check = EXACT_INTEGERS.get(type(op), _by_unbounded_reference)
    return bool(check(op, arrays, value))


def _by_unbounded_reference(op: Op, arrays: Sequence[Any], value: Any) -> bool:
    """The op's reference on object arrays of Python integers gives the same values, in range."""
    from tilefoundry.interpreter.reference import REFERENCE

    impl = REFERENCE.get(type(op))
    if impl is None:
        return False
    try:
        exact = impl(op, *[_unbounded(a) for a in arrays])
        return _same_exact(exact, value)
    except Exception:  # a kernel that needs numpy dtypes: judged not exact, never an error
        return False


def _dtype_name(value: Any) -> str:
    return "i1" if value.dtype.kind == "b" else f"i{value.dtype.itemsize * 8}"


def _same_exact(exact: Any, value: Any) -> bool:
    """Whether unbounded integers `exact` lie in `value`'s range and equal it."""
    import numpy as np

    exact = np.asarray(exact, dtype=object)
    if exact.shape != value.shape or not all(_is_int(v) for v in exact.reshape(-1)):
        return False
    lo, hi = int_range(_dtype_name(value))
    flat = exact.reshape(-1)
    if flat.size and not (lo <= min(flat) and max(flat) <= hi):
        return False
    return bool(np.array_equal(exact.astype(np.int64), value.astype(np.int64)))


def _is_int(v: object) -> bool:
    import numpy as np

    return isinstance(v, int | np.integer | np.bool_)


def _unbounded(array: Any) -> Any:
    return array.astype(object)


_EXPONENT_LIMIT = 64
"""Past this exponent, |base| >= 2 overflows every dtype: the exact power stops growing there
(keeping the exponent's parity), so huge exponents cost nothing."""


@exact_integers(Binary)
def _binary(op: Binary, arrays: Sequence[Any], value: Any) -> bool:
    import numpy as np

    a, b = (_unbounded(x) for x in arrays)
    kind = op.kind
    if kind is BinaryKind.ADD:
        return _same_exact(a + b, value)
    if kind is BinaryKind.SUB:
        return _same_exact(a - b, value)
    if kind is BinaryKind.MUL:
        return _same_exact(a * b, value)
    if kind is BinaryKind.DIV:
        return not np.any(arrays[1] == 0) and _same_exact(a // b, value)
    if kind is BinaryKind.POW:
        if np.any(arrays[1] < 0):
            return False
        limit = _EXPONENT_LIMIT
        clipped = np.where(b > limit, limit + b % 2, b)
        return _same_exact(a**clipped, value)
    return kind in (BinaryKind.MAX, BinaryKind.MIN)


@exact_integers(Unary)
def _unary(op: Unary, arrays: Sequence[Any], value: Any) -> bool:
    import numpy as np

    (x,) = (_unbounded(a) for a in arrays)
    if op.kind is UnaryKind.NEG:
        return _same_exact(-x, value)
    if op.kind is UnaryKind.ABS:
        return _same_exact(np.abs(x), value)
    return op.kind is UnaryKind.RELU


@exact_integers(Cast)
def _cast(op: Cast, arrays: Sequence[Any], value: Any) -> bool:
    """A cast into an integer type keeps every value (a float: finite, integral, in range)."""
    import numpy as np

    (source,) = arrays
    if source.dtype.kind == "f":
        lo, hi = int_range(op.dtype)
        wide = source.astype(np.float64)
        ok = np.isfinite(wide) & (wide == np.trunc(wide)) & (wide >= lo) & (wide < hi + 1.0)
        if not np.all(ok):
            return False
        exact = np.array([int(v) for v in wide.reshape(-1)], dtype=object)
        return _same_exact(exact.reshape(wide.shape), value)
    return _same_exact(_unbounded(source.astype(np.int64)), value)


@exact_integers(ReduceSum)
def _reduce_sum(op: ReduceSum, arrays: Sequence[Any], value: Any) -> bool:
    import numpy as np

    (x,) = arrays
    exact = np.sum(_unbounded(x), axis=op.axis, keepdims=op.keepdims)
    return _same_exact(exact, value)


_EXACT_MATMUL_STEPS = 1 << 20
"""The most multiply-adds the exact (Python integer) check of a matmul makes; past it, a matmul
whose bound does not settle the question is not folded."""


@exact_integers(MatMul)
def _matmul(op: MatMul, arrays: Sequence[Any], value: Any) -> bool:
    """Exact when even the sum of the magnitudes stays within half the range (judged in
    float64, whose relative error is far below that margin), else on Python integers."""
    import numpy as np

    lhs, rhs = arrays
    bound = np.matmul(np.abs(lhs.astype(np.float64)), np.abs(rhs.astype(np.float64)))
    if float(bound.max()) < 2.0 ** (value.dtype.itemsize * 8 - 2):
        return True
    if value.size * lhs.shape[-1] > _EXACT_MATMUL_STEPS:
        return False
    return _same_exact(np.matmul(_unbounded(lhs), _unbounded(rhs)), value)


def _moves_values(op: Op, arrays: Sequence[Any], value: Any) -> bool:
    """An op that only moves or selects values computes nothing that could overflow."""
    return True


for _op_class in (Transpose, ReduceMax):
    exact_integers(_op_class)(_moves_values)
del _op_class
