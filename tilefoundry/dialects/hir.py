"""The `hir` dialect: HIR functions (`hir.func`), their shape-specialization variants
(`hir.variant`), and `hir.return`.

A `hir.func` is the IR form of `tilefoundry.api.hir.Function`: a symbol whose parameters are the
entry block's arguments (each a `Var`: its name is semantic and kept in `param_names`, a
`{const}` parameter is an external constant tensor), and whose body computes one value, returned
by `hir.return`, or nothing (an effect-only function). A body (the function's, a variant's)
holds expressions only, never a foreign op (`dialects/function.py`). Its variants live inside
it, never as same-name functions: each covers a sub-range of the signature's DimVars
(`DimVarRangePat`s that lie inside the DimVars' envelopes).
"""

from __future__ import annotations

from xdsl.dialects.builtin import (
    ArrayAttr,
)
from xdsl.ir import Dialect, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    opt_region_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsolatedFromAbove,
    IsTerminator,
    ReturnLike,
)

from tilefoundry.builtin.types import BufferAttr
from tilefoundry.dialects.function import (
    PARAM_ATTRS,
    FunctionOpMixin,
    FunctionReturn,
    check_body_ops,
    foreign_body_op,
    is_body_op,
)
from tilefoundry.dialects.syntax import (
    ValuesTerminator,
    parse_signature,
    print_signature,
    with_attributes,
)
from tilefoundry.dialects.tf.dim_range import DimRangeAttr, check_ranges, parse_ranges, print_ranges
from tilefoundry.dialects.tf.mesh import MeshOp, check_meshes
from tilefoundry.ir.algebra.expr import VarOwner
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.ir.verify.op_verification import op_definition
from tilefoundry.ir.verify.verifier import OpVerifyError
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["HIR", "FuncOp", "ReturnOp", "VariantOp"]


@op_definition
class FuncOp(FunctionOpMixin):
    """An HIR function: named parameters, a body, one result (or none), and its variants.

    ```mlir
    hir.func @mlp(%x: tensor<?x64xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<64x64xf32> {const})
        -> tensor<?x64xf32, #tf.dims<n: 1 to 4097>> {
      %h = tf.call tf.linalg.matmul(%x, %w)
          : (tensor<?x64xf32, #tf.dims<n: 1 to 4097>>, tensor<64x64xf32>) -> tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
      hir.return %h : tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
    } variants {
      hir.variant [n: 1 to 128] (%x: tensor<?x64xf32, #tf.dims<n: 1 to 4097>>, %w: tensor<64x64xf32>) {
        hir.return %x : tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
      }
    }
    ```
    """

    name = "hir.func"

    body = region_def("single_block")  # the first region (see FunctionOpMixin)
    variants = opt_region_def("single_block")

    def variant_ops(self) -> tuple[VariantOp, ...]:
        if self.variants is None:
            return ()
        return tuple(op for op in self.variants.block.ops if isinstance(op, VariantOp))

    # -- verification ------------------------------------------------------------------------

    def verify_(self) -> None:
        where = f"function '@{self.sym_name.data}'"
        dim_vars = self.verify_signature()
        _refuse_buffer_signature(self, where)
        # One walk of everything under the function finds what the checks below look at;
        # they then report, in their order, the first op that fails each.
        body = self.body.block
        buffer: Operation | None = None
        foreign: Operation | None = None
        meshes: list[MeshOp] = []
        for op in _ops_under(self):
            if buffer is None:
                for result in op.results:
                    if isinstance(result.type, BufferAttr):
                        buffer = op
                        break
            if foreign is None and op.parent is body and not is_body_op(op, ReturnOp):
                foreign = op
            if isinstance(op, MeshOp):
                meshes.append(op)
        if buffer is not None:
            _refuse_buffer_op(buffer, where)
        if foreign is not None:
            raise foreign_body_op(foreign, where, ReturnOp)
        if not isinstance(body.last_op, ReturnOp):
            raise VerifyError("body must end with hir.return")
        variants = () if self.variants is None else self.variants.block.ops
        for index, op in enumerate(variants):
            if not isinstance(op, VariantOp):
                raise VerifyError(f"'{op.name}' cannot be in the variants of {where}")
            check_ranges(op.patterns(), dim_vars, f"variant #{index} of {where}")
        check_meshes(self, meshes)  # the meshes of the body and the variants, at any depth

    # -- custom format -----------------------------------------------------------------------

    @classmethod
    def parse_regions_after_body(cls, parser: Parser) -> list[Region]:
        if parser.parse_optional_keyword("variants") is None:
            return []
        return [parser.parse_region()]

    def print(self, printer: Printer) -> None:
        super().print(printer)
        if self.variants is not None:
            printer.print_string(" variants ")
            printer.print_region(self.variants)


