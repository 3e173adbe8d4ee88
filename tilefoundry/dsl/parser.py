"""The function parser: it walks a decorated function's syntax tree and builds the real ops
(one representation: the DSL calls the same constructors as Python code does).

What a body may say (anything else is a `DSLError` at its position):

| Python | IR |
|---|---|
| `h = expr` | `expr` bound to `h` (`BindingMetadata("h")`); in a `@prim_func`, a `LetStmt` |
| `a, b = expr` | `tuple_get_item(expr, 0)` bound to `a`, `... 1` bound to `b` |
| `f(args, loc="name")` | the call, bound to `name` (overrides the assignment's name) |
| `ops.add(a, b)`, `ops.ReduceSum(axis=1)(x)`, `tf.Call(op, [x])` | a call of a registered op |
| `mlp(x)`, `self.mlp(x)`, `layer0.block(x)` | a call of a function of the module tree |
| `a + b`, `a - b`, `a * b`, `a / b`, `a ** b`, `a @ b`, `-a` | `add`, `sub`, `mul`, `div`, `pow`, `matmul`, `neg` |
| `a < b`, `<=`, `>`, `>=`, `==`, `!=` | `cmp_lt`, `cmp_le`, `cmp_gt`, `cmp_ge`, `cmp_eq`, `cmp_ne` |
| a number operand of those operators | a `Constant` of shape `(1,)` with the other side's dtype |
| `(a, b)` of values, `t[0]` of a tuple value | `Tuple`, `tuple_get_item` |
| `return expr` | the function's value |
| `with Mesh("cta") as y:` | a `tf.mesh` over level `cta` (see `_with`) |
| an expression statement (`@prim_func`) | `Evaluate` of an effect-form op |

Every expression op records `SourceSpanMetadata` of its Python source range. Sub-expressions
that use no IR value (`1.0 / 64`, `(1, 0)`, `ops.ReduceSum(axis=1)`) are plain Python.
"""

from __future__ import annotations

import ast
import builtins
import functools
import types
from collections.abc import Callable
from typing import Any, Protocol, cast

from xdsl.dialects.builtin import LocationAttr, SymbolRefAttr, UnknownLoc
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue

from tilefoundry.dialects.tf import CallOp, ConstantOp, TupleOp
from tilefoundry.dialects.tf_mesh import MeshOp
from tilefoundry.dialects.tir import EvaluateOp
from tilefoundry.dialects.tir import YieldOp as TirYieldOp
from tilefoundry.dsl.annotations import ParamType, Tensor
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.source import MISSING, PythonScope, Source
from tilefoundry.hir import Function
from tilefoundry.ir.expr import Expr, ExprOp, Var, collect_expression
from tilefoundry.ir.metadata import (
    BindingMetadata,
    IRMetadata,
    check_metadata,
    location_to_metadata,
    metadata_to_location,
)
from tilefoundry.ir.op_registry import Op
from tilefoundry.ir.patterns import Tensor as TensorPattern
from tilefoundry.ir.view import FunctionView
from tilefoundry.module import Module
from tilefoundry.tir import Evaluate, LetStmt, PrimFunction
from tilefoundry.types import TensorType, UnitType, to_attr

__all__ = [
    "BINARY_OPERATORS",
    "Cycle",
    "Pending",
    "FunctionParser",
    "SelfRef",
    "Symbols",
    "set_metadata",
]

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


class Symbols(Protocol):
    """A module's symbol table as the parser sees it: its functions (each built on demand, so
    that a function defined later in the class resolves too) and its child modules."""

    module: str

    def has(self, name: str) -> bool: ...

    def get(self, name: str) -> Any:
        """The function (a `Function` / `PrimFunction`) or child `Module` named `name`, or
        `MISSING`; raises `Cycle` when the function is being built (recursion)."""


class SelfRef:
    """The value of a `self` parameter: the module under construction (`self.mlp`)."""

    def __init__(self, symbols: Symbols) -> None:
        self.symbols = symbols


