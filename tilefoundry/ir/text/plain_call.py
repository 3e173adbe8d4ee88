"""The parser's one-step reading of a call on one plain line.

```mlir
%r = tf.call tf.math.binary<kind = add>(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
```

An op whose custom form is `callee(%a, ...) attr-dict : (A, ...) -> R`, and which
`create(operands=..., result_types=..., properties={<callee>: ...})` builds, declares it with
`register_plain_call` and writes its `parse` through xDSL's public `Parser` API only. The
parser (`TFParser`) then reads the plain spelling of it, nothing but the callee, an operand
list of plain names and a function type on the line (and a location after them, which the
parser reads as the full reading does), in one step: the function type and an
op callee are looked up as texts the parser read in full before (it learns an op callee from
the op it read in full), a symbol callee `@f` or `@a::@b` is read here. Any other spelling is
read token by token by the op's `parse`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from xdsl.dialects.builtin import FunctionType, SymbolRefAttr
from xdsl.ir import Operation

from tilefoundry.ir.text.asm import (
    OPERAND,
    PlainOp,
    TFParser,
    bracketed_end,
    plain_operand_names,
    register_plain_form,
)

__all__ = ["PlainCall", "register_plain_call"]

_PLAIN_CALL = re.compile(
    rf"([^(\n]+)(\((?: *{OPERAND} *(?:, *{OPERAND} *)*)?\)) : (\([^\n]*?)"
    r"(?:[ \t]+(?=loc\()|[ \t]*$)",
    re.M,
)
"""A call on one line: its callee, its operand list of plain names, its function type (up to a
location on the line, which the parser reads)."""
_PLAIN_SYMBOL = re.compile(r"@[A-Za-z_][A-Za-z0-9_$.]*(?:::@[A-Za-z_][A-Za-z0-9_$.]*)*")
"""A callee `@f` or `@a::@b` of bare names."""
_PLAIN_OP_END = re.compile(r"\s*(?:[^\s/l]|\Z)")
"""What may follow a plain op without a location on its line: anything but a location on a
later line (`loc(...)`, perhaps after a comment), which belongs to the op."""


@dataclass(frozen=True)
class PlainCall:
    """The plain form of a call-shaped op (see the module docstring): `op` built with its
    callee in the property `callee`."""

    op: type[Operation]
    callee: str

    def __call__(self, parser: TFParser, position: int) -> PlainOp | None:
        """The call whose callee starts at `position`, read in one step; None when the text
        has another shape or names a callee or function type not read before."""
        source = parser.source
        line = _PLAIN_CALL.match(source, position)
        if line is None:
            return None
        if not source.startswith("loc(", line.end()) and not _PLAIN_OP_END.match(
            source, line.end()
        ):
            return None
        callee_text, operands_start = line.group(1), line.start(2)
        function_type = parser.function_type_between(line.start(3), line.end(3))
        if not isinstance(function_type, FunctionType) or len(function_type.outputs) != 1:
            return None
        callee = parser.remembered("op" if callee_text[0] != "@" else "symbol", callee_text)
        if callee is None:
            if _PLAIN_SYMBOL.fullmatch(callee_text) is None:
                return None
            root, *nested = callee_text[1:].split("::@")
            callee = SymbolRefAttr(root, nested)
            parser.remember("symbol", callee_text, callee)
        operands = plain_operand_names(parser, operands_start, line.end(2))
        values = parser.resolve_operands(operands, function_type.inputs.data, line.start(3))
        op = self.op.create(
            operands=values,
            result_types=[function_type.outputs.data[0]],
            properties={self.callee: callee},
        )
        return PlainOp(op, line.end(), (callee, function_type))

    def learn(self, parser: TFParser, position: int, op: Operation) -> None:
        """Remember the op callee of `op`, read in full from `position`, under its text: the
        same text means the same callee throughout one parse."""
        source = parser.source
        line = _PLAIN_CALL.match(source, position)
        if line is None or source[position] == "@":
            return
        if bracketed_end(source, position) != line.end(1):  # the callee is not all the text
            return
        callee = op.properties.get(self.callee)
        if callee is not None:
            parser.remember("op", line.group(1), callee)


def register_plain_call(op: type[Operation], callee: str) -> None:
    """Let the parser read `op`'s plain call lines in one step (see the module docstring)."""
    register_plain_form(op, PlainCall(op, callee))
