"""A reference implementation defined outside its op class: `@reference(OpClass)`.

An op's numpy reference semantics is its `reference(self, *arrays)` method, on its class
(`tilefoundry/ops/`): the interpreter calls it (`evaluate_op`). A library of custom ops defines
the method on its own classes the same way; `@reference(OpClass)` is the equivalent for an
implementation written as a function elsewhere (it becomes the class's `reference` method):

```python
@reference(MyOp)                  # impl(op, *arrays) -> array | tuple | None
def _my_op(op: MyOp, x): ...
MyOp().reference(x)               # what `tilefoundry.interpreter.evaluate` calls
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.support.arguments import shown
from tilefoundry.support.diagnostics import ExecutionError

__all__ = ["ExecutionError", "Impl", "reference"]

Impl = Callable[..., Any]


def reference(op_class: type[Op]) -> Callable[[Impl], Impl]:
    """`@reference(OpClass)`: the function is the op's numpy reference semantics (its
    `reference` method). An op class that defines its own `reference` is refused: one op has
    one definition."""
    if not (isinstance(op_class, type) and issubclass(op_class, Op)):
        raise TypeError(f"@reference applies to an Op class, got {shown(op_class)}")
    if "reference" in vars(op_class) and not getattr(
        vars(op_class)["reference"], "_installed", False
    ):
        raise TypeError(
            f"{op_class.__name__} defines its own reference method; change it there instead"
        )

    def install(impl: Impl) -> Impl:
        def method(self: Op, *arrays: Any) -> Any:
            return impl(self, *arrays)

        method.__doc__ = impl.__doc__
        method._installed = True  # type: ignore[attr-defined]
        op_class.reference = method  # type: ignore[method-assign]
        return impl

    return install
