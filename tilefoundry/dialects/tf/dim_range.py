"""`#tf.range`: the IR form of a `DimVarRangePat` (a variant's / a dispatch case's sub-range)."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer

from tilefoundry.builtin.types import DimVar
from tilefoundry.ir.algebra.patterns import DimVarRangePat
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute

__all__ = ["DimRangeAttr", "check_ranges", "parse_ranges", "print_ranges"]


@irdl_attr_definition
class DimRangeAttr(IRDLFormAttribute):
    """The half-open sub-range `[lo, hi)` of a named DimVar.

    ```mlir
    #tf.range<n: 1 to 128>
    ```
    """

    name = "tf.range"

    dim_var: StringAttr
    lo: IntAttr
    hi: IntAttr

    @staticmethod
    def of(pattern: DimVarRangePat) -> DimRangeAttr:
        return DimRangeAttr(StringAttr(pattern.dim_var), IntAttr(pattern.lo), IntAttr(pattern.hi))

    @property
    def pattern(self) -> DimVarRangePat:
        return DimVarRangePat(self.dim_var.data, self.lo.data, self.hi.data)

    def verify(self) -> None:
        try:
            DimVarRangePat(self.dim_var.data, self.lo.data, self.hi.data)
        except (TypeError, ValueError) as err:
            raise VerifyError(str(err)) from None

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        return list(_parse_range(parser))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.pattern}>")


def _parse_range(parser: AttrParser) -> tuple[StringAttr, IntAttr, IntAttr]:
    name = parser.parse_identifier(" (a DimVar name)")
    parser.parse_punctuation(":")
    lo = parser.parse_integer(allow_boolean=False)
    parser.parse_keyword("to")
    hi = parser.parse_integer(allow_boolean=False)
    return StringAttr(name), IntAttr(lo), IntAttr(hi)


def parse_ranges(parser: AttrParser) -> ArrayAttr[DimRangeAttr]:
    """`[n: 1 to 128, m: 1 to 8]`"""
    ranges = parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: DimRangeAttr(*_parse_range(parser))
    )
    return ArrayAttr(ranges)


def print_ranges(printer: Printer, ranges: ArrayAttr[DimRangeAttr]) -> None:
    printer.print_string("[" + ", ".join(str(r.pattern) for r in ranges) + "]")


def check_ranges(
    patterns: Sequence[DimVarRangePat], dim_vars: dict[str, DimVar], where: str
) -> None:
    """A variant's / case's patterns: at least one, one per DimVar, each naming a DimVar of the
    signature and lying inside that DimVar's envelope."""
    if not patterns:
        raise VerifyError(f"{where} needs at least one DimVar range")
    seen: set[str] = set()
    for pattern in patterns:
        if pattern.dim_var in seen:
            raise VerifyError(f"{where} gives DimVar '{pattern.dim_var}' two ranges")
        seen.add(pattern.dim_var)
        envelope = dim_vars.get(pattern.dim_var)
        if envelope is None:
            known = ", ".join(dim_vars) or "none"
            raise VerifyError(
                f"{where} ranges over '{pattern.dim_var}', which is not a DimVar of the signature "
                f"(DimVars: {known})"
            )
        if not (envelope.lo <= pattern.lo and pattern.hi <= envelope.hi):
            raise VerifyError(
                f"{where} range [{pattern.lo}, {pattern.hi}) of '{pattern.dim_var}' is not inside "
                f"its envelope [{envelope.lo}, {envelope.hi})"
            )
