"""The tf, hir and tir dialects in IRDL, for upstream MLIR: `dialects/{tf,hir,tir}.irdl.mlir`.

    python -m tilefoundry.tools.generators.irdl_export [--check] [--out DIR]     (or `make dialects`)

Each file holds one top-level `irdl.dialect`, generated from the xDSL definitions of
`tilefoundry/dialects` (`Dialect.operations` / `.attributes` and their IRDL definitions), so
`cat dialects/*.irdl.mlir` is one file that `mlir-opt-19 --irdl-file=...` loads. `--check`
writes nothing and exits 1 when a file is stale. The text upstream verifies with them is
`tf-opt --print-irdl-generic`.

A definition says in IRDL what mlir-opt-19's IRDL can state: operand and result kinds with
their variadicity, attribute parameters, the inherent attributes (properties: a dialect loaded
from IRDL has none), region counts with their block counts. What it cannot state is written as
comments: optional attributes, an optional region, array element constraints, traits and the
verifiers' own rules (tf-opt checks those).

```mlir
irdl.operation @constant {
  %value = irdl.base "#builtin.dense_int_or_fp_elements"
  %result = irdl.base "!builtin.tensor"
  irdl.results(%result)
  irdl.attributes {"value" = %value}
}
```
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from xdsl.ir import Dialect, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import IRDLOperation, OperandDef, OptionalDef, ResultDef, VariadicDef
from xdsl.irdl.operations import SingleBlockRegionDef
from xdsl.traits import HasParent

from tilefoundry.ir.text.irdl_form import RUNS, SEGMENT_SIZES, segmented_group
from tilefoundry.support.irdl_syntax import IRDL_DIALECTS
from tilefoundry.tools.generators.generated_files import generate_main
from tilefoundry.tools.generators.irdl_constraints import Constraint, constraint_of, range_of

__all__ = ["ROOT", "dialects", "main", "render", "summary", "trait_names"]

ROOT = Path(__file__).resolve().parents[3]


@dataclass
class _Body:
    """The lines of one `irdl.operation` / `irdl.attribute` body, with its SSA names."""

    lines: list[str] = field(default_factory=list[str])
    names: set[str] = field(default_factory=set[str])
    variables: dict[str, str] = field(default_factory=dict[str, str])

    def fresh(self, hint: str) -> str:
        stem = "".join(c if c.isalnum() or c == "_" else "_" for c in hint).strip("_") or "c"
        name, index = stem, 0
        while name in self.names:
            index += 1
            name = f"{stem}_{index}"
        self.names.add(name)
        return f"%{name}"

    def emit(self, constraint: Constraint, hint: str) -> str:
        """Emit the ops of a constraint (children first); the SSA value that holds it."""
        if constraint.variable is not None and constraint.variable in self.variables:
            return self.variables[constraint.variable]
        children = [self.emit(c, f"{hint}_{i}") for i, c in enumerate(constraint.children)]
        value = self.fresh(hint)
        if constraint.kind == "any":
            text = "irdl.any"
        elif constraint.kind == "base":
            arg = constraint.arg
            text = f"irdl.base {arg}" if arg.startswith("@") else f'irdl.base "{arg}"'
        elif constraint.kind == "is":
            text = f"irdl.is {constraint.arg}"
        elif constraint.kind == "parametric":
            text = f"irdl.parametric {constraint.arg}<{', '.join(children)}>"
        else:
            text = f"irdl.{constraint.kind}({', '.join(children)})"
        if constraint.lost:
            text += f"  // of {constraint.lost} (IRDL 19 states no array elements)"
        self.lines.append(f"{value} = {text}")
        if constraint.variable is not None:
            self.variables[constraint.variable] = value
        return value


def summary(cls: type) -> str:
    """The first paragraph of a class's docstring, on one line."""
    doc = (cls.__doc__ or "").strip()
    return " ".join(line.strip() for line in doc.split("\n\n", 1)[0].splitlines())


def trait_names(op: type[IRDLOperation]) -> list[str]:
    """The op's traits by class name, `HasParent(tf.mesh)` with its parents."""
    names = []
    for trait in op.get_irdl_definition().traits:
        name = type(trait).__name__
        if isinstance(trait, HasParent):
            name += f"({', '.join(p.name for p in trait.op_types)})"
        names.append(name)
    return sorted(names)


def _wrapped(opening: str, items: Sequence[str], closing: str, width: int = 92) -> list[str]:
    """`opening item, item closing` on one line, or one item a line when that is too long."""
    line = f"{opening}{', '.join(items)}{closing}"
    if len(line) <= width:
        return [line]
    return [opening, *(f"    {item}," for item in items[:-1]), f"    {items[-1]}", closing]


