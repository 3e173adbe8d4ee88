"""Text in and out: `parse_module` and `print_module`.

```python
m = parse_module(open("model.mlir").read(), "model.mlir")
print(print_module(m, generic=True, debuginfo=True))
```

`parse_module` returns the root `Module`: the text's single top-level `tf.module`, or, for a
single bare function, an implicit module that holds it and whose entry it is. Any failure, a
parse error or a verifier failure, raises `TextError` with `file:line:col: error: message`.
"""

from __future__ import annotations

import io

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException, ParseError

from tilefoundry.arguments import refuse_type
from tilefoundry.context import make_context
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.tf import ModuleOp
from tilefoundry.dialects.tir import PrimFuncOp
from tilefoundry.ir.asm import SourcePosition, TFParser, TFPrinter
from tilefoundry.ir.verifier import OpVerifyError, verify_ir
from tilefoundry.module import Module

__all__ = ["TextError", "parse_module", "print_module", "print_op"]


class TextError(ValueError):
    """A parse or verifier failure in text, at a source position."""

    def __init__(self, position: SourcePosition | None, message: str) -> None:
        self.position = position
        self.message = message
        where = f"{position}: " if position is not None else ""
        super().__init__(f"{where}error: {message}")


def parse_module(text: str, name: str = "<string>") -> Module:
    if not isinstance(text, str | bytes):
        refuse_type("parse_module text", "a str (or UTF-8 bytes)", text)
    if not isinstance(name, str):
        refuse_type("parse_module name", "a str (the file name diagnostics show)", name)
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
    return Module.of(root)


def print_op(op: Operation, *, generic: bool = False, debuginfo: bool = False) -> str:
    stream = io.StringIO()
    printer = TFPrinter(stream=stream, print_generic_format=generic, print_debuginfo=debuginfo)
    printer.print_op(op)
    printer.print_string("\n")
    printer.print_location_aliases()
    return stream.getvalue()


def print_module(module: Module, *, generic: bool = False, debuginfo: bool = False) -> str:
    """The module's text: custom form (or generic), with locations when `debuginfo`."""
    if not isinstance(module, Module):
        refuse_type("print_module module", "a Module", module)
    return print_op(module.module_op, generic=generic, debuginfo=debuginfo)
