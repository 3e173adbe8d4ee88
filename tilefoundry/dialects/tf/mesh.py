"""`tf.mesh`: a lexical mesh binding inside a function body.

The ops of its body run over one level of the execution domain's effective topology hierarchy
(the `with Mesh(topology="cta", ...)` of the DSL); the level must be one the enclosing module
resolves through its owners. A module whose owner chain declares no hierarchy at all (a layer
prototype, before it is placed) is checked when it is placed under one that does. Its body holds
expressions, as a function body does, and its value is what `tf.yield` yields (nothing for an
effect-only body). Meshes nest as the hierarchy orders its levels, outer to inner: a mesh inside
another names a finer level than the one around it.

```python
y = Mesh("cta", lambda: ops.add(ops.exp(x), x))   # the ops built in the lambda form the body
```
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    opt_result_def,
    prop_def,
    region_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent, IsTerminator, Pure, RecursiveMemoryEffect

from tilefoundry.builtin.metadata import IRMetadata
from tilefoundry.builtin.types import VALUE_TYPES
from tilefoundry.dialects.function import check_body_ops
from tilefoundry.dialects.syntax import ValuesTerminator, with_attributes
from tilefoundry.dialects.tf.module import ModuleOp, declared_in_chain
from tilefoundry.ir.algebra.expr import Expr, ExprOp, building, expr_value
from tilefoundry.ir.traits import Expression
from tilefoundry.ir.verify.op_verification import op_definition
from tilefoundry.ir.verify.verifier import OpVerifyError
from tilefoundry.support.arguments import shown
from tilefoundry.support.diagnostics import VerifyError

__all__ = ["MeshOp", "YieldOp", "check_meshes"]


@op_definition
class MeshOp(ExprOp, IRDLOperation):
    """A region whose ops run over one effective topology level (`Mesh` in the spec).

    ```mlir
    %y = tf.mesh "cta" {
      %h = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
      tf.yield %h : tensor<4xf32>
    } : tensor<4xf32>
    ```
    """

    name = "tf.mesh"

    topology = prop_def(StringAttr)
    body = region_def("single_block")
    res = opt_result_def(VALUE_TYPES)

    traits = traits_def(Expression(), RecursiveMemoryEffect())

    def __init__(
        self,
        topology: str,
        body: Callable[[], Expr | None] | Expr | None = None,
        *,
        metadata: Iterable[IRMetadata] = (),
    ) -> None:
        if not isinstance(topology, str) or not topology:
            raise TypeError(f"Mesh topology must be a level name, got {shown(topology)}")
        if body is None:
            raise TypeError(
                f'Mesh("{topology}") needs a body: `with Mesh(...)` is DSL syntax, inside a '
                f'@tf.func body (docs/dsl.md); in Python, pass one: Mesh("{topology}", lambda: ...)'
            )
        if callable(body) and not isinstance(body, Expr):
            with building() as built:
                result = body()
        else:
            result, built = body, []
        inner = [op for op in built if op.parent is None]
        value: list[SSAValue] = [] if result is None else [expr_value(result, "the mesh body")]
        block = Block(inner)
        block.add_op(YieldOp(*value))
        super().__init__(
            properties={"topology": StringAttr(topology)},
            regions=[Region(block)],
            result_types=[[v.type for v in value]],
        )
        self._init_metadata(metadata)

    def verify_(self) -> None:
        self.verify_metadata()
        check_body_ops(self.body.block, f"mesh '{self.topology.data}'", YieldOp)
        terminator = self.body.block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyError("body must end with tf.yield")
        if tuple(terminator.values.types) != tuple(self.result_types):
            raise VerifyError(
                f"yields ({', '.join(str(t) for t in terminator.values.types)}) but the mesh "
                f"has type ({', '.join(str(t) for t in self.result_types)})"
            )

    @classmethod
    def parse(cls, parser: Parser) -> MeshOp:
        topology = StringAttr(parser.parse_str_literal(" (the topology level of the mesh)"))
        attributes = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region()
        result_types: list[Attribute] = []
        if parser.parse_optional_punctuation(":") is not None:
            result_types.append(parser.parse_type())
        op = cls.create(
            properties={"topology": topology}, regions=[body], result_types=result_types
        )
        return with_attributes(op, attributes)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.topology.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)
        if self.res is not None:
            printer.print_string(" : ")
            printer.print_attribute(self.res.type)


def check_meshes(function: Operation, meshes: Sequence[MeshOp] | None = None) -> None:
    """The meshes of a function's body, at any depth, each reported at the mesh: a mesh names
    an effective topology level of the function's module, and meshes nest outer to inner. The
    function checks them in one walk down its body (a mesh never reaches up its owner chain),
    or, given `meshes` (every mesh under the function, in the order of `Operation.walk`: what
    the caller's own walk found), those; nothing is checked until a module of the chain
    declares a hierarchy."""
    module = function.parent_op()
    if not isinstance(module, ModuleOp):
        return
    levels = declared_in_chain(module)
    if levels is None:  # nothing declared yet: checked once an owner declares a hierarchy
        return
    names = [t.name for t in levels]
    if meshes is not None:
        for mesh in meshes:
            _check_level(mesh, _outer_mesh(mesh, function), module, names)
        return
    pending: list[tuple[Operation, MeshOp | None]] = [(function, None)]
    while pending:
        op, outer = pending.pop()
        if isinstance(op, MeshOp):
            _check_level(op, outer, module, names)
            outer = op
        children = [c for region in op.regions for b in region.blocks for c in b.ops if c.regions]
        pending.extend((child, outer) for child in reversed(children))


def _outer_mesh(mesh: MeshOp, function: Operation) -> MeshOp | None:
    """The mesh nearest around `mesh` inside `function` (None when there is none)."""
    node = mesh.parent_op()
    while node is not None and node is not function:
        if isinstance(node, MeshOp):
            return node
        node = node.parent_op()
    return None


def _check_level(mesh: MeshOp, outer: MeshOp | None, module: ModuleOp, names: list[str]) -> None:
    level = mesh.topology.data
    if level not in names:
        available = ", ".join(names) or "none"
        raise OpVerifyError(
            mesh,
            f"mesh names topology level '{level}', which is not an effective level of module "
            f"'{module.own_name}' (available: {available})",
        )
    if outer is not None and outer.topology.data in names:
        if names.index(level) <= names.index(outer.topology.data):
            raise OpVerifyError(
                mesh,
                f"mesh over '{level}' cannot be nested in a mesh over "
                f"'{outer.topology.data}'; meshes nest outer to inner: {', '.join(names)}",
            )


@op_definition
class YieldOp(ValuesTerminator):
    """Ends a `tf.mesh` body with its value.

    ```mlir
    tf.yield %h : tensor<4xf32>
    ```
    """

    name = "tf.yield"

    traits = traits_def(IsTerminator(), Pure(), HasParent(MeshOp))