def _comment(text: str, indent: str = "  ", width: int = 100) -> list[str]:
    """`text` as `//` comment lines of at most `width` characters."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        if current and len(indent) + 3 + len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return [f"{indent}// {line}" for line in lines]


def _field_name(name: str) -> str:
    return name.rstrip("_")


def _operation(op: type[IRDLOperation]) -> list[str]:
    definition = op.get_irdl_definition()
    body = _Body()
    notes: list[str] = []
    segmented = segmented_group(op)
    groups: list[tuple[str, Sequence[tuple[str, OperandDef | ResultDef]]]] = [
        ("operands", definition.operands),
        ("results", definition.results),
    ]
    for kind, fields in groups:
        values = []
        for index, (name, field_def) in enumerate(fields):
            element, _ = range_of(field_def.constr)
            if kind == "operands" and index == segmented:
                notes.append(
                    f'operands "{_field_name(name)}": {RUNS} variadic groups, one per run of '
                    f"operands of one type, sized by {SEGMENT_SIZES} (IRDL 19 binds one type "
                    "per group)"
                )
                runs = [body.emit(element, f"{_field_name(name)}_run{i}") for i in range(RUNS)]
                values += [f"variadic {value}" for value in runs]
                continue
            value = body.emit(element, _field_name(name))
            if isinstance(field_def, OptionalDef):
                value = f"optional {value}"
            elif isinstance(field_def, VariadicDef):
                value = f"variadic {value}"
            values.append(value)
        if values:
            body.lines += _wrapped(f"irdl.{kind}(", values, ")")
    attributes = []
    for name, attr_def in [*definition.properties.items(), *definition.attributes.items()]:
        constraint = constraint_of(attr_def.constr)
        if isinstance(attr_def, OptionalDef) or attr_def.default_value is not None:
            notes.append(f'optional attribute "{name}": {constraint.summary()}')
            continue
        attributes.append(f'"{name}" = {body.emit(constraint, name)}')
    if attributes:
        body.lines += _wrapped("irdl.attributes {", attributes, "}")
    values = []
    for name, region in definition.regions:
        if isinstance(region, OptionalDef):
            notes.append(
                f'region "{name}" is optional: the IRDL form writes an absent one as an empty '
                "region (IRDL 19 states a fixed number of regions)"
            )
        elif isinstance(region, VariadicDef):
            raise ValueError(f"{definition.name}: IRDL 19 cannot state the variadic region {name}")
        value = body.fresh(name)
        single = isinstance(region, SingleBlockRegionDef) and not isinstance(region, OptionalDef)
        body.lines.append(f"{value} = irdl.region{' with size 1' if single else ''}")
        values.append(value)
    if values:
        body.lines.append(f"irdl.regions({', '.join(values)})")
    traits = trait_names(op)
    if traits:
        notes.append(f"traits (checked by tf-opt, not stated in IRDL 19): {', '.join(traits)}")
    short = definition.name.split(".", 1)[1]
    lines = _comment(f"{definition.name}: {summary(op)}")
    for note in notes:
        lines += _comment(note)
    lines.append(f"  irdl.operation @{short} {{")
    lines += [f"    {line}" for line in body.lines]
    lines.append("  }")
    return lines


def _attribute(attr: type[ParametrizedAttribute]) -> list[str]:
    definition = attr.get_irdl_definition()
    body = _Body()
    values = [body.emit(constraint_of(p.constr), name) for name, p in definition.parameters]
    body.lines.append(f"irdl.parameters({', '.join(values)})")
    short = definition.name.split(".", 1)[1]
    is_type = issubclass(attr, TypeAttribute)
    lines = _comment(f"{'!' if is_type else '#'}{definition.name}: {summary(attr)}")
    lines.append(f"  irdl.{'type' if is_type else 'attribute'} @{short} {{")
    lines += [f"    {line}" for line in body.lines]
    lines.append("  }")
    return lines


def render(dialect: Dialect) -> str:
    """The IRDL file of a dialect."""
    lines = [
        f"// The `{dialect.name}` dialect in IRDL, for upstream MLIR: mlir-opt-19 --irdl-file=F,",
        "// F = cat dialects/*.irdl.mlir, verifies the text of tf-opt --print-irdl-generic.",
        "// Generated from tilefoundry/dialects by `make dialects` (python -m",
        "// tilefoundry.tools.generators.irdl_export): do not edit. Reference: docs/dialects/.",
        f"irdl.dialect @{dialect.name} {{",
    ]
    items = [_attribute(a) for a in dialect.attributes if issubclass(a, ParametrizedAttribute)]
    items += [_operation(op) for op in dialect.operations if issubclass(op, IRDLOperation)]
    for index, item in enumerate(items):
        if index:
            lines.append("")
        lines += item
    lines.append("}")
    return "\n".join(lines) + "\n"


def dialects() -> list[Dialect]:
    """The dialects `dialects/` defines, in file order."""
    from tilefoundry.context.context import DIALECT_LOADERS

    return [DIALECT_LOADERS[name]() for name in IRDL_DIALECTS]


def main(argv: Sequence[str] | None = None) -> int:
    return generate_main(
        "irdl_export",
        __doc__.splitlines()[0],
        ROOT / "dialects",
        lambda out: ((out / f"{d.name}.irdl.mlir", render(d)) for d in dialects()),
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
