"""The table of reference implementations, by Op class, and the error a reference run raises.

```python
@reference(MyOp)                  # registers impl(op, *arrays) -> array | tuple | None
def _my_op(op: MyOp, x): ...
REFERENCE[MyOp]                   # the implementation `tilefoundry.interpreter.evaluate` calls
raise ExecutionError("...")       # a reference run refused
```

The implementations of the op library register themselves in `reference.py` and
`reference_tensor.py`, which import this table (never the evaluator).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tilefoundry.ir.algebra.op_registry import Op, op_table_decorator

__all__ = ["REFERENCE", "ExecutionError", "Impl", "reference"]

Impl = Callable[..., Any]
REFERENCE: dict[type[Op], Impl] = {}


reference = op_table_decorator(REFERENCE)
"""`@reference(OpClass)`: the function is the op's numpy reference semantics."""


class ExecutionError(ValueError):
    """A reference run refused: a bad argument, or an op without a reference implementation."""
