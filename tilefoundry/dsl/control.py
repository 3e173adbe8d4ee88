"""Static control flow and macros: what the DSL runs while it reads a function.

- `for target in iterable:` over a Python value (`range(N)`, a list or tuple — of numbers, IR
  values or child modules, `self.layers`) is unrolled: the body runs once per item, as
  TVMScript's and Triton's static loops are. `break` and `continue` work as in Python.
- `if test:` and `a if test else b` over a Python value run the branch the value selects.
- A loop or test over an IR value is data-dependent: refused, with what to write instead.
- `(name := expr)` binds a value inside an expression (how the script names the ops of a TIR
  statement that its one nested expression cannot say).
- A plain Python function (a *macro*) called with IR values (or `self`, or child modules) is
  read by the DSL too (and a `_helper` method of the class called as `self._helper(h)`, with
  `self` the module being built): its body may say everything a `@func` body may (operators on IR values,
  static loops, `getattr(self, name)`), its parameters bound to the call's arguments (defaults,
  `*args` and keywords as Python binds them), its names resolved in its own module.
"""

from __future__ import annotations

import ast
import inspect
import types
from typing import Any

from tilefoundry.api.module import Module
from tilefoundry.dsl.expressions import ExpressionParser
from tilefoundry.dsl.source import PythonScope, Source, read_source
from tilefoundry.dsl.values import Pending, SelfRef, is_value, name_value
from tilefoundry.ir.algebra.view import FunctionView
from tilefoundry.support.caches import CACHES, BoundedMapping

__all__ = ["LOOP_LIMIT", "MACRO_DEPTH", "ControlParser"]

LOOP_LIMIT = 1 << 16
"""The most iterations a static loop unrolls."""

MACRO_DEPTH = 64
"""The deepest a macro expansion nests (a macro that calls itself must stop statically)."""


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


_SOURCES: BoundedMapping[types.CodeType, Source] = CACHES.mapping("dsl macro sources", limit=1024)
"""A macro's syntax tree, read once per code object (bounded, emptied by `clear_caches`: a
module-level dict held every macro's code and tree for good)."""


