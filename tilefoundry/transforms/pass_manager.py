"""Pass pipelines as `mlir-opt` users write them: MLIR's nesting over xDSL's passes.

```
pipeline ::= element (`,` element)*
element  ::= pass-name options? | op-name `(` pipeline? `)`
options  ::= `{` (option-name (`=` value)?)* `}`      value: up to a space or `}` (a "quoted" part kept whole), or "quoted"
```

`a,b` runs `a` then `b` on the root (the `builtin.module` that holds the input);
`builtin.module(a,b)` says the same. `tf.module(a)` runs `a` on each `tf.module` directly in the
root, `tf.module(hir.func(a))` on each `hir.func` directly in those — MLIR's op-anchored
nesting, on ops that are isolated from above; `any(a)` on each of those ops. A pass runs where
its anchors say (`pass_base.anchors_of`).

This module is the nesting layer: it reads MLIR's text (nesting, anchors, and option values as
MLIR reads them, with columns) and hands each pass's options to xDSL as an `ArgSpec`:
`ModulePass.from_spec` fills the defaults, checks required options and types and builds the pass,
`spec()` prints it back (`--dump-pass-pipeline`). The text is not read by xDSL's
`parse_pipeline` (docs/decisions.md, "A pass manager of our own"). Every mistake is a
`PipelineError`: one line, with the column; a pipeline nests at most 64 levels.

It is only a pass manager: a built `Pipeline` runs each pass on each anchor it nests on, and
calls the instrumentations it is given around them (`instrumentation.py`, as MLIR's
`PassInstrumentation`): verification of a pass's output, the effect summaries a pass keeps,
the freshness of `tf.cost`s, a tool's dumps and timers are all instrumentations.
"""

from __future__ import annotations

import dataclasses
import sys
import types
import typing
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.arg_spec import ArgSpec, ParameterListType, ParameterType

from tilefoundry.dialects.hir import HIR
from tilefoundry.dialects.tf.ops import TF
from tilefoundry.dialects.tir import TIR
from tilefoundry.support.diagnostics import PassError, PassOutputError
from tilefoundry.transforms.instrumentation import PassInstrumentation
from tilefoundry.transforms.pass_base import TFPass, anchors_of

__all__ = [
    "MAX_PIPELINE_NESTING",
    "nesting_anchors",
    "Nest",
    "PassError",
    "PassOutputError",
    "PassRun",
    "Pipeline",
    "PipelineError",
    "TFPass",
    "anchors_of",
    "did_you_mean",
    "describe_passes",
    "option_infos",
    "parse_pipeline",
]


def nesting_anchors() -> tuple[str, ...]:
    """The ops a pipeline nests on: the root and the ops of our dialects that are isolated from
    above (xDSL's `IsolatedFromAbove` trait), in dialect order."""
    isolated = (
        op.name for d in (TF, HIR, TIR) for op in d.operations if op.has_trait(IsolatedFromAbove)
    )
    return ("builtin.module", *isolated)


ANY = "any"
"""`any(...)`: nest on every op directly in the anchor that is one of `nesting_anchors()`, as
MLIR's op-agnostic pass manager does; only passes that run on any op may go in it."""

MAX_PIPELINE_NESTING = 64
"""How deep `op-name(...)` may nest in a pipeline (the IR itself nests at most 64 levels)."""

PassLoader = Callable[[], type[ModulePass]]