def _ops_under(op: Operation) -> list[Operation]:
    """The ops nested in `op`, in the order of `op.walk()` (which yields `op` first), without
    its generator per region, block and op."""
    found: list[Operation] = []

    def visit(parent: Operation) -> None:
        for region in parent.regions:
            for block in region.blocks:
                for child in block.ops:
                    found.append(child)
                    if child.regions:
                        visit(child)

    visit(op)
    return found


def _refuse_buffer_signature(function: FuncOp, where: str) -> None:
    """HIR computes values: a buffer (TIR's memory) is never a parameter or a result (nor a
    value: `_refuse_buffer_op`)."""
    names = [n.data for n in function.param_names]
    for name, type in zip(names, function.function_type.inputs.data, strict=False):
        if isinstance(type, BufferAttr):
            raise VerifyError(
                f"parameter '{name}' of {where} is a buffer ({type}); buffers belong to TIR "
                "(a tir.prim_func), HIR takes tensors"
            )
    for type in function.function_type.outputs.data:
        if isinstance(type, BufferAttr):
            raise VerifyError(f"{where} returns a buffer ({type}); HIR returns values")


def _refuse_buffer_op(op: Operation, where: str) -> None:
    """No result of `op` is a buffer: HIR computes values."""
    for result in op.results:
        if isinstance(result.type, BufferAttr):
            raise OpVerifyError(
                op, f"defines a buffer ({result.type}) in {where}; buffers belong to TIR"
            )


@op_definition
class VariantOp(VarOwner, IRDLOperation):
    """A shape-specialization variant of its function: the same signature, another body, for
    the sub-ranges of DimVars it covers.

    ```mlir
    hir.variant [n: 1 to 128] (%x: tensor<?x64xf32, #tf.dims<n: 1 to 4097>>) {
      hir.return %x : tensor<?x64xf32, #tf.dims<n: 1 to 4097>>
    }
    ```
    """

    name = "hir.variant"

    ranges = prop_def(ArrayAttr[DimRangeAttr])
    body = region_def("single_block")

    traits = traits_def(HasParent(FuncOp), IsolatedFromAbove())

    def function(self) -> FuncOp:
        parent = self.parent_op()
        assert isinstance(parent, FuncOp)
        return parent

    def patterns(self) -> tuple[DimVarRangePat, ...]:
        return tuple(r.pattern for r in self.ranges)

    def var_name(self, value: SSAValue) -> str:
        return self.function().var_name(value)

    def var_is_const(self, value: SSAValue) -> bool:
        return self.function().var_is_const(value)

    def verify_(self) -> None:
        function = self.parent_op()
        if not isinstance(function, FuncOp):
            return
        params = function.function_type.inputs.data
        types = tuple(arg.type for arg in self.body.block.args)
        if types != tuple(params):
            raise VerifyError(
                f"a variant has its function's parameter types ({', '.join(str(t) for t in params)}), "
                f"got ({', '.join(str(t) for t in types)})"
            )
        check_body_ops(
            self.body.block, f"a variant of function '@{function.sym_name.data}'", ReturnOp
        )
        if not isinstance(self.body.block.last_op, ReturnOp):
            raise VerifyError("body must end with hir.return")

    @classmethod
    def parse(cls, parser: Parser) -> VariantOp:
        ranges = parse_ranges(parser)
        params, _ = parse_signature(parser, PARAM_ATTRS)
        body = parser.parse_region([p.argument for p in params])
        op = cls.create(properties={"ranges": ranges}, regions=[body])
        return with_attributes(op, parser.parse_optional_attr_dict_with_keyword())

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        print_ranges(printer, self.ranges)
        printer.print_string(" ")
        parent = self.parent_op()
        names = (
            [n.data for n in parent.param_names]
            if isinstance(parent, FuncOp)
            else [f"arg{i}" for i in range(len(self.body.block.args))]
        )
        print_signature(printer, self.body.block.args, names, None, None)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)


@op_definition
class ReturnOp(FunctionReturn, ValuesTerminator):
    """Ends a function (or variant) body with its value, or nothing for an effect-only one.

    ```mlir
    hir.return %y : tensor<4xf32>
    ```
    """

    name = "hir.return"

    traits = traits_def(IsTerminator(), ReturnLike(), HasParent(FuncOp, VariantOp))


HIR = Dialect("hir", [FuncOp, VariantOp, ReturnOp], [])
