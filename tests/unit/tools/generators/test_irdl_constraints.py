"""xDSL constraints in IRDL (`tilefoundry/tools/generators/irdl_constraints.py`)."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import (
    ArrayAttr,
    IntAttr,
    MemRefType,
    NoneAttr,
    StringAttr,
    SymbolNameConstraint,
    i32,
)
from xdsl.irdl import AnyAttr, AttrConstraint, BaseAttr, EqAttrConstraint, ParamAttrConstraint, base

from tilefoundry.builtin.types import ONE_VALUE_TYPE, VALUE_TYPES
from tilefoundry.dialects.tf.dim_range import DimRangeAttr
from tilefoundry.tools.generators.irdl_constraints import constraint_of


@pytest.mark.parametrize(
    ("constraint", "summary"),
    [
        (AnyAttr(), "any"),
        (BaseAttr(StringAttr), "#builtin.string"),
        (SymbolNameConstraint(), "#builtin.string"),
        (BaseAttr(IntAttr), "#builtin.integer"),
        (BaseAttr(NoneAttr), "none"),
        (VALUE_TYPES, "!builtin.tensor | !builtin.tuple | !tf.buffer"),
        (EqAttrConstraint(i32), "i32"),
        (BaseAttr(DimRangeAttr), "#tf.range"),
        (base(ArrayAttr[DimRangeAttr]), "#builtin.array of #tf.range"),
        (
            ParamAttrConstraint(DimRangeAttr, [BaseAttr(StringAttr), None, BaseAttr(IntAttr)]),
            "#tf.range<#builtin.string, any, #builtin.integer>",
        ),
    ],
)
def test_constraints_in_irdl(constraint: AttrConstraint, summary: str) -> None:
    assert constraint_of(constraint).summary() == summary


def test_a_constraint_variable_keeps_its_name() -> None:
    found = constraint_of(ONE_VALUE_TYPE)
    assert (found.variable, found.summary()) == (
        "V",
        "!builtin.tensor | !builtin.tuple | !tf.buffer",
    )


def test_a_constraint_the_exporter_does_not_know_is_refused() -> None:
    with pytest.raises(ValueError, match="no IRDL base for MemRefType"):
        constraint_of(BaseAttr(MemRefType))