def did_you_mean(name: str, known: Iterable[str]) -> str:
    """`; did you mean 'x'?` when a known name is close to `name`, else nothing."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1)
    return f"; did you mean '{close[0]}'?" if close else ""


class PipelineError(ValueError):
    """A malformed or impossible pipeline; `column` is 1-based in the pipeline text."""

    def __init__(self, message: str, column: int | None = None) -> None:
        self.message = message
        self.column = column
        super().__init__(message if column is None else f"{message} (at column {column})")


# ---------------------------------------------------------------------------------------------
# The text: MLIR's grammar, read with columns


@dataclass(frozen=True)
class PassText:
    name: str
    options: tuple[tuple[str, str | None, int], ...]  # (name, value or None, column)
    column: int


@dataclass(frozen=True)
class NestText:
    op_name: str
    elements: tuple[PassText | NestText, ...]
    column: int


_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text, 0

    def at(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def peek(self) -> str:
        while self.at().isspace():
            self.pos += 1
        return self.at()

    def fail(self, message: str) -> typing.NoReturn:
        raise PipelineError(message, self.pos + 1)

    def name(self, what: str) -> str:
        start = self.pos
        while self.at() and self.at() in _NAME_CHARS:
            self.pos += 1
        if start == self.pos:
            self.fail(f"expected {what}, found " + (repr(self.at()) if self.at() else "the end"))
        return self.text[start : self.pos]

    def elements(self, closing: str, depth: int) -> tuple[PassText | NestText, ...]:
        elements: list[PassText | NestText] = []
        while True:
            self.peek()
            column = self.pos + 1
            name = self.name("a pass name or an op name")
            if self.peek() == "(":
                if depth >= MAX_PIPELINE_NESTING:
                    raise PipelineError(
                        f"the pipeline nests deeper than {MAX_PIPELINE_NESTING} levels", column
                    )
                self.pos += 1
                inner = () if self.peek() == ")" else self.elements(")", depth + 1)
                self.pos += 1  # the `)` that ended `inner`
                elements.append(NestText(name, inner, column))
            else:
                elements.append(PassText(name, self.options(name), column))
            following = self.peek()
            if following == ",":
                self.pos += 1
            elif following == closing:
                return tuple(elements)
            elif following == "":
                self.fail(f"expected ',' or {closing!r}, found the end")
            elif closing == "":
                self.fail(f"expected ',' between passes, found {following!r}")
            else:
                self.fail(f"expected ',' or {closing!r}, found {following!r}")

    def options(self, pass_name: str) -> tuple[tuple[str, str | None, int], ...]:
        if self.peek() != "{":
            return ()
        self.pos += 1
        options: list[tuple[str, str | None, int]] = []
        while (following := self.peek()) != "}":
            if following == "":
                self.fail(f"expected '}}' to close the options of '{pass_name}'")
            column = self.pos + 1
            key = self.name(f"an option name of '{pass_name}'")
            value = None
            if self.at() == "=":
                self.pos += 1
                value = self.value()
            options.append((key, value, column))
        self.pos += 1
        return tuple(options)

    def value(self) -> str:
        """An option value as MLIR's `parseNextArg` reads it: the text up to a space or the
        closing `}`; braces inside it nest, and a quoted part, as in `@"c d"::@g`, is kept
        whole, spaces and braces included (`_unquoted` drops the quotes of a quoted value)."""
        start, depth = self.pos, 0
        while (char := self.at()) and not (depth == 0 and (char == "}" or char.isspace())):
            if char == '"':
                end = self.text.find('"', self.pos + 1)
                if end < 0:
                    self.fail(
                        "unterminated quoted option value"
                        if self.pos == start
                        else "unterminated quoted part of an option value"
                    )
                self.pos = end
            depth += {"{": 1, "}": -1}.get(char, 0)
            self.pos += 1
        if start == self.pos:
            self.fail("expected an option value after '='")
        return self.text[start : self.pos]


def parse_text(text: str) -> tuple[PassText | NestText, ...]:
    """The pipeline's elements (an empty pipeline has none)."""
    reader = _Reader(text)
    return () if reader.peek() == "" else reader.elements("", 0)


# ---------------------------------------------------------------------------------------------
# Options: MLIR's reading of each value, then xDSL's `from_spec`


