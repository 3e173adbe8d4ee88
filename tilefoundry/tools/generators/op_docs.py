"""The op catalogue, `docs/ops.md` and `tf-opt --list-ops`: every op and alias of the registry.

    python -m tilefoundry.tools.generators.op_docs [--check] [--out DIR]     (or `make dialects`)

Everything is read from the registry (`op_schemas()`) and the op classes, so an op documents
itself where it is defined: its ParamDefs (inputs with their patterns and effects, attributes
with their types and defaults), whether it is pure, whether it folds (it overrides
`Op.fold`; the words are `fold`'s docstring) and canonicalizes (`Op.canonicalize`, likewise),
and three fields of its class docstring:

```python
@register_op(category="math")
class Cast(Op):
    \"\"\"Elementwise conversion to another dtype.

    Types: the result has the input's shape and the dtype `dtype`.

    FLOPs: one per result element.

    ```mlir
    %h = tf.call tf.math.cast<dtype = bf16>(%a) : (tensor<4x8xf32>) -> tensor<4x8xbf16>
    ```
    \"\"\"
```

`Types:` is its typeinfer rule in words, `FLOPs:` what `flops` counts, and the ```mlir block one
`tf.call` of the op, which a test parses and verifies. A field may sit on a base class (the first
class of the MRO that has it counts). An op without one gets a fallback text saying what to
add, and is listed at the end of `docs/ops.md`. An alias documents itself in its builder's
docstring (the summary and an example of the op it builds).
"""

from __future__ import annotations

import enum
import importlib
import inspect
import pkgutil
import re
import sys
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from tilefoundry.dialects.tf.op_attr import op_to_attr, print_op_text
from tilefoundry.ir.algebra.op_registry import Op, OpSchema, ParamDef, load_libraries, op_schemas
from tilefoundry.tools.generators.generated_files import generate_main

__all__ = [
    "FIELDS",
    "OpEntry",
    "describe_ops",
    "entries",
    "load_op_library",
    "main",
    "render",
]

ROOT = Path(__file__).resolve().parents[3]
FIELDS = ("Types", "FLOPs", "example")
"""The docstring fields every op class documents itself with."""

_CODE = re.compile(r"```mlir\n(.*?)```", re.S)
_FIELD = re.compile(r"(?:^|(?<=[.;)] ))(Types|FLOPs): ")


def load_op_library() -> None:
    """Import the registry's libraries and every module of `tilefoundry.ops` (an op defined in
    a module that `tilefoundry.ops` does not import is listed too)."""
    load_libraries()
    package = importlib.import_module("tilefoundry.ops")
    for module in pkgutil.iter_modules(package.__path__, "tilefoundry.ops."):
        importlib.import_module(module.name)


def _paragraphs(doc: str | None) -> list[str]:
    text = _CODE.sub("", inspect.cleandoc(doc or ""))
    return [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]


def _example(doc: str | None) -> str | None:
    found = _CODE.search(inspect.cleandoc(doc or ""))
    return found.group(1).strip() if found else None


def _field(op_class: type[Op], field: str) -> str | None:
    """A field of the docstring of the op class, or of the first base class that has it."""
    for klass in op_class.__mro__:
        if klass is Op or not (isinstance(klass, type) and issubclass(klass, Op)):
            continue
        if field == "example":
            found = _example(klass.__dict__.get("__doc__"))
            if found is not None:
                return found
            continue
        for paragraph in _paragraphs(klass.__dict__.get("__doc__")):
            for name, text in _fields_of(paragraph):
                if name == field:
                    return text
    return None


def _fields_of(paragraph: str) -> list[tuple[str, str]]:
    """The fields a paragraph holds: one that starts it runs to the paragraph's end; one that
    starts a later sentence (`... FLOPs: one per element.`) runs to the next field."""
    starts = list(_FIELD.finditer(paragraph))
    ends = [m.start() for m in starts[1:]] + [len(paragraph)]
    return [
        (m.group(1), paragraph[m.end() : end].strip())
        for m, end in zip(starts, ends[: len(starts)], strict=True)
    ]


def _summary(paragraph: str) -> str:
    """A paragraph without its fields."""
    first = _FIELD.search(paragraph)
    return paragraph[: first.start()].strip() if first else paragraph


def _overrides(op_class: type[Op], hook: str) -> bool:
    return getattr(op_class, hook) is not getattr(Op, hook)


