"""xDSL's declarative-format programs of the ops that declare an `ASSEMBLY_FORMAT`
(`dialects.asm.DeclaredFormat`), and the custom directives those formats name.

This module is imported on the first parse or print of such an op, not when the dialects are:
importing xDSL's declarative-format machinery costs tf-opt 12-15 ms of start-up (about 3% of a
run on a small file), which a file that holds none of these ops does not pay (see
docs/decisions.md). A program is built once per op class.

```
tf.tuple      $elements_ attr-dict `:` custom<TupleFields>(type($elements_), type($result))
tir.dispatch  custom<DispatchCases>($callees, $case_patterns) `(` $args `)` attr-dict `:`
              custom<CallSignature>(type($args), type($res))
```
"""

from __future__ import annotations

import dataclasses
import functools
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, StringAttr, SymbolRefAttr, TupleType
from xdsl.irdl import IRDLOperation
from xdsl.irdl.declarative_assembly_format import (
    AttributeVariable,
    CustomDirective,
    FormatProgram,
    ParsingState,
    PrintingState,
    TypeDirective,
    VariadicOperandVariable,
    irdl_custom_directive,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from tilefoundry.dialects.tf.dim_range import DimRangeAttr, parse_ranges, print_ranges

__all__ = ["DIRECTIVES", "DispatchCases", "TupleFields", "format_program"]


@irdl_custom_directive
class TupleFields(CustomDirective):
    """`tuple<T, U>`: the result's tuple type, whose fields are the element operands' types
    (`tf.tuple`), so that each type is written once."""

    element_types: TypeDirective
    result_type: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        position = parser.pos
        tuple_type = parser.parse_type()
        if not isinstance(tuple_type, TupleType):
            parser.raise_error(f"expected a tuple type, got {tuple_type}", position)
        elements = self.element_types.inner
        assert isinstance(elements, VariadicOperandVariable)
        operands = state.operands[elements.index] or ()
        if len(tuple_type.types) != len(operands):
            parser.raise_error(
                f"tuple type has {len(tuple_type.types)} field(s) for {len(operands)} element(s)",
                position,
            )
        self.element_types.set(state, tuple_type.types.data)
        self.result_type.set(state, (tuple_type,))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_attribute(self.result_type.get(op)[0])


@irdl_custom_directive
class DispatchCases(CustomDirective):
    """`[@small: [n: 1 to 128], @c0::@k: [...]]`: each case's callee (a symbol of the module
    or of a child module) with its DimVar ranges (`tir.dispatch`)."""

    callees: AttributeVariable
    case_patterns: AttributeVariable

    def parse(self, parser: Parser, state: ParsingState) -> None:
        def parse_case() -> tuple[SymbolRefAttr, ArrayAttr[DimRangeAttr]]:
            root = parser.parse_symbol_name()
            nested: list[StringAttr] = []
            while parser.parse_optional_punctuation(":") is not None:  # `::` is two tokens
                if parser.parse_optional_punctuation(":") is None:
                    return SymbolRefAttr(root, nested), parse_ranges(parser)
                nested.append(parser.parse_symbol_name())
            callee = SymbolRefAttr(root, nested)
            parser.parse_punctuation(":")
            return callee, parse_ranges(parser)

        cases = parser.parse_comma_separated_list(parser.Delimiter.SQUARE, parse_case)
        self.callees.set(state, ArrayAttr(c for c, _ in cases))
        self.case_patterns.set(state, ArrayAttr(r for _, r in cases))

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        callees = cast(ArrayAttr[SymbolRefAttr], self.callees.get(op))
        patterns = cast(ArrayAttr[ArrayAttr[DimRangeAttr]], self.case_patterns.get(op))
        printer.print_string("[")
        for index, (callee, ranges) in enumerate(zip(callees, patterns, strict=True)):
            if index:
                printer.print_string(", ")
            printer.print_symbol_name(callee.root_reference.data)
            for nested in callee.nested_references:  # a case in a child module: @c0::@k
                printer.print_string("::")
                printer.print_symbol_name(nested.data)
            printer.print_string(": ")
            print_ranges(printer, ranges)
        printer.print_string("]")


@irdl_custom_directive
class CallSignature(CustomDirective):
    """`(T, U) -> R` (or `-> ()`): the operand and result types of a call (`tir.dispatch`),
    with the diagnostics of the parser's `parse_function_type` and `resolve_operands`, each at
    the type, and one for more than one result."""

    operand_types: TypeDirective
    result_types: TypeDirective

    def parse(self, parser: Parser, state: ParsingState) -> None:
        position = parser.pos
        function_type = parser.parse_function_type()
        operands = self.operand_types.inner
        assert isinstance(operands, VariadicOperandVariable)
        found = len(state.operands[operands.index] or ())
        inputs = function_type.inputs.data
        if found != len(inputs):
            parser.raise_error(f"expected {len(inputs)} operand types but had {found}", position)
        outputs = function_type.outputs.data
        if len(outputs) > 1:
            parser.raise_error(
                f"a call returns one value or nothing (a tuple for several), got {len(outputs)} "
                "results",
                position,
            )
        self.operand_types.set(state, inputs)
        self.result_types.set(state, outputs)

    def print(self, printer: Printer, state: PrintingState, op: IRDLOperation) -> None:
        state.print_whitespace(printer)
        printer.print_function_type(self.operand_types.get(op), self.result_types.get(op))


DIRECTIVES: dict[str, type[CustomDirective]] = {
    directive.__name__: directive for directive in (TupleFields, DispatchCases, CallSignature)
}
"""The custom directives an `ASSEMBLY_FORMAT` may name (`custom<TupleFields>(...)`)."""


@functools.cache
def format_program(op_class: type[IRDLOperation], declared: str) -> FormatProgram:
    """xDSL's program for the format `declared` of `op_class` (its `ASSEMBLY_FORMAT`), with the
    custom directives of `DIRECTIVES`: what `irdl_op_definition` builds from `assembly_format`
    and `custom_directives` when it defines a class."""
    op_def = dataclasses.replace(op_class.get_irdl_definition(), custom_directives=DIRECTIVES)
    return FormatProgram.from_str(declared, op_def)