def _scalar(hint: Any, text: str | None, where: str) -> ParameterType:
    """One value read by the option's declared type, as MLIR's `llvm::cl` parsers read it
    (xDSL's lexer types a value by its spelling: `0x10` would be a string, `1` never a bool)."""
    if hint is bool:
        if text is None or text.lower() in ("true", "1"):  # `{flag}` is true, as in MLIR
            return True
        if text.lower() in ("false", "0"):
            return False
        raise ValueError(f"{where} expects true or false, got '{text}'")
    if text is None:
        raise ValueError(f"{where} needs a value")
    try:
        if hint in (int, float) and (not text.isascii() or not text.isprintable() or "_" in text):
            raise ValueError  # Python's int() and float() take ١٢, 1_000 and spaces; MLIR does not
        if hint is int:
            return int(text, 0)
        if hint is float:
            return float(text)
    except ValueError:
        what = "an integer" if hint is int else "a number"
        raise ValueError(f"{where} expects {what}, got '{text}'") from None
    if hint is str:
        return text
    raise ValueError(f"{where} has a type tf-opt cannot read ({_type_text(hint)})")


def _values(hint: Any, text: str | None, where: str) -> ParameterListType:
    """What `ArgSpec` holds for one option: its values (none for an optional left unset)."""
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if text is None and len(args) != len(typing.get_args(hint)):
            return ()
        errors: list[str] = []
        for arg in args:
            try:
                return _values(arg, text, where)
            except ValueError as err:
                errors.append(str(err))
        raise ValueError(errors[0])
    if origin is tuple:  # a list option: comma-separated, as MLIR's ListOption
        item = typing.get_args(hint)[0]
        parts = [_unquoted(part.strip()) for part in _split(text or "")]
        return () if parts == [""] else tuple(_scalar(item, part, where) for part in parts)
    return (_scalar(hint, None if text is None else _unquoted(text), where),)


def _split(text: str) -> list[str]:
    """A list value's elements: at each comma outside a quoted part (`"a,b",c` is two)."""
    parts, start, quoted = [], 0, False
    for index, char in enumerate(text):
        quoted ^= char == '"'
        if char == "," and not quoted:
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def _unquoted(text: str) -> str:
    """A value written in quotes, without them, as MLIR drops them (and as xDSL's `ArgSpec`
    prints each string: `dims="seq=4","batch=2"` reads back)."""
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] == '"' else text


def make_pass(pass_class: type[ModulePass], spec: PassText) -> ModulePass:
    """The pass with its options (refused in one line: unknown option, bad value)."""
    hints = typing.get_type_hints(pass_class)
    fields = {f.name.replace("_", "-"): f for f in dataclasses.fields(pass_class) if f.init}
    values: dict[str, ParameterListType] = {}
    for key, text, column in spec.options:
        field = fields.get(key.replace("_", "-"))  # `max_elements` too, as xDSL reads it
        if field is None:
            known = ", ".join(fields) or "none"
            raise PipelineError(
                f"pass '{spec.name}' has no option '{key}' (options: {known})"
                + did_you_mean(key, fields),
                column,
            )
        where = f"option '{field.name.replace('_', '-')}' of '{spec.name}'"
        try:
            values[field.name] = _values(hints[field.name], text, where)
        except ValueError as err:
            raise PipelineError(str(err), column) from None
    try:
        return pass_class.from_spec(ArgSpec(pass_class.name, values))
    except (TypeError, ValueError) as err:  # a required option, or the pass's own checks
        raise PipelineError(f"pass '{spec.name}': {err}", spec.column) from None


@dataclass(frozen=True)
class OptionInfo:
    """One option of a pass: kebab-case name, type text, default (None when required)."""

    name: str
    type: str
    default: str | None
    help: str


def _type_text(hint: Any) -> str:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        return " | ".join(_type_text(a) for a in typing.get_args(hint))
    if origin is tuple:
        return f"list of {_type_text(typing.get_args(hint)[0])}"
    return "none" if hint is type(None) else getattr(hint, "__name__", str(hint))


def _default_text(value: Any) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        return ",".join(_default_text(v) for v in value) or "(none)"
    return '""' if value == "" else "(none)" if value is None else str(value)