class Cycle(Exception):
    """Raised by a symbol table when a function is needed while it is being built."""


class Pending:
    """A function of the module that is being built (a recursive call reaches it): called
    through its symbol, with the result type its return annotation declares."""

    def __init__(self, name: str, result: Any) -> None:
        self.name = name
        self.result = result

    def call(self, args: list[Any]) -> CallOp:
        values = [a.value if isinstance(a, Var) else cast(Operation, a).results[0] for a in args]
        types = [] if isinstance(self.result, UnitType) else [to_attr(self.result)]
        call = CallOp.create(
            operands=values, result_types=types, properties={"callee": SymbolRefAttr(self.name)}
        )
        call._init_metadata(())
        return call


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def _describe(node: ast.AST) -> str:
    names = {
        "If": "an if statement",
        "For": "a for loop",
        "While": "a while loop",
        "Lambda": "a lambda",
        "IfExp": "a conditional expression",
        "ListComp": "a list comprehension",
        "GeneratorExp": "a generator expression",
        "DictComp": "a dict comprehension",
        "AugAssign": "an augmented assignment",
        "Try": "a try statement",
        "Raise": "a raise statement",
        "Assert": "an assert statement",
        "Import": "an import",
        "ImportFrom": "an import",
        "FunctionDef": "a nested def",
        "ClassDef": "a nested class",
        "Global": "a global statement",
        "Nonlocal": "a nonlocal statement",
        "Delete": "a del statement",
        "BoolOp": "and / or",
        "NamedExpr": "the walrus operator",
        "Await": "await",
        "Yield": "yield",
        "Starred": "a starred expression",
        "Dict": "a dict display",
        "Set": "a set display",
    }
    kind = type(node).__name__
    return names.get(kind, f"'{kind}'")


def _is_value(value: object) -> bool:
    return isinstance(value, Expr)


def _fresh(value: object) -> bool:
    """An op the parser has just built (detached, no metadata yet)."""
    return (
        isinstance(value, ExprOp)
        and isinstance(value, Operation)
        and value.parent is None
        and isinstance(value.location, UnknownLoc)
    )


@functools.lru_cache(maxsize=16384)
def _location(items: tuple[IRMetadata, ...]) -> LocationAttr:
    """The location of a metadata tuple: the same for each instance of a class body (the
    spans are its source's), so built once (locations are immutable attributes)."""
    return metadata_to_location(check_metadata(items))


def set_metadata(op: Operation, items: tuple[IRMetadata, ...]) -> None:
    """Store metadata on an op the parser built (its location, and the binding as SSA name)."""
    op.location = _location(items)
    binding = next((m.name for m in items if type(m) is BindingMetadata), None)
    if binding is not None and len(op.results) == 1:
        op.results[0].name_hint = binding if SSAValue.is_valid_name(binding) else None


def _name(value: object, name: str) -> None:
    """Bind a value the body just built to an assignment's name, unless it has a binding."""
    if not (isinstance(value, ExprOp) and isinstance(value, Operation)):
        return
    if value.parent is not None:
        return
    items = location_to_metadata(value.location)
    if any(type(m) is BindingMetadata for m in items):
        return
    set_metadata(value, (BindingMetadata(name), *items))


