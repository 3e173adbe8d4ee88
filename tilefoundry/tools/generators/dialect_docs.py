"""The dialect reference, `docs/dialects/{tf,hir,tir}.md`, from the same definitions as
`dialects/*.irdl.mlir`, as `mlir-tblgen -gen-dialect-doc` writes MLIR's.

    python -m tilefoundry.tools.generators.dialect_docs [--check] [--out DIR]     (or `make dialects`)

Each op and attribute gets its summary and description (its docstring), its example (the
docstring's ```mlir block) in the custom form and in the IRDL form (`tf-opt
--print-irdl-generic`), and its constraints: operands, results, attributes (inherent ones are
properties in xDSL and attributes upstream), regions, traits; an attribute its parameters. A test
parses every example (`parse_example`) and checks the files are fresh (`--check`).

```sh
python -m tilefoundry.tools.generators.dialect_docs --check    # exit 1 when a file is stale
```
"""

from __future__ import annotations

import importlib
import inspect
import io
import re
import sys
from collections.abc import Sequence

from xdsl.ir import Attribute, Dialect, Operation, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import IRDLOperation, OptionalDef, VariadicDef
from xdsl.irdl.operations import OptSingleBlockRegionDef, SingleBlockRegionDef

from tilefoundry.context.context import make_context
from tilefoundry.ir.text.irdl_form import segmented_group
from tilefoundry.ir.text.irdl_printer import irdl_printer
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.tools.generators.generated_files import generate_main
from tilefoundry.tools.generators.irdl_constraints import constraint_of, range_of
from tilefoundry.tools.generators.irdl_export import ROOT, dialects, trait_names

__all__ = ["Example", "examples", "main", "parse_example", "render"]

_CODE = re.compile(r"```mlir\n(.*?)```", re.S)


class Example:
    """A docstring example, parsed: its ops (top-level, in order), or its attributes."""

    def __init__(self, text: str, ops: list[Operation], attributes: list[Attribute]) -> None:
        self.text = text
        self.ops = ops
        self.attributes = attributes