def option_infos(pass_class: type[ModulePass]) -> tuple[OptionInfo, ...]:
    """The options `--list-passes` shows, kebab-case, with their types and defaults."""
    hints = typing.get_type_hints(pass_class)
    required = pass_class.required_fields()
    infos: list[OptionInfo] = []
    for field in dataclasses.fields(pass_class):
        default = None
        if field.name not in required:
            factory = field.default_factory
            value = field.default if factory is dataclasses.MISSING else factory()
            default = _default_text(None if value is dataclasses.MISSING else value)  # `X | None`
        help = str(field.metadata.get("help", ""))
        infos.append(
            OptionInfo(field.name.replace("_", "-"), _type_text(hints[field.name]), default, help)
        )
    return tuple(infos)


# ---------------------------------------------------------------------------------------------
# Building and running


@dataclass(frozen=True)
class PassRun:
    """A pass to run on the anchor op."""

    pass_: ModulePass


@dataclass(frozen=True)
class Nest:
    """A nested pipeline that runs on each op named `op_name` directly in the anchor."""

    op_name: str
    elements: tuple[PassRun | Nest, ...]


@dataclass(frozen=True)
class Pipeline:
    """A built pipeline: what runs on the root (a `builtin.module`)."""

    text: str
    elements: tuple[PassRun | Nest, ...]

    @property
    def passes(self) -> tuple[ModulePass, ...]:
        """Every pass, in order, nested ones included."""

        def walk(elements: Sequence[PassRun | Nest]) -> Iterator[ModulePass]:
            for element in elements:
                if isinstance(element, PassRun):
                    yield element.pass_
                else:
                    yield from walk(element.elements)

        return tuple(walk(self.elements))

    def run(
        self,
        ctx: Context,
        root: Operation,
        instrumentations: Sequence[PassInstrumentation] = (),
    ) -> None:
        """Run on `root`, with `instrumentations` called around the pipeline and around each
        pass on each anchor (`instrumentation.py`: before-hooks in this order, after-hooks in
        the reverse order)."""
        for instrumentation in instrumentations:
            instrumentation.before_pipeline(root)
        _run(self.elements, ctx, root, tuple(instrumentations))
        for instrumentation in reversed(instrumentations):
            instrumentation.after_pipeline(root)

    def describe(self) -> str:
        """The pipeline in full, every option with its value (`--dump-pass-pipeline`)."""
        return f"builtin.module({_describe(self.elements)})"


def _describe(elements: Sequence[PassRun | Nest]) -> str:
    """xDSL's spelling of each pass with all its options (`ArgSpec`), kebab-case, nested."""
    parts: list[str] = []
    for element in elements:
        if isinstance(element, Nest):
            parts.append(f"{element.op_name}({_describe(element.elements)})")
            continue
        spec = element.pass_.spec(include_default=True)
        kebab = {key.replace("_", "-"): value for key, value in spec.parameters.items()}
        parts.append(str(ArgSpec(spec.name, kebab)))
    return ",".join(parts)


def _run(
    elements: Sequence[PassRun | Nest],
    ctx: Context,
    anchor: Operation,
    instrumentations: tuple[PassInstrumentation, ...],
) -> None:
    for element in elements:
        if isinstance(element, PassRun):
            _run_pass(element.pass_, ctx, anchor, instrumentations)
            continue
        targets = [
            op
            for region in anchor.regions
            for block in region.blocks
            for op in block.ops
            if op.name == element.op_name
            or (element.op_name == ANY and op.has_trait(IsolatedFromAbove))
        ]
        for target in targets:
            _run(element.elements, ctx, target, instrumentations)


def _run_pass(
    module_pass: ModulePass,
    ctx: Context,
    anchor: Operation,
    instrumentations: tuple[PassInstrumentation, ...],
) -> None:
    """One pass on one anchor, between its instrumentations' hooks."""
    for instrumentation in instrumentations:
        instrumentation.before_pass(module_pass, anchor)
    try:
        module_pass.apply(ctx, typing.cast(Any, anchor))
    except BaseException:
        for instrumentation in reversed(instrumentations):
            instrumentation.after_pass_failed(module_pass, anchor)
        raise
    for instrumentation in reversed(instrumentations):
        instrumentation.after_pass(module_pass, anchor)