@dataclass(frozen=True)
class OpEntry:
    """One op or alias of the catalogue: what `--list-ops` and `docs/ops.md` say of it."""

    schema: OpSchema
    summary: str
    example: str | None
    builds: str | None
    """For an alias, the op it builds (`tf.math.binary<kind = add>`)."""
    types: str | None
    flops: str | None
    folds: str | None
    """The fold's words, None when the op does not fold."""
    missing: tuple[str, ...]
    """The docstring fields (`FIELDS`) the op class does not have."""
    canonicalizes: str | None = None
    """The words of its `canonicalize` hook, None when it has none."""

    @property
    def name(self) -> str:
        return self.schema.full_name

    @property
    def where(self) -> str:
        """The Python object that documents the entry (`tilefoundry.ops.math.Binary`)."""
        owner = self.schema.op_class or self.schema.builder
        return f"{owner.__module__}.{owner.__qualname__}"


def _op_entry(schema: OpSchema) -> OpEntry:
    op_class = schema.op_class
    assert op_class is not None
    fields = {field: _field(op_class, field) for field in FIELDS}
    folds = None
    if _overrides(op_class, "fold"):
        words = " ".join(_paragraphs(op_class.fold.__doc__)[:1])
        folds = f"yes: {words}" if words else "yes"
    canonicalizes = None
    if _overrides(op_class, "canonicalize"):
        words = " ".join(_paragraphs(op_class.canonicalize.__doc__)[:1])
        canonicalizes = f"yes: {words}" if words else "yes"
    paragraphs = [s for s in map(_summary, _paragraphs(op_class.__doc__)) if s]
    return OpEntry(
        schema,
        paragraphs[0] if paragraphs else "",
        fields["example"],
        None,
        fields["Types"],
        fields["FLOPs"],
        folds,
        tuple(field for field, value in fields.items() if value is None),
        canonicalizes,
    )


def _alias_entry(schema: OpSchema) -> OpEntry:
    builds: str | None
    try:
        builds = print_op_text(op_to_attr(schema.builder()))
    except Exception:  # a builder that needs attributes (or fails without them)
        builds = None
    paragraphs = _paragraphs(schema.builder.__doc__)
    example = _example(schema.builder.__doc__)
    return OpEntry(
        schema,
        paragraphs[0] if paragraphs else "",
        example,
        builds,
        None,
        None,
        None,
        () if example is not None else ("example",),
    )


def entries(schemas: Sequence[OpSchema] | None = None) -> list[OpEntry]:
    """The catalogue of these schemas (default: the whole registry, the op library loaded)."""
    if schemas is None:
        load_op_library()
        schemas = op_schemas()
    return [_alias_entry(s) if s.is_alias else _op_entry(s) for s in schemas]


# -- the words of a ParamDef -----------------------------------------------------------------------


def _type_text(annotation: object) -> str:
    if annotation is None:
        return "any"
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        members = ", ".join(str(m.value) for m in annotation)
        return f"{annotation.__name__} ({members})"
    if typing.get_origin(annotation) is tuple:
        (item, *_) = typing.get_args(annotation)
        return f"list of {getattr(item, '__name__', str(item))}"
    if isinstance(annotation, type):
        return annotation.__name__
    return str(annotation)


def _value_text(value: object) -> str:
    if isinstance(value, enum.Enum):
        value = value.value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    return str(value)


def _default_text(param: ParamDef) -> str:
    if param.has_default:
        return f"default {_value_text(param.default)}"
    return "optional (none)" if param.optional else "required"


def _effect_text(param: ParamDef) -> str | None:
    """The declared memory effect of an input (`ParamDef(effect=...)`, where the field exists)."""
    effect = getattr(param, "effect", None)
    if effect is None:
        return None
    return str(effect.value if isinstance(effect, enum.Enum) else effect)


def _input_text(param: ParamDef) -> str:
    text = f"{param.name}: {param.pattern if param.pattern is not None else 'any'}"
    effect = _effect_text(param)
    return f"{text} ({effect})" if effect else text


def _attribute_text(param: ParamDef) -> str:
    return f"{param.name}: {_type_text(param.annotation)}, {_default_text(param)}"


def _missing_text(entry: OpEntry, field: str) -> str:
    if field == "example":
        return f"none (add a ```mlir example to the docstring of `{entry.where}`)"
    return f"not documented (add a `{field}:` paragraph to the docstring of `{entry.where}`)"


def _flops_text(entry: OpEntry) -> str:
    if entry.flops is not None:
        return entry.flops
    op_class = entry.schema.op_class
    counted = op_class is not None and _overrides(op_class, "flops")
    fallback = "it counts them in `flops`" if counted else "it counts none"
    return f"{_missing_text(entry, 'FLOPs')}; {fallback}"


def _plain(text: str) -> str:
    return text


def _code(text: str) -> str:
    return f"`{text}`"


