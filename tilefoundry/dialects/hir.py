"""The `hir` dialect: HIR functions (`hir.func`) and their terminator (`hir.return`).

A `hir.func` is the IR form of `tilefoundry.hir.Function`: a symbol whose parameters are the
entry block's arguments (each a `Var`: its name is semantic and kept in `param_names`, a
`{const}` parameter is an external constant tensor), and whose body computes one value, returned
by `hir.return`, or nothing (an effect-only function).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    StringAttr,
    SymbolNameConstraint,
    UnitAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Dialect, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsolatedFromAbove, IsTerminator, ReturnLike, SymbolOpInterface

from tilefoundry.diagnostics import VerifyError
from tilefoundry.dialects.asm import parse_param, print_named_value, print_param_attrs
from tilefoundry.ir.callable import FunctionLike
from tilefoundry.ir.expr import VarOwner, check_var_name
from tilefoundry.ir.metadata import check_metadata, location_to_metadata
from tilefoundry.types import DimVar, IRType, TensorType, TupleType, UnitType, from_attr

__all__ = ["HIR", "FuncOp", "ReturnOp", "check_dim_vars"]

PARAM_ATTRS = ("const",)


@irdl_op_definition
class FuncOp(VarOwner, FunctionLike, IRDLOperation):
    """An HIR function: named parameters, a body, one result (or none).

    ```mlir
    hir.func @mlp(%x: tensor<?x64xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<64x64xf32> {const})
        -> tensor<?x64xf32, #tf.dims<n: 1 to 4097>> {
      %h = tf.call tf.linalg.matmul(%x, %w) : (...) -> tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
      hir.return %h : tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
    }
    ```
    """

    name = "hir.func"

    sym_name = prop_def(SymbolNameConstraint())
    function_type = prop_def(FunctionType)
    param_names = prop_def(ArrayAttr[StringAttr])
    arg_attrs = opt_prop_def(ArrayAttr[DictionaryAttr])
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove())

    # -- VarOwner / FunctionLike ------------------------------------------------------------

    def var_name(self, value: SSAValue) -> str:
        assert isinstance(value, BlockArgument)
        return self.param_names.data[value.index].data

    def var_is_const(self, value: SSAValue) -> bool:
        assert isinstance(value, BlockArgument)
        return "const" in self.param_attrs(value.index)

    def param_attrs(self, index: int) -> dict[str, Attribute]:
        if self.arg_attrs is None:
            return {}
        return dict(self.arg_attrs.data[index].data)

    def param_types(self) -> tuple[IRType, ...]:
        return tuple(from_attr(t) for t in self.function_type.inputs)

    def result_type(self) -> IRType:
        outputs = self.function_type.outputs.data
        return from_attr(outputs[0]) if outputs else UnitType()

    # -- verification ------------------------------------------------------------------------

    def verify_(self) -> None:
        block = self.body.block
        inputs = self.function_type.inputs.data
        names = [n.data for n in self.param_names]
        if len(block.args) != len(inputs):
            raise VerifyError(
                f"entry block has {len(block.args)} argument(s) for {len(inputs)} parameter type(s)"
            )
        for index, (arg, declared) in enumerate(zip(block.args, inputs, strict=True)):
            if arg.type != declared:
                raise VerifyError(
                    f"parameter #{index} has type {arg.type}, but the signature says {declared}"
                )
            check_metadata(location_to_metadata(arg.location), what=f"parameter #{index} metadata")
        if len(names) != len(inputs):
            raise VerifyError(f"{len(names)} parameter name(s) for {len(inputs)} parameter(s)")
        seen: set[str] = set()
        for name in names:
            try:
                check_var_name(name)
            except ValueError as err:
                raise VerifyError(str(err)) from None
            if name in seen:
                raise VerifyError(f"parameter name '{name}' is used twice")
            seen.add(name)
        if self.arg_attrs is not None:
            if len(self.arg_attrs) != len(inputs):
                raise VerifyError(
                    f"{len(self.arg_attrs)} parameter attribute dictionaries for "
                    f"{len(inputs)} parameter(s)"
                )
            for index, attrs in enumerate(self.arg_attrs):
                for key, value in attrs.data.items():
                    if key not in PARAM_ATTRS or not isinstance(value, UnitAttr):
                        raise VerifyError(
                            f"parameter '{names[index]}' has unknown attribute '{key}'; "
                            f"expected one of: {', '.join(PARAM_ATTRS)}"
                        )
        outputs = self.function_type.outputs.data
        if len(outputs) > 1:
            raise VerifyError(
                f"a function returns one value (use a tuple for several), got {len(outputs)} results"
            )
        params = self.param_types()
        for index, (name, type) in enumerate(zip(names, params, strict=True)):
            if "const" in self.param_attrs(index) and not isinstance(type, TensorType):
                raise VerifyError(f"const parameter '{name}' must be a tensor, got {type}")
        check_dim_vars([*params, self.result_type()], f"function '@{self.sym_name.data}'")
        terminator = block.last_op
        if not isinstance(terminator, ReturnOp):
            raise VerifyError("body must end with hir.return")

    # -- custom format -----------------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> FuncOp:
        sym_name = parser.parse_symbol_name()
        params = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: parse_param(parser, PARAM_ATTRS)
        )
        results: list[Attribute] = []
        if parser.parse_optional_punctuation("->") is not None:
            if parser.parse_optional_punctuation("(") is not None:
                parser.parse_punctuation(")", " (a function returns one value or nothing: `()`)")
            else:
                results.append(parser.parse_type())
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region([p.argument for p in params])
        arg_attrs = [DictionaryAttr(p.attrs) for p in params]
        properties: dict[str, Attribute] = {
            "sym_name": sym_name,
            "function_type": FunctionType.from_lists([p.argument.type for p in params], results),
            "param_names": ArrayAttr(StringAttr(p.name) for p in params),
        }
        if any(p.attrs for p in params):
            properties["arg_attrs"] = ArrayAttr(arg_attrs)
        op = cls.create(properties=properties, regions=[body])
        if attributes is not None:
            op.attributes |= attributes.data
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.sym_name.data)
        printer.print_string("(")
        for index, arg in enumerate(self.body.block.args):
            if index:
                printer.print_string(", ")
            print_named_value(printer, arg, self.param_names.data[index].data)
            printer.print_string(": ")
            printer.print_attribute(arg.type)
            if self.arg_attrs is not None:
                print_param_attrs(printer, self.arg_attrs.data[index])
            if printer.print_debuginfo:
                printer.print_string(" ")
                printer.print_attribute(arg.location)
        printer.print_string(")")
        outputs = self.function_type.outputs.data
        printer.print_string(" -> ")
        if outputs:
            printer.print_attribute(outputs[0])
        else:
            printer.print_string("()")
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


def check_dim_vars(types: Sequence[IRType], where: str) -> dict[str, DimVar]:
    """Every DimVar name has one envelope throughout the types; the DimVars by name."""
    found: dict[str, DimVar] = {}

    def visit(type: IRType) -> None:
        if isinstance(type, TensorType):
            for dim in type.dim_vars:
                known = found.setdefault(dim.name, dim)
                if known != dim:
                    raise VerifyError(
                        f"DimVar '{dim.name}' has two envelopes in {where}: "
                        f"[{known.lo}, {known.hi}) and [{dim.lo}, {dim.hi})"
                    )
        elif isinstance(type, TupleType):
            for field in type.fields:
                visit(field)

    for type in types:
        visit(type)
    return found


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a function body with its value (nothing, for an effect-only function).

    ```mlir
    hir.return %y : tensor<4xf32>
    ```
    """

    name = "hir.return"

    values = var_operand_def()

    traits = traits_def(IsTerminator(), ReturnLike(), HasParent(FuncOp))

    assembly_format = "attr-dict ($values^ `:` type($values))?"

    def __init__(self, *values: SSAValue) -> None:
        super().__init__(operands=[list(values)])

    def verify_(self) -> None:
        function = self.parent_op()
        if not isinstance(function, FuncOp):
            return
        expected = function.function_type.outputs.data
        actual = tuple(self.values.types)
        if actual != expected:
            shown = ", ".join(str(t) for t in expected) or "nothing"
            got = ", ".join(str(t) for t in actual) or "nothing"
            raise VerifyError(f"returns {got}, but function '@{function.sym_name.data}' returns {shown}")


def new_function_body(param_types: Sequence[Attribute]) -> Region:
    return Region(Block(arg_types=param_types))


HIR = Dialect("hir", [FuncOp, ReturnOp], [])
