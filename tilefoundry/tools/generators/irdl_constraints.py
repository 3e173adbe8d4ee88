"""xDSL constraints as IRDL states them (mlir-opt-19's IRDL): the model the IRDL export and the
dialect reference share.

`constraint_of` maps an attribute constraint of an xDSL definition to a `Constraint`: `any`,
`base` (a builtin name or a tf attribute), `is`, `any_of`, `all_of`, `parametric`; a
`VarConstraint` keeps its name (one IRDL value for all its uses). What IRDL 19 cannot state is
kept beside it (`lost`: an array's elements). `range_of` does the same for operand and result
ranges.

```mlir
%0 = irdl.base "!builtin.tensor"
%1 = irdl.base "!builtin.tuple"
%values = irdl.any_of(%0, %1)          // VALUE_TYPES: !builtin.tensor | !builtin.tuple
```
"""

from __future__ import annotations

from dataclasses import dataclass
from io import StringIO

from xdsl.dialects.builtin import (
    ArrayAttr,
    ArrayOfConstraint,
    DenseIntOrFPElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FunctionType,
    IntAttr,
    IntegerAttr,
    NoneAttr,
    NoneType,
    StringAttr,
    SymbolNameConstraint,
    SymbolRefAttr,
    TensorType,
    TupleType,
    UnitAttr,
)
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import (
    AllOf,
    AnyAttr,
    AnyOf,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    EqIntConstraint,
    MessageConstraint,
    ParamAttrConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    SingleOf,
    VarConstraint,
)

from tilefoundry.ir.text.irdl_printer import irdl_printer
from tilefoundry.support.irdl_syntax import IRDL_DIALECTS

__all__ = ["BUILTIN_BASES", "Constraint", "constraint_of", "range_of"]

BUILTIN_BASES: dict[type[Attribute], str] = {
    StringAttr: "#builtin.string",
    SymbolRefAttr: "#builtin.symbol_ref",
    ArrayAttr: "#builtin.array",
    DictionaryAttr: "#builtin.dictionary",
    IntegerAttr: "#builtin.integer",
    IntAttr: "#builtin.integer",  # xDSL's plain integer, written as an i64 (irdl_syntax)
    FloatAttr: "#builtin.float",
    UnitAttr: "#builtin.unit",
    DenseIntOrFPElementsAttr: "#builtin.dense_int_or_fp_elements",
    FunctionType: "!builtin.function",
    TensorType: "!builtin.tensor",
    TupleType: "!builtin.tuple",
}
"""The upstream names of the builtin attributes and types the definitions use."""


@dataclass(frozen=True)
class Constraint:
    """A constraint as IRDL states it: `kind` is the IRDL op (`any`, `base`, `is`, `any_of`,
    `all_of`, `parametric`), `arg` its base name, symbol or attribute, `children` its operands,
    `variable` the name of a constraint variable (one SSA value for every use), and `lost` what
    the xDSL constraint says beyond it (array elements)."""

    kind: str
    arg: str = ""
    children: tuple[Constraint, ...] = ()
    variable: str | None = None
    lost: str | None = None

    def summary(self) -> str:
        """The constraint in one line (`!builtin.tensor | !builtin.tuple`)."""
        if self.kind == "any":
            text = "any"
        elif self.kind in ("base", "is"):
            text = _attr_name(self.arg) if self.kind == "base" else self.arg
        elif self.kind == "parametric":
            args = ", ".join(c.summary() for c in self.children)
            text = f"{_attr_name(self.arg)}<{args}>"
        else:
            joiner = " | " if self.kind == "any_of" else " & "
            text = joiner.join(c.summary() for c in self.children)
        return f"{text} of {self.lost}" if self.lost else text


def _attr_name(base: str) -> str:
    """`@tf::@op` -> `#tf.op` (`!tf.buffer` for a type); a builtin name stays."""
    if base.startswith("@"):
        dialect, name = base.split("::")
        sigil = "!" if base in _TYPE_REFS else "#"
        return f"{sigil}{dialect[1:]}.{name[1:]}"
    return base


_TYPE_REFS: set[str] = set()
"""The references (`@tf::@buffer`) of our attributes that are types."""


def _ref(cls: type[Attribute]) -> str:
    dialect, name = cls.name.split(".", 1)
    ref = f"@{dialect}::@{name}"
    if issubclass(cls, TypeAttribute):
        _TYPE_REFS.add(ref)
    return ref


def _is_ours(cls: type[Attribute]) -> bool:
    return issubclass(cls, ParametrizedAttribute) and cls.name.split(".", 1)[0] in IRDL_DIALECTS


def constraint_of(constr: AttrConstraint) -> Constraint:
    """The IRDL form of an xDSL attribute constraint (a ValueError for one it cannot state)."""
    if isinstance(constr, AnyAttr):
        return Constraint("any")
    if isinstance(constr, MessageConstraint):
        return constraint_of(constr.constr)
    if isinstance(constr, VarConstraint):
        inner = constraint_of(constr.constraint)
        return Constraint(inner.kind, inner.arg, inner.children, constr.name, inner.lost)
    if isinstance(constr, SymbolNameConstraint):
        return Constraint("base", BUILTIN_BASES[StringAttr])
    if isinstance(constr, BaseAttr):
        return _base(constr.attr)
    if isinstance(constr, EqAttrConstraint):
        return Constraint("is", _attribute_text(constr.attr))
    if isinstance(constr, AnyOf | AllOf):
        kind = "any_of" if isinstance(constr, AnyOf) else "all_of"
        return Constraint(kind, children=tuple(constraint_of(c) for c in constr.attr_constrs))
    if isinstance(constr, ArrayOfConstraint):
        element, _ = range_of(constr.elem_range_constraint)
        return Constraint("base", BUILTIN_BASES[ArrayAttr], lost=element.summary())
    if isinstance(constr, ParamAttrConstraint):
        if _is_ours(constr.base_attr):
            params = tuple(
                constraint_of(p) if p is not None else Constraint("any")
                for p in constr.param_constrs
            )
            return Constraint("parametric", _ref(constr.base_attr), params)
        return _base(constr.base_attr)
    raise ValueError(f"no IRDL form for the constraint {constr!r}")


def _base(cls: type[Attribute]) -> Constraint:
    if cls in (NoneAttr, NoneType):
        return Constraint("is", "none")
    if _is_ours(cls):
        return Constraint("base", _ref(cls))
    if cls in BUILTIN_BASES:
        return Constraint("base", BUILTIN_BASES[cls])
    raise ValueError(f"no IRDL base for {cls.__name__}")


def _attribute_text(attr: Attribute) -> str:
    stream = StringIO()
    irdl_printer(stream).print_attribute(attr)
    return stream.getvalue()


def range_of(constr: RangeConstraint) -> tuple[Constraint, bool]:
    """The element constraint of an operand / result range, and whether it is one value."""
    if isinstance(constr, SingleOf):
        return constraint_of(constr.constr), True
    if isinstance(constr, RangeLengthConstraint) and isinstance(constr.length, EqIntConstraint):
        element, _ = range_of(constr.constraint)
        return element, constr.length.value == 1
    if isinstance(constr, RangeOf):
        return constraint_of(constr.constr), False
    raise ValueError(f"no IRDL form for the range constraint {constr!r}")