def _facts(entry: OpEntry, code: Callable[[str], str] = _plain) -> list[tuple[str, str]]:
    """The labelled facts of an entry, in order (the same for the text and the markdown, which
    writes IR as `code`)."""
    params = entry.schema.params
    inputs = [_input_text(p) for p in params if p.kind == "input"]
    attributes = [_attribute_text(p) for p in params if p.kind == "attribute"]
    facts = [("inputs", "; ".join(inputs) or "none")]
    if entry.schema.is_alias:
        builds = code(entry.builds) if entry.builds else "an op (its builder takes attributes)"
        facts.insert(0, ("alias of", builds))
        facts.append(("in text", f"write {builds}" if entry.builds else "write the op it builds"))
    else:
        op_class = entry.schema.op_class
        assert op_class is not None
        facts.append(("attributes", "; ".join(attributes) or "none"))
        facts.append(("types", entry.types or _missing_text(entry, "Types")))
        facts.append(("flops", _flops_text(entry)))
        facts.append(("folds", entry.folds or "no"))
        if entry.canonicalizes is not None:
            facts.append(("canonicalizes", entry.canonicalizes))
        pure = "yes" if op_class.pure else "no (a call of it has effects)"
        facts.append(("pure", pure))
    facts.append(("example", entry.example or _missing_text(entry, "example")))
    return facts


# -- tf-opt --list-ops -----------------------------------------------------------------------------


def describe_ops(found: Sequence[OpEntry] | None = None) -> str:
    """`tf-opt --list-ops`: each op and alias of the registry, what it is and how it is called."""
    lines: list[str] = []
    for entry in entries() if found is None else found:
        op_class = entry.schema.op_class
        lines.append(entry.name if op_class is None else f"{entry.name} ({op_class.__name__})")
        if entry.summary:
            lines.append(f"    {entry.summary}")
        for label, text in _facts(entry):
            first, *more = text.split("\n")  # an example of several lines stays aligned
            lines.append(f"    {label}: {first}")
            lines += [" " * (len(label) + 6) + line for line in more]
    return "\n".join(lines) + "\n"


# -- docs/ops.md -----------------------------------------------------------------------------------


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _markdown_entry(entry: OpEntry) -> list[str]:
    op_class = entry.schema.op_class
    owner = f" ({op_class.__name__})" if op_class is not None else " (alias)"
    lines = [f"### `{entry.name}`{owner}", ""]
    if entry.summary:
        lines += [entry.summary, ""]
    for label, text in _facts(entry, _code):
        if label == "example":
            continue
        lines.append(f"- **{label}**: {text}")
    lines.append("")
    if entry.example is not None:
        lines += ["```mlir", entry.example, "```", ""]
    else:
        lines += [f"Example: {_missing_text(entry, 'example')}", ""]
    return lines


def render(found: Sequence[OpEntry] | None = None) -> str:
    """The catalogue in markdown (`docs/ops.md`)."""
    found = entries() if found is None else list(found)
    lines = [
        "<!-- Generated from the op registry by `make dialects` "
        "(python -m tilefoundry.tools.generators.op_docs): do not edit. -->",
        "",
        "# The ops",
        "",
        "Every op and alias of the registry: what a `tf.call` calls "
        "([the tf dialect](dialects/tf.md#tfcall-callop)). `tf-opt --list-ops` prints the same, "
        "with the ops of any `--plugin`. An alias is a name of the Python surface "
        "(`tilefoundry.ops.add`) for an op with fixed attributes; the text writes the op it "
        "builds, and tf-opt refuses the alias with that spelling. Each op's entry is read from "
        "its class (`tilefoundry/ops/`): see `tilefoundry/tools/generators/op_docs.py`.",
        "",
        "| op | inputs | attributes | folds |",
        "|---|---|---|---|",
    ]
    for entry in found:
        params = entry.schema.params
        inputs = ", ".join(p.name for p in params if p.kind == "input") or "none"
        if entry.schema.is_alias:
            attributes = f"alias of `{entry.builds}`" if entry.builds else "alias"
        else:
            attributes = ", ".join(p.name for p in params if p.kind == "attribute") or "none"
        folds = "" if entry.schema.is_alias else ("yes" if entry.folds else "no")  # as its op
        lines.append(f"| `{entry.name}` | {inputs} | {_cell(attributes)} | {folds} |")
    lines.append("")
    section = None
    for entry in found:
        heading = f"{entry.schema.dialect}.{entry.schema.category}"
        if heading != section:
            section = heading
            lines += [f"## `{heading}`", ""]
        lines += _markdown_entry(entry)
    missing = [e for e in found if e.missing]
    lines += ["## Ops without their docstring fields", ""]
    if missing:
        lines += [
            "These entries lack a field of their docstring (`Types:`, `FLOPs:`, an example):",
            "",
        ]
        lines += [f"- `{e.name}` (`{e.where}`): {', '.join(e.missing)}" for e in missing]
    else:
        lines.append("None: every op documents its types, FLOPs and an example.")
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    return generate_main(
        "op_docs",
        __doc__.splitlines()[0],
        ROOT / "docs",
        lambda out: [(out / "ops.md", render())],
        argv,
    )


if __name__ == "__main__":
    sys.exit(main())
