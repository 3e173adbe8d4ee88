"""Memory ops: what TIR does with buffers (`!tf.buffer<...>`, see docs/ir.md, "Buffers").

- `tf.memory.alloc<shape = [...], dtype = ...>()`: a fresh buffer, zero-initialised; the
  spec's resource-introducing op, anchored by a `tir.let` (each call a distinct buffer);
- `tf.memory.load(%buf)`: value-form, reads the buffer; its result is a tensor snapshot;
- `tf.memory.copy(%dst, %src)`: effect-form (no value, `UnitType`), run by a `tir.evaluate`;
  writes `dst` (a buffer) in place with `src` (a tensor or a buffer of the same shape and dtype).

```mlir
%buf = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
tir.evaluate tf.call tf.memory.copy(%buf, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
%now = tir.let tf.call tf.memory.load(%buf) : (!tf.buffer<4xf32>) -> tensor<4xf32>
```
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from tilefoundry.builtin.types import BufferType, IRType, TensorType, UnitType
from tilefoundry.dialects.tf.dense import numpy_dtype
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op
from tilefoundry.ir.algebra.patterns import Pattern
from tilefoundry.mlir_builder import Emitted, MlirBuilder, values
from tilefoundry.mlir_builder.composite import zero
from tilefoundry.mlir_builder.types import memref_type
from tilefoundry.ops.shapes import DtypeOp
from tilefoundry.support.arguments import shown

__all__ = ["Alloc", "Copy", "Load"]

AnyShape = Pattern()
"""A tensor (or buffer) of any rank, a scalar included: memory ops move whole contents."""


def _contents(type: IRType) -> TensorType:
    """The tensor type a tensor or buffer argument holds."""
    if isinstance(type, BufferType):
        return type.tensor
    if not isinstance(type, TensorType):
        raise ValueError(f"expected a tensor or a buffer, got {type}")
    return type


@register_op(category="memory", name="copy")
class Copy(Op):
    """Writes `src` (a tensor, or a buffer's contents) into the buffer `dst`, in place.

    Types: `dst` is a buffer and `src` a tensor or buffer of its shape and dtype; the call has no
    result (an effect-form call).

    FLOPs: none (it moves data).

    ```mlir
    tir.evaluate tf.call tf.memory.copy(%dst, %src) : (!tf.buffer<4xf32>, tensor<4xf32>) -> ()
    ```
    """

    pure: ClassVar[bool] = False

    dst = ParamDef(kind="input", pattern=AnyShape, effect="write")
    src = ParamDef(kind="input", pattern=AnyShape, effect="read")

    def infer_type(self, *arg_types: IRType) -> IRType:
        dst, src = (_contents(t) for t in arg_types)
        if dst != src:
            raise ValueError(
                f"copy needs src of the shape and dtype of dst: dst holds {dst}, src {src}"
            )
        return UnitType()

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> None:
        """`memref.copy` into the destination memref: of a buffer's memref, or of a tensor's
        buffer (`bufferization.to_memref`, any layout); the caller's memory is written. By
        value (IREE), the buffer holds the source's tensor from now on."""
        dst, src = values(args)
        if b.by_value:
            b.write(dst, b.read(src))
            return
        if src.type.startswith("tensor"):
            source = _contents(arg_types[1])
            layout = ", ".join("?" for _ in source.shape)
            strided = memref_type(source)[:-1] + f", strided<[{layout}], offset: ?>>"
            src = b.op(f"bufferization.to_memref {src} : {strided}", strided)
        if src.name != dst.name:
            b.line(f"memref.copy {src}, {dst} : {src.type} to {dst.type}")

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        dst, src = arrays
        np.copyto(dst, src)
        return None  # an effect: dst is written in place


@register_op(category="memory", name="load")
class Load(Op):
    """Reads a buffer: the result is a tensor, a snapshot of its contents at this point.

    Types: `buffer` is a buffer; the result is the tensor of its shape and dtype.

    FLOPs: none (it moves data).

    ```mlir
    %t = tir.let tf.call tf.memory.load(%buf) : (!tf.buffer<4xf32>) -> tensor<4xf32>
    ```
    """

    pure: ClassVar[bool] = False

    buffer = ParamDef(kind="input", pattern=AnyShape, effect="read")

    def infer_type(self, *arg_types: IRType) -> IRType:
        (buffer,) = arg_types
        if not isinstance(buffer, BufferType):
            raise ValueError(f"load reads a buffer, got {buffer}")
        return buffer.tensor

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """A snapshot: the buffer copied into fresh memory that becomes the tensor's
        (`to_tensor restrict`: nothing else refers to it), so later writes do not show. By
        value, the tensor the buffer holds now (a later write gives the buffer another one)."""
        (buffer,) = values(args)
        if b.by_value:
            return b.read(buffer)
        (type,) = arg_types
        assert isinstance(type, BufferType)
        sizes = ", ".join(str(s) for s in b.dynamic_sizes(type.shape))
        copy = b.op(f"memref.alloc({sizes}) : {buffer.type}", buffer.type)
        b.line(f"memref.copy {buffer}, {copy} : {buffer.type} to {buffer.type}")
        tensor = "tensor" + buffer.type[len("memref") :]
        return b.op(f"bufferization.to_tensor {copy} restrict writable : {buffer.type}", tensor)

    def reference(self, *arrays: Any) -> Any:
        """A snapshot: later writes to the buffer do not show."""
        import numpy as np

        return np.array(arrays[0], copy=True)


@register_op(category="memory", name="alloc")
class Alloc(DtypeOp):
    """A fresh buffer of a static shape and dtype, every element zero. Each call is a distinct
    buffer; the call is anchored by a `tir.let` (the spec's resource-introducing op).

    Types: no inputs; the result is the buffer of the `shape` and `dtype` attributes.

    FLOPs: none.

    ```mlir
    %buf = tir.let tf.call tf.memory.alloc<shape = [2, 4], dtype = f32>() : () -> !tf.buffer<2x4xf32>
    ```
    """

    pure: ClassVar[bool] = False
    allocates: ClassVar[bool] = True

    shape = ParamDef(kind="attribute", annotation=tuple[int, ...])
    dtype = ParamDef(kind="attribute", annotation=str)

    def __init__(self, **attrs: object) -> None:
        super().__init__(**attrs)
        if any(d < 0 for d in self.shape):
            raise TypeError(f"Alloc: a dimension is >= 0, got shape {shown(self.shape)}")

    def infer_type(self, *arg_types: IRType) -> IRType:
        return BufferType(self.shape, self.dtype)

    def emit(
        self, b: MlirBuilder, args: Sequence[Emitted], arg_types: Sequence[IRType], result: IRType
    ) -> Emitted:
        """`memref.alloc` filled with zeros: fresh memory each time the statement runs (by
        value: a new buffer holding a zero tensor)."""
        if b.by_value:
            fill = zero(b, self.dtype)
            return b.cell(b.fill(fill, b.empty(TensorType(self.shape, self.dtype))))
        type = memref_type(BufferType(self.shape, self.dtype))
        buffer = b.op(f"memref.alloc() : {type}", type)
        fill = zero(b, self.dtype)
        b.line(f"linalg.fill ins({fill} : {fill.type}) outs({buffer} : {type})")
        return buffer

    def reference(self, *arrays: Any) -> Any:
        import numpy as np

        return np.zeros(self.shape, numpy_dtype(self.dtype))
