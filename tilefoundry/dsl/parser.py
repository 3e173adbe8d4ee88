"""The function parser: it walks a decorated function's syntax tree and builds the real ops
(one representation: the DSL calls the same constructors as Python code does).

What a body may say (anything else is a `DSLError` at its position):

| Python | IR |
|---|---|
| `h = expr` | `expr` bound to `h` (`BindingMetadata("h")`); in a `@prim_func`, a `LetStmt` |
| `h += x` (any of the operators below) | `h = h + x`: a new value, bound to `h` |
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
| `for x in <Python value>:`, `if <Python value>:`, a macro call | run while the function is read (`tilefoundry.dsl.control`) |

Every expression op records `SourceSpanMetadata` of its Python source range. Sub-expressions
that use no IR value (`1.0 / 64`, `(1, 0)`, `ops.ReduceSum(axis=1)`) are plain Python.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, cast

from xdsl.ir import Block, BlockArgument, Operation, OpResult, Region, SSAValue

from tilefoundry.api.hir import Function
from tilefoundry.api.tir import Evaluate, LetStmt, PrimFunction
from tilefoundry.builtin.metadata import BindingMetadata, IRMetadata, metadata_to_location
from tilefoundry.builtin.types import UnitType
from tilefoundry.dialects.function import signature_properties
from tilefoundry.dialects.hir import FuncOp
from tilefoundry.dialects.hir import ReturnOp as HirReturnOp
from tilefoundry.dialects.tf.mesh import MeshOp
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.dialects.tir import EvaluateOp
from tilefoundry.dialects.tir import YieldOp as TirYieldOp
from tilefoundry.dsl.annotations import ParamType
from tilefoundry.dsl.control import ControlParser
from tilefoundry.dsl.errors import DSLError
from tilefoundry.dsl.expressions import BINARY_OPERATORS
from tilefoundry.dsl.source import PythonScope, Source
from tilefoundry.dsl.values import (
    Cycle,
    Pending,
    Return,
    SelfRef,
    Symbols,
    describe,
    is_value,
    name_value,
    set_metadata,
    span_location,
)
from tilefoundry.ir.algebra.expr import (
    Expr,
    ExprOp,
    Var,
    adopt_params,
    building,
    check_new_params,
    collect_expression,
)
from tilefoundry.ir.algebra.op_registry import Op

__all__ = [
    "BINARY_OPERATORS",
    "Cycle",
    "FunctionParser",
    "Pending",
    "SelfRef",
    "Symbols",
    "set_metadata",
]


class FunctionParser(ControlParser):
    """Builds one `hir.func` (`kind="hir"`) or `tir.prim_func` (`kind="tir"`)."""

    def __init__(
        self,
        source: Source,
        scope: PythonScope,
        kind: str,
        symbols: Symbols,
        levels: tuple[str, ...] | None,
    ) -> None:
        super().__init__(source, scope, symbols)
        self.kind = kind
        self.levels = levels
        self.statements: list[Operation] = []
        self.built = _Built()

    # -- entry points ----------------------------------------------------------------------

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
        names: set[str] = set()
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
                var = Var(name, param.type, param.is_const)
            except (TypeError, ValueError) as err:
                raise self.error(arg, str(err)) from None
            # its span, as `Var(..., metadata=(span,))` stores it (the location), remembered
            cast(BlockArgument, var.value).location = span_location(self.source.span(arg))
            if name in names:
                raise self.error(arg, f"name clash: two parameters are named '{name}'")
            names.add(name)
            self.locals[arg.arg] = var
            params.append(var)
        return params

    def run_body(self) -> Any:
        """Run the body's statements; the value it returns (None when it returns nothing)."""
        body = [s for s in self.source.tree.body if not _is_docstring(s)]
        try:
            self.block(body)
        except Return as returned:
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
            with building() as built:
                returned = self.run_body()
            if returned is None and tree.returns is not None and _is_none(tree.returns):
                return self.unit_function(name, params, built, metadata)
            if returned is None:
                raise self.error(tree, f"@func '{name}' must end with a return statement")
            result = self.as_value(returned, tree)
            self.check_returns(result, tree)
            try:
                function = Function(name=name, params=params, body=result, metadata=metadata)
            except Exception as err:  # noqa: BLE001
                raise self.source.refusal(tree, str(err)) from None
            arrange(function.function_op.body.block, built)
            return function
        with building() as built:
            self.built.ops = built
            result = self.run_body()
            if result is not None:
                result = self.tir_result(result, tree)
        try:
            return PrimFunction(
                name=name, params=params, body=self.statements, result=result, metadata=metadata
            )
        except Exception as err:  # noqa: BLE001
            raise self.source.refusal(tree, str(err)) from None

    def unit_function(
        self,
        name: str,
        params: list[Var],
        built: list[Operation],
        metadata: tuple[IRMetadata, ...],
    ) -> Function:
        """A `-> None` @func that returns nothing (`return None`, or no return): its body is
        the ops its statements built, in order, and it has no value."""
        tree = self.source.tree
        try:
            check_new_params(name, params)
            block = adopt_params(params)
            for op in built:
                if isinstance(op, ExprOp) and op.parent is None:
                    block.add_op(op)
            block.add_op(HirReturnOp())
            names, consts = [p.name for p in params], [p.is_const for p in params]
            properties = signature_properties(name, names, consts, block.arg_types, [])
            op = FuncOp.create(properties=properties, regions=[Region(block)])
            op.location = metadata_to_location(metadata)
        except Exception as err:  # noqa: BLE001
            raise self.source.refusal(tree, str(err)) from None
        return Function.of(op)

    def add_statement(self, statement: Operation) -> None:
        """Append a TIR statement; its body gets the ops built since the last statement, in
        the order they were built (the unused ones too: see `arrange`)."""
        built = self.built
        recent = [o for o in built.ops[built.mark :] if o not in built.discarded]
        built.mark = len(built.ops)
        arrange(statement.regions[0].block, recent)
        self.statements.append(statement)

    def tir_result(self, result: Any, tree: ast.FunctionDef) -> Any:
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
                    raise self.source.refusal(tree, str(err)) from None
                self.add_statement(let)
                result = let.var
        return result

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

    def nested(self, source: Source, scope: PythonScope) -> FunctionParser:
        parser = FunctionParser(source, scope, self.kind, self.symbols, self.levels)
        parser.statements = self.statements  # a macro's LetStmts are the function's
        parser.built = self.built
        return parser

    def block(self, body: list[ast.stmt], effect: bool = True) -> None:
        for index, statement in enumerate(body):
            last = index + 1 == len(body)
            if effect and self.kind == "hir" and isinstance(statement, ast.Expr) and last:
                self.effect_body(statement)
                continue
            try:
                self.statement(statement)
            except Return:
                if not last and not isinstance(statement, ast.If | ast.For):
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
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            # `h += x` is `h = h + x`: a new value, bound to `h` again
            load = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
            value = ast.copy_location(ast.BinOp(load, node.op, node.value), node)
            self.assign(node.target, value, self.expr(value))
        elif isinstance(node, ast.Return):
            if node.value is None:
                raise Return(None)
            raise Return(self.expr(node.value))
        elif isinstance(node, ast.Expr):
            self.expression_statement(node)
        elif isinstance(node, ast.With):
            self.with_mesh(node)
        elif isinstance(node, ast.For):
            self.static_for(node)
        elif isinstance(node, ast.If):
            self.static_if(node)
        elif isinstance(node, ast.Break | ast.Continue):
            self.loop_jump(node)
        elif isinstance(node, ast.While):
            raise self.error(
                node,
                "a while loop is not part of the DSL: write a static loop, for i in range(N) "
                "(unrolled while the function is read)",
            )
        elif isinstance(node, ast.Pass):
            return
        else:
            raise self.error(
                node, f"unsupported Python syntax: {describe(node)} is not part of the DSL"
            )

    def assign(self, target: ast.expr, node: ast.expr, value: Any) -> None:
        if isinstance(target, ast.Name):
            self.bind(target, target.id, value, node)
            return
        if isinstance(target, ast.Tuple | ast.List) and all(
            isinstance(t, ast.Name) for t in target.elts
        ):
            names = [t for t in target.elts if isinstance(t, ast.Name)]
            if not is_value(value):
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
        self.check_clash(target, name)
        self.hidden.pop(name, None)
        if self.kind == "tir" and is_value(value):
            try:
                let = LetStmt(name, value, metadata=[self.source.span(target)])
            except Exception as err:  # noqa: BLE001
                raise self.error(node, str(err)) from None
            self.add_statement(let)
            self.locals[name] = let.var
            return
        name_value(value, name)
        self.locals[name] = value

    def effect_body(self, node: ast.Expr) -> None:
        """The last statement of an HIR body (or mesh block) may be an effect-form call (one
        with no value): the body is that call (`Function`'s effect body)."""
        value = self.expr(node.value)
        if isinstance(value, Expr) and isinstance(value.type, UnitType):
            raise Return(value)
        self.check_no_value(node, value)

    def check_no_value(self, node: ast.Expr, value: Any) -> None:
        """An HIR expression statement is a Python call for its effect (`log.append(...)`);
        one with an IR value has no effect."""
        if is_value(value):
            raise self.error(
                node,
                "an expression statement in a @func body has no effect: assign its value to a "
                "name or return it",
            )

    def expression_statement(self, node: ast.Expr) -> None:
        if self.kind == "hir":
            value = self.expr(node.value)
            if isinstance(value, CallOp) and value.parent is None and not value.results:
                return  # an effect call: the body holds it where it was built
            self.check_no_value(node, value)
            return
        value = self.expr(node.value)
        if not is_value(value):  # a Python call for its effect
            return
        if not isinstance(value, CallOp) or value.parent is not None:
            raise self.error(node, "an expression statement runs an effect-form op call")
        target = value.target
        if not value.results and not isinstance(target, Op):  # a function with no value
            ops = collect_expression("the statement", value, _given)
            self.add_statement(EvaluateOp.create(regions=[Region(Block([*ops, TirYieldOp()]))]))
            return
        if value.results or not isinstance(target, Op):
            raise self.error(
                node,
                f"an expression statement runs an effect-form op; this call has a value of type "
                f"{value.type} (assign it to a name: a LetStmt)",
            )
        args = list(value.args)
        metadata = value.metadata
        self.built.discarded.add(value)
        value.erase()
        try:
            self.add_statement(Evaluate(target, args, metadata=metadata))
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
            except Return as returned:
                state["returned"] = True
                value = self.as_value(returned.value, last)
                return None if isinstance(value.type, UnitType) else value
            if isinstance(last, ast.Assign) and isinstance(last.targets[0], ast.Name):
                state["name"] = last.targets[0].id
                return self.as_value(self.locals[state["name"]], last)
            if isinstance(last, ast.Pass | ast.Expr):  # a mesh with no value
                return None
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
            raise Return(mesh)


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


@dataclass
class _Built:
    """The ops a TIR body has built (its `building()` scope), how many of them the statements
    made so far hold, and the ops it built and then dropped (an effect call rebuilt by
    `Evaluate`)."""

    ops: list[Operation] = field(default_factory=list)
    mark: int = 0
    discarded: set[Operation] = field(default_factory=set)


def arrange(block: Block, built: list[Operation]) -> None:
    """Give an HIR body the ops its statements built, in the order they built them: the ops
    its value uses and the values assigned but not used, as a mesh body holds them (so that the
    body is what the source says, and any body's text has a spelling)."""
    terminator = block.last_op
    present = [op for op in block.ops if op is not terminator]
    wanted = [
        op
        for op in built
        if op is not terminator
        and isinstance(op, ExprOp)
        and (op.parent is block or (op.parent is None and op not in present))
    ]
    if wanted == present or not set(present) <= set(wanted) or terminator is None:
        return
    for op in present:
        block.detach_op(op)
    for op in wanted:
        block.insert_op_before(op, terminator)