class ControlParser(ExpressionParser):
    """Static `for` / `if` and macro expansion (the base of `FunctionParser`)."""

    depth = 0

    def block(self, body: list[ast.stmt], effect: bool = True) -> None:
        raise NotImplementedError

    def run_body(self) -> Any:
        raise NotImplementedError

    def nested(self, source: Source, scope: PythonScope) -> ControlParser:
        """A parser for a macro's body that builds into this function."""
        raise NotImplementedError

    # -- loops -----------------------------------------------------------------------------

    def static_for(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node.orelse[0], "a for ... else is not part of the DSL")
        items = self.loop_items(node.iter)
        for item in items:
            self.loop_target(node.target, item)
            try:
                self.block(node.body, effect=False)
            except _Continue:
                continue
            except _Break:
                break

    def loop_items(self, node: ast.expr) -> list[Any]:
        if isinstance(node, ast.Tuple | ast.List):  # `for w in (w1, w2)`: never a tf.Tuple
            items = [self.expr(e) for e in node.elts]
        else:
            iterable = self.expr(node)
            if is_value(iterable):
                raise self.error(
                    node,
                    "a for loop over an IR value is data-dependent, which the DSL does not "
                    "unroll: loop over range(N) or a Python list / tuple (unrolled while the "
                    "function is read), or use a tensor op over the whole value",
                )
            try:
                iterator = iter(iterable)
            except TypeError:
                raise self.error(
                    node, f"a for loop iterates a Python sequence, got {type(iterable).__name__}"
                ) from None
            items = []
            try:
                for item in iterator:
                    items.append(item)
                    if len(items) > LOOP_LIMIT:
                        break
            except Exception as err:  # noqa: BLE001 - the iterable's own refusal
                raise self.error(node, str(err)) from None
        if len(items) > LOOP_LIMIT:
            raise self.error(node, f"a static loop unrolls at most {LOOP_LIMIT} iterations")
        return items

    def loop_target(self, target: ast.expr, item: Any) -> None:
        if isinstance(target, ast.Name):
            self.check_clash(target, target.id)
            self.hidden.pop(target.id, None)
            self.locals[target.id] = item
            return
        if isinstance(target, ast.Tuple | ast.List):
            if is_value(item):
                raise self.error(
                    target, "a loop target unpacks a Python tuple; this item is an IR value"
                )
            try:
                parts = list(item)
            except TypeError:
                raise self.error(target, f"cannot unpack {type(item).__name__}") from None
            if len(parts) != len(target.elts):
                raise self.error(
                    target, f"cannot unpack {len(parts)} values into {len(target.elts)} names"
                )
            for inner, part in zip(target.elts, parts, strict=True):
                self.loop_target(inner, part)
            return
        raise self.error(target, "a loop target is a name or a tuple of names")

    def check_clash(self, target: ast.AST, name: str) -> None:
        if name == "self" or self.symbols.has(name):
            raise self.error(
                target,
                f"name clash: '{name}' names a function or child module of module "
                f"'{self.module}'; assign the value to another name",
            )

    def loop_jump(self, node: ast.Break | ast.Continue) -> None:
        raise _Break() if isinstance(node, ast.Break) else _Continue()

    # -- conditions ------------------------------------------------------------------------

    def condition(self, node: ast.expr, what: str) -> bool:
        test = self.expr(node)
        if is_value(test):
            raise self.error(
                node,
                f"{what} on an IR value is data-dependent, which the DSL does not branch on: "
                "compute both sides and pick with ops.where(condition, a, b); a static "
                "condition is a Python value",
            )
        try:
            return bool(test)
        except Exception as err:  # noqa: BLE001
            raise self.error(node, str(err)) from None

    def static_if(self, node: ast.If) -> None:
        taken = node.body if self.condition(node.test, "an if statement") else node.orelse
        self.block(taken, effect=False)

    def e_IfExp(self, node: ast.IfExp) -> Any:  # noqa: N802
        taken = node.body if self.condition(node.test, "a conditional expression") else node.orelse
        return self.expr(taken)

    def e_NamedExpr(self, node: ast.NamedExpr) -> Any:  # noqa: N802
        """`(name := expr)`: the value, bound to `name` without a statement of its own (in a
        @prim_func, a value inside the statement's expression, used in that statement)."""
        value = self.expr(node.value)
        self.check_clash(node.target, node.target.id)
        self.hidden.pop(node.target.id, None)
        name_value(value, node.target.id)
        self.locals[node.target.id] = value
        return value

    # -- macros ----------------------------------------------------------------------------

    def call(self, node: ast.AST, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        instance = getattr(self.symbols, "instance", None)
        if (
            isinstance(func, types.MethodType)
            and instance is not None
            and func.__self__ is instance
            and isinstance(func.__func__, types.FunctionType)
        ):  # `self._helper(h)`: a method of the class, a macro over `self`
            return self.macro(node, func.__func__, [SelfRef(self.symbols), *args], kwargs)
        if _is_macro(func, args, kwargs):
            return self.macro(node, func, args, kwargs)
        return super().call(node, func, args, kwargs)

    def macro(
        self, node: ast.AST, fn: types.FunctionType, args: list[Any], kwargs: dict[str, Any]
    ) -> Any:
        fn = inspect.unwrap(fn)
        name = fn.__qualname__
        if self.depth >= MACRO_DEPTH:
            raise self.error(
                node,
                f"macro '{name}' expands more than {MACRO_DEPTH} levels deep (a macro that "
                "calls itself stops on a Python condition)",
            )
        source = _SOURCES.get(fn.__code__)
        if source is None:
            try:
                source = read_source(fn, "a macro")
            except TypeError as err:
                raise self.error(node, str(err)) from None
            _SOURCES.set(fn.__code__, source)
        try:
            bound = inspect.signature(fn).bind(*args, **kwargs)
        except TypeError as err:
            raise self.error(node, f"macro '{name}': {err}") from None
        bound.apply_defaults()
        parser = self.nested(source, PythonScope.of(fn, []))
        parser.depth = self.depth + 1
        parser.locals.update(bound.arguments)
        return parser.run_body()


def _dsl_value(value: Any) -> bool:
    if is_value(value) or isinstance(value, SelfRef | Module | Pending | FunctionView):
        return True
    if isinstance(value, list | tuple):
        return any(_dsl_value(v) for v in value)
    if isinstance(value, dict):
        return any(_dsl_value(v) for v in value.values())
    return False


def _is_macro(func: Any, args: list[Any], kwargs: dict[str, Any]) -> bool:
    """A plain Python def of the user's (not the library's) called with DSL values."""
    if not isinstance(func, types.FunctionType) or func.__name__ == "<lambda>":
        return False
    module = getattr(inspect.unwrap(func), "__module__", None) or ""
    if module == "tilefoundry" or module.startswith("tilefoundry."):
        return False
    return any(_dsl_value(a) for a in args) or any(_dsl_value(v) for v in kwargs.values())
