"""Effect-form ops: they act in place and produce no value (`UnitType`).

```mlir
tf.call tf.memory.copy(%dst, %src) : (tensor<4xf32>, tensor<4xf32>) -> ()
```
"""

from __future__ import annotations

from typing import ClassVar

from tilefoundry.ir.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.patterns import Tensor
from tilefoundry.types import IRType, TensorType, UnitType

__all__ = ["Copy"]


@register_op(category="memory", name="copy")
class Copy(Op):
    """Copies `src` into `dst` in place.

    Types: `dst` and `src` have one type; the call has no result (an effect-form call).

    FLOPs: none (it moves data).

    ```mlir
    tf.call tf.memory.copy(%dst, %src) : (tensor<4xf32>, tensor<4xf32>) -> ()
    ```
    """

    pure: ClassVar[bool] = False

    dst = ParamDef(kind="input", pattern=Tensor)
    src = ParamDef(kind="input", pattern=Tensor)

    def infer_type(self, *arg_types: IRType) -> IRType:
        dst, src = arg_types
        assert isinstance(dst, TensorType) and isinstance(src, TensorType)
        if dst != src:
            raise ValueError(f"copy needs equal types, got dst {dst} and src {src}")
        return UnitType()