def parse_example(text: str) -> Example:
    """Parse an example: ops (values it uses without defining them are its inputs, typed by
    their uses, as in MLIR's documentation), attributes, types or locations, one per line."""
    lines = [line.split("//")[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    if lines and all(line.startswith(("#", "!", "tensor<", "loc(")) for line in lines):
        attributes: list[Attribute] = []
        for line in lines:
            parser = TFParser(make_context(), line, "example")
            found = parser.parse_optional_location() or parser.parse_attribute()
            attributes.append(found)
        return Example(text, [], attributes)
    parser = TFParser(make_context(), text, "example")
    ops: list[Operation] = []
    while (op := parser.parse_optional_operation()) is not None:
        ops.append(op)
    if parser.pos < len(text.rstrip()):
        parser.raise_error("expected an operation")
    for name, values in parser.forward_ssa_references.items():
        for value in values.values():
            value.name_hint = name
    return Example(text, ops, [])


def _docstring(cls: type) -> tuple[str, str, str | None]:
    """The summary, the description (without code blocks) and the first ```mlir example."""
    doc = inspect.cleandoc(cls.__doc__ or "")
    example = _CODE.search(doc)
    paragraphs = [p.strip() for p in _CODE.sub("", doc).split("\n\n") if p.strip()]
    summary = " ".join(paragraphs[0].split()) if paragraphs else ""
    return summary, "\n\n".join(paragraphs[1:]), example.group(1) if example else None


def _irdl_text(example: Example, name: str) -> str:
    """The IRDL form of the example's first op named `name`, or of its first top-level op (an
    attribute's example may be an op that holds it), or of its attributes."""
    stream = io.StringIO()
    printer = irdl_printer(stream)
    named = [op for top in example.ops for op in top.walk() if op.name == name]
    for op in (named or example.ops)[:1]:
        printer.print_op(op)
    if not example.ops:
        for index, attribute in enumerate(example.attributes):
            if index:
                printer.print_string("\n")
            printer.print_attribute(attribute)  # a location prints its own `loc(...)`
    return stream.getvalue()


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _table(header: str, rows: Sequence[tuple[str, str]]) -> list[str]:
    if not rows:
        return []
    lines = [f"| {header} | constraint |", "|---|---|"]
    lines += [f"| `{name}` | {_cell(text)} |" for name, text in rows]
    return [*lines, ""]


def _block(text: str) -> list[str]:
    return ["```mlir", text.rstrip("\n"), "```", ""]


def _operation(op: type[IRDLOperation]) -> list[str]:
    definition = op.get_irdl_definition()
    summary, description, example = _docstring(op)
    lines = [f"### `{definition.name}` ({op.__name__})", "", summary, ""]
    if description:
        lines += [description, ""]
    if example is not None:
        lines += _block(example)
        lines += ["In the IRDL form (`tf-opt --print-irdl-generic`):", ""]
        lines += _block(_irdl_text(parse_example(example), definition.name))
    segmented = segmented_group(op)
    operands = []
    for index, (name, operand) in enumerate(definition.operands):
        element, _ = range_of(operand.constr)
        text = f"`{element.summary()}`"
        if isinstance(operand, OptionalDef):
            text = f"optional {text}"
        elif isinstance(operand, VariadicDef):
            text = f"variadic {text}"
            if element.variable is not None:
                text += ", all of one type"
        if index == segmented:
            text += " (written as runs of one type in the IRDL form)"
        operands.append((name.rstrip("_"), text))
    results = []
    for name, result in definition.results:
        element, _ = range_of(result.constr)
        optional = "optional " if isinstance(result, OptionalDef) else ""
        results.append((name, f"{optional}`{element.summary()}`"))
    attributes = []
    for name, attr in [*definition.properties.items(), *definition.attributes.items()]:
        optional = "optional " if isinstance(attr, OptionalDef) else ""
        attributes.append((name, f"{optional}`{constraint_of(attr.constr).summary()}`"))
    regions = []
    for name, region in definition.regions:
        single = isinstance(region, SingleBlockRegionDef | OptSingleBlockRegionDef)
        blocks = "one block" if single else "any blocks"
        optional = "optional, " if isinstance(region, OptionalDef) else ""
        regions.append((name, f"{optional}{blocks}"))
    lines += _table("operand", operands)
    lines += _table("result", results)
    lines += _table("attribute", attributes)
    lines += _table("region", regions)
    traits = trait_names(op)
    if traits:
        lines += ["Traits: " + ", ".join(f"`{t}`" for t in traits), ""]
    return lines


def _attribute(attr: type[ParametrizedAttribute]) -> list[str]:
    definition = attr.get_irdl_definition()
    summary, description, example = _docstring(attr)
    params = [name for name, _ in definition.parameters]
    sigil = "!" if issubclass(attr, TypeAttribute) else "#"
    lines = [f"### `{sigil}{definition.name}` ({attr.__name__})", "", summary, ""]
    if description:
        lines += [description, ""]
    lines += [f"IRDL form: `{sigil}{definition.name}<{', '.join(params)}>`", ""]
    if example is not None:
        lines += _block(example)
        lines += ["In the IRDL form (`tf-opt --print-irdl-generic`):", ""]
        lines += _block(_irdl_text(parse_example(example), sigil + definition.name))
    rows = [(name, f"`{constraint_of(p.constr).summary()}`") for name, p in definition.parameters]
    return lines + _table("parameter", rows)


def _intro(dialect: Dialect) -> str:
    """The first paragraph of the docstring of the module that defines the dialect."""
    module = importlib.import_module(f"tilefoundry.dialects.{dialect.name}")
    doc = inspect.cleandoc(module.__doc__ or "")
    return " ".join(doc.split("\n\n")[0].split())


def render(dialect: Dialect) -> str:
    """The reference of a dialect, in markdown."""
    lines = [
        "<!-- Generated from tilefoundry/dialects by `make dialects` "
        "(python -m tilefoundry.tools.generators.dialect_docs): do not edit. -->",
        "",
        f"# '{dialect.name}' Dialect",
        "",
        _intro(dialect),
        "",
        f"Upstream MLIR loads it from [`dialects/{dialect.name}.irdl.mlir`]"
        f"(../../dialects/{dialect.name}.irdl.mlir) (`mlir-opt --irdl-file`, with the other "
        "two), on the IRDL form of the text (`tf-opt --print-irdl-generic`, "
        "[the IR](../ir.md#the-irdl-form)).",
        "",
    ]
    ops = [op for op in dialect.operations if issubclass(op, IRDLOperation)]
    attrs = [a for a in dialect.attributes if issubclass(a, ParametrizedAttribute)]
    if ops:
        lines += ["## Operations", ""]
        for op in ops:
            lines += _operation(op)
    if attrs:
        lines += ["## Attributes", ""]
        for attr in attrs:
            lines += _attribute(attr)
    return "\n".join(lines).rstrip("\n") + "\n"


def examples() -> dict[str, str]:
    """Every op's and attribute's example, by its name."""
    found: dict[str, str] = {}
    for dialect in dialects():
        classes: list[type[Operation] | type[Attribute]] = [
            *dialect.operations,
            *dialect.attributes,
        ]
        for cls in classes:
            _, _, example = _docstring(cls)
            if example is not None:
                found[cls.name] = example
    return found


def main(argv: Sequence[str] | None = None) -> int:
    return generate_main(
        "dialect_docs",
        __doc__.splitlines()[0],
        ROOT / "docs" / "dialects",
        lambda out: ((out / f"{d.name}.md", render(d)) for d in dialects()),
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
