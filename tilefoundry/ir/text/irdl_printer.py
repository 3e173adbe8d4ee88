"""The IRDL form: the text upstream MLIR verifies with the dialects of `dialects/*.irdl.mlir`.

`tf-opt --print-irdl-generic` prints it, for `mlir-opt-19 --irdl-file=...` (without
`--allow-unregistered-dialect`), and tf-opt reads it back as the same IR. It is the generic form,
with what MLIR 19's IRDL asks of the text:
- inherent data as attributes: a dialect registered from IRDL has no properties;
- tf attributes in IRDL's positional parameter syntax (`tilefoundry.support.irdl_syntax`);
- a source span's end as fused-location metadata, `loc(fused<#tf.span_end<..>>[..])`:
  mlir-opt-19 has no range locations;
- every block of a tf, hir or tir op ends in `llvm.unreachable`. MLIR 19 gives an op defined in
  IRDL no traits, so none of ours is a terminator (`tf.yield`, `hir.return`, ...) or lets its
  block go without one (`tf.module`), and every block of theirs needs an upstream terminator
  (MLIR's own IRDL tests use `llvm.unreachable` too). Reading drops them (`irdl_form.drop_block_ends`).

```mlir
"tf.mesh"() ({
  %0 = "tf.call"(%x) {callee = #tf.op<"tf.math.unary", {kind = "exp"}>} : (tensor<4xf32>) -> tensor<4xf32>
  "tf.yield"(%0) : (tensor<4xf32>) -> ()
  "llvm.unreachable"() : () -> ()
}) {topology = "cta"} : () -> tensor<4xf32>
```
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO

from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.ir import Attribute, Block, Operation, ParametrizedAttribute, Region, TypeAttribute
from xdsl.printer import Printer

from tilefoundry.ir.text.irdl_form import (
    BLOCK_END,
    SEGMENT_SIZES,
    absent_regions,
    in_irdl_dialect,
    segment_sizes,
)
from tilefoundry.ir.text.literals import print_dense
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.support.irdl_syntax import is_irdl_attribute, to_irdl_parameter
from tilefoundry.xdsl_adapter.printer import print_new_line

__all__ = ["IRDLPrinter", "irdl_printer"]


@dataclass(eq=False, repr=False)
class IRDLPrinter(TFPrinter):
    """Prints the IRDL form (see the module docstring); build it with `irdl_printer`."""

    _absent_regions: int = 0
    """Empty regions to print after the op's own (its absent optional ones)."""
    _extra_attributes: list[dict[str, Attribute]] = field(
        default_factory=list[dict[str, Attribute]]
    )
    """Attributes the form adds to each op being printed (`operand_segment_sizes`), innermost
    last: an op's attributes are printed after its regions."""

    def print_attribute(self, attribute: Attribute) -> None:
        if is_irdl_attribute(attribute):
            assert isinstance(attribute, ParametrizedAttribute)
            self.print_string(
                ("!" if isinstance(attribute, TypeAttribute) else "#") + attribute.name
            )
            self.print_paramattr_parameters(
                [to_irdl_parameter(p) for p in attribute.parameters], always_print_brackets=True
            )
            return
        if isinstance(attribute, DenseIntOrFPElementsAttr) and print_dense(self, attribute):
            return  # literals from their bits, as TFPrinter prints them
        if self.print_location_alias(attribute):
            return  # a location that shares its parts, each once, as TFPrinter prints it
        Printer.print_attribute(self, attribute)  # not TFPrinter's range locations

    def print_type(self, type: Attribute) -> None:
        self.print_attribute(type)  # a type's parameters in their IRDL form

    def print_op_with_default_format(self, op: Operation) -> None:
        self._absent_regions = absent_regions(op)
        sizes = segment_sizes(op)
        self._extra_attributes.append({} if sizes is None else {SEGMENT_SIZES: sizes})
        try:
            super().print_op_with_default_format(op)
        finally:
            self._extra_attributes.pop()

    def print_op_attributes(
        self,
        attributes: Mapping[str, Attribute],
        *,
        reserved_attr_names: Iterable[str] = (),
        print_keyword: bool = False,
    ) -> bool:
        extra = self._extra_attributes[-1] if self._extra_attributes else {}
        return super().print_op_attributes(
            {**attributes, **extra},
            reserved_attr_names=reserved_attr_names,
            print_keyword=print_keyword,
        )

    def print_regions(self, regions: Sequence[Region]) -> None:
        absent, self._absent_regions = self._absent_regions, 0
        super().print_regions([*regions, *(Region() for _ in range(absent))])

    def print_block(
        self, block: Block, print_block_args: bool = True, print_block_terminator: bool = True
    ) -> None:
        super().print_block(block, print_block_args, print_block_terminator)
        if in_irdl_dialect(block.parent_op()):
            with self.indented():
                print_new_line(self)
                self.print_string(f'"{BLOCK_END}"() : () -> ()')


def irdl_printer(stream: IO[str], *, print_debuginfo: bool = False) -> IRDLPrinter:
    """A printer of the IRDL form (generic ops, properties as attributes)."""
    return IRDLPrinter(
        stream=stream,
        print_generic_format=True,
        print_properties_as_attributes=True,
        print_debuginfo=print_debuginfo,
    )