def parse_pipeline(text: str, available: Mapping[str, PassLoader]) -> Pipeline:
    """Parse and build a pipeline (see the module docstring); raises `PipelineError`."""
    elements = parse_text(text)
    if len(elements) == 1 and isinstance(elements[0], NestText):
        if elements[0].op_name == "builtin.module":  # the root itself, as in mlir-opt
            elements = elements[0].elements
    return Pipeline(text, _build(elements, "builtin.module", available))


def _build(
    elements: Sequence[PassText | NestText], anchor: str, available: Mapping[str, PassLoader]
) -> tuple[PassRun | Nest, ...]:
    built: list[PassRun | Nest] = []
    for element in elements:
        if isinstance(element, NestText):
            if element.op_name == "builtin.module":
                raise PipelineError(
                    "'builtin.module(...)' names the root: it encloses the whole pipeline",
                    element.column,
                )
            nestable = nesting_anchors()
            if element.op_name != ANY and element.op_name not in nestable:
                why = (
                    "is not isolated from above" if "." in element.op_name else "is not an op name"
                )
                raise PipelineError(
                    f"cannot nest passes on '{element.op_name}': it {why}; nest on one of: "
                    + ", ".join(nestable),
                    element.column,
                )
            built.append(
                Nest(element.op_name, _build(element.elements, element.op_name, available))
            )
            continue
        loader = available.get(element.name)
        if loader is None:
            raise PipelineError(
                f"unknown pass '{element.name}' (available passes: {', '.join(sorted(available))})"
                + did_you_mean(element.name, available),
                element.column,
            )
        pass_class = loader()
        anchors = anchors_of(pass_class)
        if anchors is not None and anchor == ANY:
            raise PipelineError(
                f"pass '{element.name}' runs on {' or '.join(anchors)}, not on any op "
                "(inside 'any(...)')",
                element.column,
            )
        if anchors is not None and anchor not in anchors:
            raise PipelineError(
                f"pass '{element.name}' runs on {' or '.join(anchors)}, not on '{anchor}'",
                element.column,
            )
        built.append(PassRun(make_pass(pass_class, element)))
    return tuple(built)


def _summary(name: str, pass_class: type[ModulePass]) -> str:
    """The first sentence of the pass's module docstring (`name`: what it does.), else of its
    class docstring; xDSL's own passes are described by their module here (`cse.py`)."""
    module = sys.modules.get(f"tilefoundry.transforms.{name.replace('-', '_')}")
    if module is None or getattr(module, "__doc__", None) is None:
        module = sys.modules.get(pass_class.__module__)
    text = (module.__doc__ if module is not None else None) or pass_class.__doc__ or ""
    paragraph = " ".join(text.strip().split("\n\n")[0].split())
    if paragraph.startswith("`") and "`: " in paragraph:
        paragraph = paragraph.split("`: ", 1)[1]
    return paragraph.split(". ")[0].rstrip(".")


def describe_passes(available: Mapping[str, PassLoader]) -> str:
    """`tf-opt --list-passes`: each pass, what it does (its docstring's first line), where it
    runs, and its options with their types and defaults."""
    lines: list[str] = []
    for name in sorted(available):
        pass_class = available[name]()
        anchors = anchors_of(pass_class)
        runs_on = "any op" if anchors is None else ", ".join(anchors)
        lines += [name, f"    {_summary(name, pass_class)} (runs on {runs_on})"]
        for option in option_infos(pass_class):
            default = "required" if option.default is None else f"default {option.default}"
            help = f": {option.help}" if option.help else ""
            lines.append(f"    {{{option.name}={option.type}}} ({default}){help}")
    return "\n".join(lines) + "\n"