class FunctionParser:
    """Builds one `hir.func` (`kind="hir"`) or `tir.prim_func` (`kind="tir"`)."""

    def __init__(
        self,
        source: Source,
        scope: PythonScope,
        kind: str,
        symbols: Symbols,
        levels: tuple[str, ...] | None,
    ) -> None:
        self.source = source
        self.scope = scope
        self.kind = kind
        self.symbols = symbols
        self.module = symbols.module
        self.levels = levels
        self.locals: dict[str, Any] = {}
        self.hidden: dict[str, int] = {}
        self.in_annotation = False
        self.statements: list[Operation] = []

    # -- entry points ----------------------------------------------------------------------

    def error(self, node: ast.AST, message: str) -> DSLError:
        return self.source.error(node, message)

    def params(self, given: dict[str, ParamType] | None = None) -> list[Var]:
        """The parameters: each annotated `Tensor[...]` / `ConstTensor[...]` (or given, for a
        variant that leaves out its base's annotations); a first parameter named `self`
        without annotation is the module."""
        tree = self.source.tree
        args = tree.args
        for extra in (args.vararg, args.kwarg):
            if extra is not None:
                raise self.error(extra, "*args / **kwargs parameters are not part of the DSL")
        if args.posonlyargs or args.kwonlyargs:
            raise self.error(
                tree, "positional-only and keyword-only parameters are not part of the DSL"
            )
        if args.defaults:
            raise self.error(args.defaults[0], "a DSL parameter has no default value")
        params: list[Var] = []
        for index, arg in enumerate(args.args):
            if index == 0 and arg.arg == "self" and arg.annotation is None:
                self.locals["self"] = SelfRef(self.symbols)
                continue
            if arg.annotation is None and given is not None and arg.arg in given:
                param = given[arg.arg]
            elif arg.annotation is None:
                raise self.error(
                    arg,
                    f"parameter '{arg.arg}' needs a type: annotate it Tensor[shape, dtype] "
                    "or ConstTensor[shape, dtype]",
                )
            else:
                param = self.annotation(arg.annotation)
            name = param.name or arg.arg
            try:
                var = Var(name, param.type, param.is_const, metadata=[self.source.span(arg)])
            except (TypeError, ValueError) as err:
                raise self.error(arg, str(err)) from None
            if any(p.name == name for p in params):
                raise self.error(arg, f"name clash: two parameters are named '{name}'")
            self.locals[arg.arg] = var
            params.append(var)
        return params

    def annotation(self, node: ast.expr) -> ParamType:
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
        if _is_value(value):
            raise self.error(node, "expected a Python value here, got an IR value")
        return value

    def run_body(self) -> Any:
        """Run the body's statements; the value it returns (None when it returns nothing)."""
        body = [s for s in self.source.tree.body if not _is_docstring(s)]
        try:
            self.block(body)
        except _Return as returned:
            return returned.value
        return None

    def body_value(self, what: str) -> Expr:
        """The value of a @func body (it must return one)."""
        tree = self.source.tree
        result = self.run_body()
        if result is None:
            raise self.error(tree, f"{what} must end with a return statement")
        value = self.as_value(result, tree)
        self.check_returns(value, tree)
        return value

    def build(self, name: str, metadata: tuple[IRMetadata, ...]) -> Function | PrimFunction:
        tree = self.source.tree
        params = self.params()
        if self.kind == "hir":
            result = self.body_value(f"@func '{name}'")
            try:
                return Function(name=name, params=params, body=result, metadata=metadata)
            except Exception as err:  # noqa: BLE001
                raise self.error(tree, str(err)) from None
        result = self.run_body()
        if result is not None:
            result = self.as_value(result, tree)
            self.check_returns(result, tree)
            if not isinstance(result, Var):  # `return a + b`: anchored by a LetStmt first
                label = next(
                    (m.name for m in result.metadata if type(m) is BindingMetadata), "result"
                )
                try:
                    let = LetStmt(label, result)
                except Exception as err:  # noqa: BLE001
                    raise self.error(tree, str(err)) from None
                self.statements.append(let)
                result = let.var
        try:
            return PrimFunction(
                name=name, params=params, body=self.statements, result=result, metadata=metadata
            )
        except Exception as err:  # noqa: BLE001
            raise self.error(tree, str(err)) from None

    def declared_result(self) -> Any:
        """The type the return annotation declares (UnitType for `-> None`), or None."""
        tree = self.source.tree
        if tree.returns is None:
            return None
        if _is_none(tree.returns):
            return UnitType()
        return self.annotation(tree.returns).type

    def check_returns(self, result: Expr, tree: ast.FunctionDef) -> None:
        if tree.returns is None or _is_none(tree.returns):
            return
        declared = self.annotation(tree.returns)
        if result.type != declared.type:
            raise self.error(
                tree.returns,
                f"typeinfer mismatch: the function returns {result.type}, annotated "
                f"{declared.type}",
            )

    def as_value(self, value: Any, node: ast.AST) -> Expr:
        if isinstance(value, Expr):
            return value
        raise self.error(node, f"expected an IR value, got {type(value).__name__} {value!r}")

    # -- statements --------------------------------------------------------------------------

    def block(self, body: list[ast.stmt]) -> None:
        for index, statement in enumerate(body):
            if self.kind == "hir" and isinstance(statement, ast.Expr) and index + 1 == len(body):
                self.effect_body(statement)
            try:
                self.statement(statement)
            except _Return:
                if index + 1 < len(body):
                    raise self.error(
                        body[index + 1], "unreachable statement after return"
                    ) from None
                raise

    def statement(self, node: ast.stmt) -> None:
        if isinstance(node, ast.Assign):
            if len(node.targets) != 1:
                raise self.error(node, "chained assignment (a = b = ...) is not part of the DSL")
            self.assign(node.targets[0], node.value, self.expr(node.value))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            value = self.expr(node.value)
            declared = self.annotation(node.annotation)
            if isinstance(value, Expr) and value.type != declared.type:
                raise self.error(
                    node.annotation,
                    f"typeinfer mismatch: the value is {value.type}, annotated {declared.type}",
                )
            self.assign(node.target, node.value, value)
        elif isinstance(node, ast.Return):
            if node.value is None:
                raise _Return(None)
            raise _Return(self.expr(node.value))
        elif isinstance(node, ast.Expr):
            self.expression_statement(node)
        elif isinstance(node, ast.With):
            self.with_mesh(node)
        elif isinstance(node, ast.Pass):
            return
        else:
            raise self.error(
                node, f"unsupported Python syntax: {_describe(node)} is not part of the DSL"
            )

    def assign(self, target: ast.expr, node: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.bind(target, target.id, value, node)
            return
        if isinstance(target, ast.Tuple | ast.List) and all(
            isinstance(t, ast.Name) for t in target.elts
        ):
            names = [t for t in target.elts if isinstance(t, ast.Name)]
            if not _is_value(value):
                try:
                    items = list(value)
                except TypeError:
                    raise self.error(node, f"cannot unpack {type(value).__name__}") from None
                if len(items) != len(names):
                    raise self.error(
                        node, f"cannot unpack {len(items)} values into {len(names)} names"
                    )
                for name, item in zip(names, items, strict=True):
                    self.bind(name, name.id, item, node)
                return
            for index, name in enumerate(names):
                item = self.call_alias(name, "tuple_get_item", [value], {"index": index})
                self.bind(name, name.id, item, name)
            return
        raise self.error(target, "an assignment target is a name or a tuple of names")

    def bind(self, target: ast.Name, name: str, value: Any, node: ast.AST) -> None:
        if name == "self" or self.symbols.has(name):
            raise self.error(
                target,
                f"name clash: '{name}' names a function or child module of module "
                f"'{self.module}'; assign the value to another name",
            )
        self.hidden.pop(name, None)
        if self.kind == "tir" and _is_value(value):
            try:
                let = LetStmt(name, value, metadata=[self.source.span(target)])
            except Exception as err:  # noqa: BLE001
                raise self.error(node, str(err)) from None
            self.statements.append(let)
            self.locals[name] = let.var
            return
        _name(value, name)
        self.locals[name] = value

    def effect_body(self, node: ast.Expr) -> None:
        """The last statement of an HIR body (or mesh block) may be an effect-form call (one
        with no value): the body is that call (`Function`'s effect body)."""
        value = self.expr(node.value)
        if isinstance(value, Expr) and isinstance(value.type, UnitType):
            raise _Return(value)
        raise self.error(
            node,
            "an expression statement in a @func body has no effect: assign its value to a "
            "name or return it",
        )

    def expression_statement(self, node: ast.Expr) -> None:
        if self.kind == "hir":
            raise self.error(
                node,
                "an expression statement in a @func body has no effect: assign its value to a "
                "name or return it",
            )
        value = self.expr(node.value)
        if not isinstance(value, CallOp) or value.parent is not None:
            raise self.error(node, "an expression statement runs an effect-form op call")
        target = value.target
        if not value.results and not isinstance(target, Op):  # a function with no value
            ops = collect_expression("the statement", value, _given)
            self.statements.append(EvaluateOp.create(regions=[Region(Block([*ops, TirYieldOp()]))]))
            return
        if value.results or not isinstance(target, Op):
            raise self.error(
                node,
                f"an expression statement runs an effect-form op; this call has a value of type "
                f"{value.type} (assign it to a name: a LetStmt)",
            )
        args = list(value.args)
        metadata = value.metadata
        value.erase()
        try:
            self.statements.append(Evaluate(target, args, metadata=metadata))
        except Exception as err:  # noqa: BLE001
            raise self.error(node, str(err)) from None

    def with_mesh(self, node: ast.With) -> None:
        """`with Mesh("cta") as y:` (or `Mesh(topology="cta", loc="y")`): the statements of the
        block form the body of a `tf.mesh` over that level. The block ends with `return e` (the
        mesh yields `e` and the function returns the mesh) or with an assignment `h = e` (the
        mesh yields `e`, and after the block `h` names the mesh). Other names the block assigns
        are not visible after it. `as y` names the mesh value `y` (and binds `y` to it after
        the block); `loc=` names it too."""
        if self.kind != "hir":
            raise self.error(node, "with Mesh(...) is part of @func (HIR) bodies")
        if len(node.items) != 1:
            raise self.error(node, "a with statement names one Mesh(...)")
        item = node.items[0]
        call = item.context_expr
        if not isinstance(call, ast.Call) or self.expr(call.func) is not MeshOp:
            raise self.error(call, "the DSL's with statement is `with Mesh(topology=...)`")
        topology: Any = None
        loc: Any = None
        for index, arg in enumerate(call.args):
            if index > 0:
                raise self.error(arg, "Mesh(...) takes one positional argument, the topology level")
            topology = self.python(arg)
        for keyword in call.keywords:
            if keyword.arg == "topology":
                topology = self.python(keyword.value)
            elif keyword.arg == "loc":
                loc = self.python(keyword.value)
            else:
                raise self.error(keyword, f"Mesh(...) has no parameter '{keyword.arg}'")
        if not isinstance(topology, str) or not topology:
            raise self.error(call, "Mesh(...) names a topology level (a str)")
        if self.levels is not None and topology not in self.levels:
            available = ", ".join(self.levels) or "none"
            raise self.error(
                call,
                f"mesh level '{topology}' is not in the effective hierarchy of module "
                f"'{self.module}' (available: {available})",
            )
        as_name: str | None = None
        if item.optional_vars is not None:
            if not isinstance(item.optional_vars, ast.Name):
                raise self.error(item.optional_vars, "`with Mesh(...) as name` takes one name")
            as_name = item.optional_vars.id
            loc = loc or as_name
        last = node.body[-1]
        outer = dict(self.locals)
        state: dict[str, Any] = {"returned": False, "name": None}

        def body() -> Expr | None:
            try:
                self.block(node.body)
            except _Return as returned:
                state["returned"] = True
                value = self.as_value(returned.value, last)
                return None if isinstance(value.type, UnitType) else value
            if isinstance(last, ast.Assign) and isinstance(last.targets[0], ast.Name):
                state["name"] = last.targets[0].id
                return self.as_value(self.locals[state["name"]], last)
            raise self.error(
                last, "a with Mesh(...) block ends with return or with an assignment (h = ...)"
            )

        inner_names: set[str] = set()
        try:
            mesh = MeshOp(topology, body)
        except DSLError:
            raise
        except Exception as err:  # noqa: BLE001
            raise self.error(call, str(err)) from None
        finally:
            inner_names = set(self.locals) - set(outer)
            self.locals = outer
        items: list[IRMetadata] = []
        name = loc or state["name"]
        if name is not None:
            items.append(BindingMetadata(name))
        set_metadata(mesh, (*items, self.source.span(call)))
        for hidden in inner_names:
            self.hidden[hidden] = node.lineno + self.source.line_offset
        for visible in (state["name"], as_name):
            if visible is not None:
                self.hidden.pop(visible, None)
                self.locals[visible] = mesh
        if state["returned"]:
            raise _Return(mesh)

    # -- expressions ---------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"e_{type(node).__name__}", None)
        if method is None:
            raise self.error(
                node, f"unsupported Python syntax: {_describe(node)} is not part of the DSL"
            )
        value = method(node)
        if _fresh(value):
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
            raise self.error(
                node, f"module '{value.name}' has no function or child module '{attr}'"
            )
        if _is_value(value):
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
                if _is_value(spread) or not isinstance(spread, list | tuple):
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
            if not _fresh(result):
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
                    if not _is_value(arg):
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

        value = self.call(node, getattr(ops, name), args, attrs)
        if _fresh(value):
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
        if not any(_is_value(v) for v in values):
            return None
        if name is None:
            raise self.error(node, f"unsupported operator {type(op).__name__} on IR values")
        expr = next(v for v in values if _is_value(v))
        args = [self.constant_for(n, v, expr) if not _is_value(v) else v for n, v in operands]
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
        if _is_value(operand):
            if isinstance(node.op, ast.USub):
                return self.call_alias(node, "neg", [operand], {})
            if isinstance(node.op, ast.UAdd):
                return operand
            raise self.error(node, f"unsupported operator {type(node.op).__name__} on IR values")
        return self.python_eval(node, lambda: _PY_UNARY[type(node.op)](operand))

    def python_eval(self, node: ast.AST, compute: Callable[[], Any]) -> Any:
        try:
            return compute()
        except KeyError:
            raise self.error(node, f"unsupported Python syntax: {_describe(node)}") from None
        except Exception as err:  # noqa: BLE001
            raise self.error(node, str(err)) from None

    def e_Tuple(self, node: ast.Tuple) -> Any:  # noqa: N802
        items = [self.expr(e) for e in node.elts]
        if not any(_is_value(i) for i in items):
            return tuple(items)
        for element, item in zip(node.elts, items, strict=True):
            if not _is_value(item):
                raise self.error(element, "a tuple of IR values holds IR values only")
        return TupleOp(items)

    def e_List(self, node: ast.List) -> Any:  # noqa: N802
        return [self.expr(e) for e in node.elts]

    def e_Subscript(self, node: ast.Subscript) -> Any:  # noqa: N802
        value = self.expr(node.value)
        index = self.expr(node.slice)
        if self.in_annotation and value is TensorPattern:
            value = Tensor
        if _is_value(value):
            if not isinstance(index, int) or isinstance(index, bool):
                raise self.error(node.slice, "a tuple value is indexed by an int")
            return self.call_alias(node, "tuple_get_item", [value], {"index": index})
        return self.python_eval(node, lambda: value[index])

    def e_JoinedStr(self, node: ast.JoinedStr) -> Any:  # noqa: N802
        parts: list[str] = []
        for part in node.values:
            if isinstance(part, ast.FormattedValue):
                parts.append(format(self.python(part.value)))
            else:
                parts.append(str(self.python(part)))
        return "".join(parts)


def _is_none(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _given(value: SSAValue) -> bool:
    """A value a TIR statement takes from outside (a parameter, an earlier statement's Var)."""
    return not (
        isinstance(value, OpResult)
        and isinstance(value.owner, ExprOp)
        and value.owner.parent is None
    )


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


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
