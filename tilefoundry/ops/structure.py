"""Multi-output values: `Split` produces a tuple, `TupleGetItem` projects one field.

```mlir
%t = tf.call tf.shape.split<axis = 1, sections = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x4xf32>, tensor<4x4xf32>>
%a = tf.call tf.tuple.get_item<index = 0>(%t) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x4xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from xdsl.ir import OpResult, SSAValue

from tilefoundry.builtin.types import IRType, TensorType, TupleType
from tilefoundry.dialects.tf.ops import TupleOp, produced_value
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.mlir_builder import Emitted, MlirBuilder, values
from tilefoundry.mlir_builder.structured import extract_slice
from tilefoundry.ops.shapes import normalize_axis, tensor_args

__all__ = ["Split", "TupleGetItem"]


@register_op(category="tuple", name="get_item")
class TupleGetItem(Op):
    """Field `index` of a tuple value (negative indices count from the end).

    Types: the input is a tuple and `index` one of its fields; the result has that field's
    type.

    FLOPs: none.

    ```mlir
    %a = tf.call tf.tuple.get_item<index = 0>(%t) : (tuple<tensor<4x4xf32>, tensor<4x4xf32>>) -> tensor<4x4xf32>
    ```
    """

    builder_name: ClassVar[str] = "tuple_get_item"

    input = ParamDef(kind="input")
    index = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (t,) = arg_types
        index: int = self.index
        if not isinstance(t, TupleType):
            raise ValueError(f"tuple_get_item needs a tuple, got {t}")
        if not -len(t) <= index < len(t):
            raise ValueError(f"index {index} is out of range for a {len(t)}-field tuple")
        return t.fields[index]

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A tuple has no MLIR value: the field is the emitted value it holds."""
        (t,) = args
        assert isinstance(t, tuple)
        field: Emitted = t[self.index]
        return field

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A field of a `tf.tuple` is the element it was built from."""
        produced = produced_value(args[0])
        if isinstance(produced, OpResult) and isinstance(produced.op, TupleOp):
            element: SSAValue = produced.op.elements_[self.index]
            return element
        return None

    def reference(self, *arrays: Any) -> Any:
        return arrays[0][self.index]


@register_op(category="shape", name="split")
class Split(Op):
    """Splits a static dim into `sections` equal parts: a multi-output op (a tuple).

    Types: dim `axis` of the input is static and a multiple of `sections` (>= 1); the result
    is a tuple of `sections` tensors of the input's dtype, each with that dim divided by
    `sections`.

    FLOPs: none (it moves data).

    ```mlir
    %t = tf.call tf.shape.split<axis = 1, sections = 2>(%x) : (tensor<4x8xf32>) -> tuple<tensor<4x4xf32>, tensor<4x4xf32>>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    axis = ParamDef(kind="attribute", annotation=int)
    sections = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = tensor_args(arg_types)
        axis = normalize_axis(self.axis, x.rank)
        size = x.shape[axis]
        if self.sections < 1:
            raise ValueError(f"sections must be >= 1, got {self.sections}")
        if not isinstance(size, int):
            raise ValueError(f"cannot split the dynamic dim {size.name} into equal parts")
        if size % self.sections:
            raise ValueError(f"dim {axis} of size {size} does not split into {self.sections} parts")
        part = TensorType((*x.shape[:axis], size // self.sections, *x.shape[axis + 1 :]), x.dtype)
        return TupleType((part,) * self.sections)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """One `tensor.extract_slice` per part."""
        (x_type,) = tensor_args(arg_types)
        assert isinstance(result, TupleType)
        axis = normalize_axis(self.axis, x_type.rank)
        (x,) = values(args)
        parts = []
        for index, part in enumerate(result.fields):
            assert isinstance(part, TensorType)
            size = part.shape[axis]
            assert isinstance(size, int)
            offsets: list[int] = [index * size if i == axis else 0 for i in range(x_type.rank)]
            parts.append(extract_slice(b, x, list(offsets), part))
        return tuple(parts)

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        return tuple(np.split(arrays[0], self.sections, axis=self.axis))
