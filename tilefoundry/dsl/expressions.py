"""The expressions of the DSL (see `tilefoundry.dsl.parser` for the table of what a body may
say): each `e_<Node>` method evaluates one kind of Python expression node, to an IR value (an op
it builds, a Var) or a plain Python value; every op it builds records its source span."""

from __future__ import annotations

import ast
import builtins
import functools
import re
import types
from collections.abc import Callable
from typing import Any, cast

from tilefoundry.api.module import Module
from tilefoundry.builtin.metadata import BindingMetadata
from tilefoundry.builtin.types import TensorType
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dialects.tf.ops import CallOp, ConstantOp, TupleOp
from tilefoundry.dsl.annotations import ParamType, Tensor
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.source import MISSING, READS, PythonScope, Source
from tilefoundry.dsl.values import (
    Cycle,
    Pending,
    SelfRef,
    Symbols,
    child_lists,
    describe,
    fresh,
    is_value,
    set_metadata,
)
from tilefoundry.ir.algebra.op_registry import Op
from tilefoundry.ir.algebra.patterns import Tensor as TensorPattern
from tilefoundry.ir.algebra.view import FunctionView
from tilefoundry.support.caches import CACHES, BoundedMapping

__all__ = ["BINARY_OPERATORS", "ExpressionParser"]

BINARY_OPERATORS: dict[type[ast.AST], str] = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.Pow: "pow",
    ast.MatMult: "matmul",
    ast.Lt: "cmp_lt",
    ast.LtE: "cmp_le",
    ast.Gt: "cmp_gt",
    ast.GtE: "cmp_ge",
    ast.Eq: "cmp_eq",
    ast.NotEq: "cmp_ne",
}
"""The Python operators on IR values, and the alias each one calls."""


_SPELLINGS: BoundedMapping[str, Any] = CACHES.mapping("DSL annotation spellings")
"""The syntax key (`_syntax_key`) of an annotation's one-line source text."""

_HANDLERS: dict[tuple[type, type], Callable[[Any, Any], Any] | None] = {}
"""Per parser class and syntax node class: the `e_<Node>` method that evaluates it, or None
(found once, not by name for each node)."""


