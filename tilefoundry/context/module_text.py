"""The text of a `tf.module` tree, on the IR: `parse_root` and `print_op` (the Python surface,
`tilefoundry.api.text`, wraps them for `Module`s; the tools use them directly).

```python
root = parse_root(open("model.mlir").read(), "model.mlir")   # a verified ModuleOp
print(print_op(root, generic=True, debuginfo=True))
```

`parse_root` returns the text's single top-level `tf.module`, or, for a single bare function, an
implicit module that holds it and whose entry it is. Any failure, a parse error or a verifier
failure, raises `TextError` with `file:line:col: error: message`.
"""

from __future__ import annotations

import io

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tilefoundry.context.context import make_context
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf.module import ModuleOp
from tilefoundry.dialects.tir import PrimFuncOp
from tilefoundry.ir.text.parser import SourcePosition, TFParser
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir
from tilefoundry.support.arguments import refuse_type

__all__ = ["TextError", "parse_root", "print_op"]


class TextError(ValueError):
    """A parse or verifier failure in text, at a source position."""

    def __init__(self, position: SourcePosition | None, message: str) -> None:
        self.position = position
        self.message = message
        where = f"{position}: " if position is not None else ""
        super().__init__(f"{where}error: {message}")


def parse_root(text: str, name: str = "<string>", *, what: str = "parse_module") -> ModuleOp:
    """The verified root `tf.module` of `text` (see the module docstring); `what` names the
    caller in the refusal of an argument that is not text."""
    if not isinstance(text, str | bytes):
        refuse_type(f"{what} text", "a str (or UTF-8 bytes)", text)
    if not isinstance(name, str):
        refuse_type(f"{what} name", "a str (the file name diagnostics show)", name)
    parser = TFParser(make_context(), text, name)
    try:
        top = parser.parse_module()
    except ParseError as err:
        raise TextError(parser.position_of(err.span.start), err.msg) from None
    except DiagnosticException as err:  # an attribute's verifier, run while parsing
        raise TextError(parser.position_of(parser.pos), str(err)) from None
    ops = list(top.ops)
    if len(ops) == 1 and isinstance(ops[0], ModuleOp):
        root: Operation = top.body.block.detach_op(ops[0])
    elif len(ops) == 1 and isinstance(ops[0], FuncOp | PrimFuncOp):
        # A bare function is an implicit single-function module whose entry it is.
        function = ops[0]
        name = function.sym_name.data
        top.body.block.detach_op(function)
        root = ModuleOp(name, entry=name)
        root.body.block.add_op(function)
    else:
        raise TextError(
            parser.op_position(ops[0]) if ops else None,
            "expected one top-level tf.module (or one bare function), got "
            + (", ".join(op.name for op in ops) or "nothing"),
        )
    try:
        verify_ir(root)
    except OpVerifyError as err:
        raise TextError(parser.op_position(err.op), str(err)) from None
    assert isinstance(root, ModuleOp)
    return root


def print_op(op: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    """The op's text: custom form (or generic), with locations when `debuginfo`."""
    stream = io.StringIO()
    printer = TFPrinter(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_op(op)
    printer.print_string("\n")
    printer.print_location_aliases()
    return stream.getvalue()
