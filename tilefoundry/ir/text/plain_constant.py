"""The parser's one-step reading of a constant on one plain line.

```mlir
%c = tf.constant dense<[1.5, 2.0, 3.0, 4.0]> : tensor<4xf32>
```

An op whose custom form is a dense literal and its type, and which `create(properties={<value>:
literal}, result_types=[literal's type])` builds, declares it with `register_plain_constant`:
the parser (`TFParser`) then reads a line holding nothing else in one step
(`ir/text/fast_forms.py`'s `read_plain_constant`); any other spelling is read by the op's `parse`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Operation

from tilefoundry.ir.text.asm import PlainOp, TFParser, register_plain_form
from tilefoundry.ir.text.fast_forms import read_plain_constant

__all__ = ["PlainConstant", "register_plain_constant"]


@dataclass(frozen=True)
class PlainConstant:
    """The plain form of a constant-shaped op: `op` built with its literal in `value`."""

    op: type[Operation]
    value: str

    def __call__(self, parser: TFParser, position: int) -> PlainOp | None:
        """The literal and type from `position` to the line's end, read in one step; None when
        the text has another shape."""
        read = read_plain_constant(parser, position, self.build)
        return None if read is None else PlainOp(*read)

    def learn(self, parser: TFParser, position: int, op: Operation) -> None:
        """Nothing to learn: the plain line is read whole, from its text alone."""

    def build(self, literal: DenseIntOrFPElementsAttr) -> Operation:
        return self.op.create(properties={self.value: literal}, result_types=[literal.type])


def register_plain_constant(op: type[Operation], value: str) -> None:
    """Let the parser read `op`'s plain line in one step (see the module docstring)."""
    register_plain_form(op, PlainConstant(op, value))