class ExpressionParser:
    """Evaluates the expressions of one function body (the base of `FunctionParser`)."""

    def __init__(self, source: Source, scope: PythonScope, symbols: Symbols) -> None:
        self.source = source
        self.scope = scope
        self.symbols = symbols
        self.module = symbols.module
        self.locals: dict[str, Any] = {}
        self.hidden: dict[str, int] = {}
        self.in_annotation = False

    def error(self, node: ast.AST, message: str) -> DSLError:
        return self.source.error(node, message)

    def annotation(self, node: ast.expr) -> ParamType:
        """A parameter's annotation, read once per scope and spelling (the same text, or the
        same syntax tree) while the names it reads resolve the same: the N layers of a model
        repeat the same few. `BASE.named('layer0.wq')` (a str literal) is BASE, read so, under
        that name: each of N layers' weights names its own."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            named = _NAMED.fullmatch(node.value)
            if named is not None and named.group(3) and _primary(named.group(1)):
                text = named.group(1)
                where = ast.copy_location(ast.Constant(text), node)
                found = self.base_annotation(("str", text), where, named.group(3))
                if found is not None:
                    return found
            return self.cached_annotation(("str", node.value), node)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "named"
            and not node.keywords
            and len(node.args) == 1
            and isinstance(name := node.args[0], ast.Constant)
            and isinstance(name.value, str)
            and name.value
            and (key := self.spelling_key(node.func.value)) is not None
        ):
            found = self.base_annotation(("ast", key), node.func.value, name.value)
            if found is not None:
                return found
        key = _syntax_key(node)
        if key is None:
            return self.evaluated_annotation(node)
        return self.cached_annotation(("ast", key), node)

    def spelling_key(self, node: ast.expr) -> Any:
        """`_syntax_key(node)`, found once per source text of one line (the same text is the
        same syntax): N layers' parameters repeat a few spellings."""
        text = self.source.text(node)
        if text is None:
            return _syntax_key(node)
        key = _SPELLINGS.get(text)
        if key is None:
            key = _syntax_key(node)
            if key is not None:
                _SPELLINGS.set(text, key)
        return key

    def base_annotation(self, key: Any, node: ast.expr, name: str) -> ParamType | None:
        """`BASE.named(name)` from BASE's annotation (None when BASE is not one: the whole is
        then read as written, for its own value or diagnostic)."""
        try:
            base = self.cached_annotation(key, node)
        except DSLError:
            return None
        return base.named(name) if type(base) is ParamType else None

    def cached_annotation(self, key: Any, node: ast.expr) -> ParamType:
        """The annotation `node` says, read once per scope and `key` (its spelling) while the
        names it reads resolve the same. The memo lives on the scope (`PythonScope.annotations`),
        so it lasts as long as the function read that made the scope, and no longer."""
        known = self.scope.annotations.get(key)
        outer = READS.get()
        if known is not None:
            found, reads = known
            if all(scope.still(name, value) for scope, name, value in reads):
                if outer is not None:
                    outer += reads
                return cast(ParamType, found)
        reads = []
        token = READS.set(reads)
        try:
            found = self.evaluated_annotation(node)
        finally:
            READS.reset(token)
        if outer is not None:
            outer += reads
        if all(_pure(value) for _, _, value in reads):  # a user's function may answer anew
            self.scope.annotations[key] = (found, reads)
        return found

    def evaluated_annotation(self, node: ast.expr) -> ParamType:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                raise self.error(node, f"cannot read annotation {node.value!r}") from None
            for inner in ast.walk(parsed):  # positions: the string's
                ast.copy_location(inner, node)
            node = parsed
        self.in_annotation = True
        try:
            found = self.python(node)
        finally:
            self.in_annotation = False
        if not isinstance(found, ParamType):
            raise self.error(
                node, "a parameter is annotated Tensor[shape, dtype] or ConstTensor[shape, dtype]"
            )
        return found

    def python(self, node: ast.expr) -> Any:
        """An expression that must be a plain Python value (no IR value)."""
        value = self.expr(node)
        if is_value(value):
            raise self.error(node, "expected a Python value here, got an IR value")
        return value

    def expr(self, node: ast.expr) -> Any:
        key = (type(self), type(node))
        method = _HANDLERS.get(key, MISSING)
        if method is MISSING:
            method = _HANDLERS[key] = getattr(type(self), f"e_{type(node).__name__}", None)
        if method is None:
            raise self.error(
                node, f"unsupported Python syntax: {describe(node)} is not part of the DSL"
            )
        value = method(self, node)
        if fresh(value):
            set_metadata(value, (self.source.span(node),))
        return value

    def e_Constant(self, node: ast.Constant) -> Any:  # noqa: N802
        return node.value

    def e_Name(self, node: ast.Name) -> Any:  # noqa: N802
        name = node.id
        if name in self.locals:
            return self.locals[name]
        found = self.symbol(node, self.symbols, name)
        if found is not MISSING:
            return found
        found = self.scope.lookup(name)
        if found is not MISSING:
            return found
        if name in self.hidden:
            raise self.error(
                node,
                f"'{name}' is assigned inside the with Mesh(...) block at line {self.hidden[name]}"
                " and is not visible after it",
            )
        raise self.error(node, f"unknown name '{name}'")

    def symbol(self, node: ast.AST, symbols: Symbols, name: str) -> Any:
        try:
            return symbols.get(name)
        except Cycle as cycle:
            raise self.error(node, str(cycle)) from None

    def e_Attribute(self, node: ast.Attribute) -> Any:  # noqa: N802
        value = self.expr(node.value)
        return self.attribute(node, value, node.attr)

    def attribute(self, node: ast.AST, value: Any, attr: str) -> Any:
        if isinstance(value, SelfRef):
            instance = value.symbols.instance
            if attr.startswith("_") and instance is not None:
                value.symbols.personal = True  # the build depends on this instance
                try:  # Python state `__init__` set (`self._norm = True`)
                    return object.__getattribute__(instance, attr)
                except AttributeError:
                    raise self.error(
                        node, f"module '{self.module}' has no Python attribute '{attr}'"
                    ) from None
            found = self.symbol(node, value.symbols, attr)
            if found is MISSING:
                raise self.error(
                    node, f"module '{self.module}' has no function or child module '{attr}'"
                )
            return found
        if isinstance(value, Module):
            functions = value.function_named(attr)
            if functions:
                return functions[0]
            children = [m for m in value.modules if m.attached_name == attr]
            if children:
                return children[0]
            layers = child_lists({m.attached_name: m for m in value.modules}).get(attr)
            if layers is not None:
                return layers
            raise self.error(
                node, f"module '{value.name}' has no function or child module '{attr}'"
            )
        if is_value(value):
            raise self.error(node, f"an IR value has no attribute '{attr}' in the DSL")
        try:
            return getattr(value, attr)
        except AttributeError:
            if isinstance(value, types.ModuleType):
                raise self.error(node, f"unknown op or name '{value.__name__}.{attr}'") from None
            raise self.error(node, f"{type(value).__name__} has no attribute '{attr}'") from None

    def e_Call(self, node: ast.Call) -> Any:  # noqa: N802
        func = self.expr(node.func)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                spread = self.expr(arg.value)
                if is_value(spread) or not isinstance(spread, list | tuple):
                    raise self.error(arg, "*args spreads a Python list or tuple")
                args.extend(spread)
            else:
                args.append(self.expr(arg))
        kwargs: dict[str, Any] = {}
        loc: Any = None
        for keyword in node.keywords:
            if keyword.arg is None:
                raise self.error(keyword, "**kwargs is not part of the DSL")
            if keyword.arg == "loc":
                loc = self.python(keyword.value)
                if not isinstance(loc, str) or not loc:
                    raise self.error(keyword, "loc= names the value: a non-empty str")
            else:
                kwargs[keyword.arg] = self.expr(keyword.value)
        if func is builtins.getattr and len(args) == 2 and isinstance(args[1], str):
            return self.attribute(node, args[0], args[1])
        result = self.call(node, func, args, kwargs)
        if loc is not None:
            if not fresh(result):
                raise self.error(node, "loc= names a new value; this call gives an existing one")
            set_metadata(result, (BindingMetadata(loc), self.source.span(node)))
        return result

    def call(self, node: ast.AST, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if func is MeshOp:
            raise self.error(node, "Mesh(...) is written as a with statement: with Mesh(...):")
        try:
            if isinstance(func, Pending):
                return func.call(args)
            if isinstance(func, FunctionView) or isinstance(func, Op):
                if kwargs:
                    raise TypeError(f"a call of {func!r} takes no keyword arguments")
                for index, arg in enumerate(args):
                    if not is_value(arg):
                        raise TypeError(
                            f"argument #{index} must be an IR value, got {type(arg).__name__} "
                            f"{arg!r}"
                        )
                return CallOp(func, args)
            if isinstance(func, Module):
                raise TypeError(
                    f"module '{func.name}' is not callable in the DSL; call one of its functions"
                )
            if not callable(func):
                raise TypeError(f"{type(func).__name__} {func!r} is not callable")
            return func(*args, **kwargs)
        except DSLError:
            raise
        except Exception as err:  # noqa: BLE001 - whatever the callee refuses is a diagnostic
            raise self.error(node, str(err)) from None

    def call_alias(self, node: ast.AST, name: str, args: list[Any], attrs: dict[str, Any]) -> Any:
        from tilefoundry import ops

        # the library's builder: no macro or method of the user's (what a subclass's `call`
        # looks for first)
        value = ExpressionParser.call(self, node, getattr(ops, name), args, attrs)
        if fresh(value):
            set_metadata(value, (self.source.span(node),))
        return value

    def constant_for(self, node: ast.AST, number: Any, other: Any) -> Any:
        if isinstance(number, bool) or not isinstance(number, int | float):
            return number
        dtype = other.type.dtype if isinstance(other.type, TensorType) else None
        try:
            value = ConstantOp([number], dtype=dtype)
        except Exception as err:  # noqa: BLE001
            raise self.error(node, str(err)) from None
        set_metadata(value, (self.source.span(node),))
        return value

    def operator(self, node: ast.AST, op: ast.AST, operands: list[tuple[ast.expr, Any]]) -> Any:
        values = [v for _, v in operands]
        name = BINARY_OPERATORS.get(type(op))
        if not any(is_value(v) for v in values):
            return None
        if name is None:
            raise self.error(node, f"unsupported operator {type(op).__name__} on IR values")
        expr = next(v for v in values if is_value(v))
        args = [self.constant_for(n, v, expr) if not is_value(v) else v for n, v in operands]
        return self.call_alias(node, name, args, {})

    def e_BinOp(self, node: ast.BinOp) -> Any:  # noqa: N802
        left, right = self.expr(node.left), self.expr(node.right)
        found = self.operator(node, node.op, [(node.left, left), (node.right, right)])
        if found is not None:
            return found
        return self.python_eval(node, lambda: _PY_BINARY[type(node.op)](left, right))

    def e_Compare(self, node: ast.Compare) -> Any:  # noqa: N802
        if len(node.ops) != 1:
            raise self.error(node, "chained comparison (a < b < c) is not part of the DSL")
        left, right = self.expr(node.left), self.expr(node.comparators[0])
        found = self.operator(node, node.ops[0], [(node.left, left), (node.comparators[0], right)])
        if found is not None:
            return found
        return self.python_eval(node, lambda: _PY_COMPARE[type(node.ops[0])](left, right))

    def e_UnaryOp(self, node: ast.UnaryOp) -> Any:  # noqa: N802
        operand = self.expr(node.operand)
        if is_value(operand):
            if isinstance(node.op, ast.USub):
                return self.call_alias(node, "neg", [operand], {})
            if isinstance(node.op, ast.UAdd):
                return operand
            raise self.error(node, f"unsupported operator {type(node.op).__name__} on IR values")
        return self.python_eval(node, lambda: _PY_UNARY[type(node.op)](operand))

    def python_eval(self, node: ast.AST, compute: Callable[[], Any]) -> Any:
        try:
            return compute()
        except DSLError as err:  # raised by a DSL object (an annotation): placed here
            raise self.error(node, err.message) from None
        except KeyError:
            raise self.error(node, f"unsupported Python syntax: {describe(node)}") from None
        except Exception as err:  # noqa: BLE001
            raise self.error(node, str(err)) from None

    def e_Tuple(self, node: ast.Tuple) -> Any:  # noqa: N802
        items = [self.expr(e) for e in node.elts]
        if not any(is_value(i) for i in items):
            return tuple(items)
        for element, item in zip(node.elts, items, strict=True):
            if not is_value(item):
                raise self.error(element, "a tuple of IR values holds IR values only")
        return TupleOp(items)

    def e_List(self, node: ast.List) -> Any:  # noqa: N802
        return [self.expr(e) for e in node.elts]

    def e_Subscript(self, node: ast.Subscript) -> Any:  # noqa: N802
        value = self.expr(node.value)
        index = self.expr(node.slice)
        if self.in_annotation and value is TensorPattern:
            value = Tensor
        if is_value(value):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(node.slice, "a tuple value is indexed by an int")
            return self.call_alias(node, "tuple_get_item", [value], {"index": index})
        return self.python_eval(node, lambda: value[index])

    def e_JoinedStr(self, node: ast.JoinedStr) -> Any:  # noqa: N802
        """An f-string, with its conversions (`!r`, `!s`, `!a`) and format specs (`:03d`)."""
        parts: list[str] = []
        for part in node.values:
            if not isinstance(part, ast.FormattedValue):
                parts.append(str(self.python(part)))
                continue
            value = self.python(part.value)
            spec = "" if part.format_spec is None else self.python(part.format_spec)
            convert = _CONVERSIONS[part.conversion]

            def formatted(v: Any = value, c: Callable[[Any], Any] = convert, s: Any = spec) -> str:
                return format(c(v), s)

            parts.append(self.python_eval(part, formatted))
        return "".join(parts)


_PURE_BUILTINS = frozenset({"abs", "len", "max", "min", "round", "sum"})


def _pure(value: Any) -> bool:
    """Whether an annotation that reads `value` says the same each time it is read: a
    module, a scalar (or a tuple of them), a builtin type or one of a few pure builtins, or an
    object or class of the library (`Tensor`, `tf.DimVar`, a dtype); not a user's function or
    object, whose call may answer differently each time."""
    if value is None or isinstance(value, types.ModuleType | int | float | str | bytes):
        return True
    if isinstance(value, tuple):
        return all(_pure(v) for v in value)
    if isinstance(value, type):
        return value.__module__ == "builtins" or value.__module__.startswith("tilefoundry.")
    if isinstance(value, types.BuiltinFunctionType):
        return value.__module__ == "builtins" and value.__name__ in _PURE_BUILTINS
    return type(value).__module__.startswith("tilefoundry.")


def _syntax_key(node: ast.AST) -> Any:
    """A value equal for two annotation syntax trees exactly when they say the same (names,
    attributes, literals by type and value, -0.0 apart from 0.0), or None for a tree of other
    syntax (an f-string, a lambda, ...), which is read each time."""
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, float):
            return ("f", value.hex())
        if isinstance(value, complex):
            return None
        return ("c", type(value), value)
    if isinstance(node, ast.Name):
        return ("n", node.id)
    if isinstance(node, ast.Attribute):
        inner = _syntax_key(node.value)
        return None if inner is None else ("a", inner, node.attr)
    if isinstance(node, ast.Subscript):
        value, index = _syntax_key(node.value), _syntax_key(node.slice)
        return None if value is None or index is None else ("s", value, index)
    if isinstance(node, ast.Tuple | ast.List):
        items = [_syntax_key(e) for e in node.elts]
        return None if None in items else (type(node).__name__, tuple(items))
    if isinstance(node, ast.UnaryOp):
        operand = _syntax_key(node.operand)
        return None if operand is None else ("u", type(node.op), operand)
    if isinstance(node, ast.BinOp):
        left, right = _syntax_key(node.left), _syntax_key(node.right)
        return None if left is None or right is None else ("b", type(node.op), left, right)
    if isinstance(node, ast.Call):
        parts = [_syntax_key(node.func), *(_syntax_key(a) for a in node.args)]
        keywords = [(k.arg, _syntax_key(k.value)) for k in node.keywords]
        if None in parts or any(k is None or v is None for k, v in keywords):
            return None
        return ("k", tuple(parts), tuple(keywords))
    return None


_NAMED = re.compile(r"(.+)\.named\((['\"])([^'\"\\]*)\2\)", re.DOTALL)
"""A string annotation `BASE.named('name')`: BASE, the quote, the name (no escapes in it)."""


@functools.lru_cache(maxsize=1024)
def _primary(text: str) -> bool:
    """Whether `text` is one Python primary (a name, attribute, subscript or call), so that
    `text.named(...)` is a call of its `named`, not of a part of it (`a if c else b.named`)."""
    try:
        tree = ast.parse(text.strip(), mode="eval").body
    except SyntaxError:
        return False
    return isinstance(tree, ast.Name | ast.Attribute | ast.Subscript | ast.Call)


_CONVERSIONS: dict[int, Callable[[Any], Any]] = {
    -1: lambda v: v,
    ord("r"): repr,
    ord("s"): str,
    ord("a"): ascii,
}

_PY_BINARY: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Pow: lambda a, b: a**b,
}
_PY_COMPARE: dict[type[ast.AST], Callable[[Any, Any], Any]] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}
_PY_UNARY: dict[type[ast.AST], Callable[[Any], Any]] = {
    ast.USub: lambda a: -a,
    ast.UAdd: lambda a: +a,
    ast.Not: lambda a: not a,
}
