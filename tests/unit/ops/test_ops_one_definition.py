"""One op = one definition: the op class is the one place that says what an op is.

An op defined in one file (here, `Roll`, with no other registration than `@register_op`) gets
its builder, its typed signature, its reference run by the interpreter, its docs, its folding,
its canonicalization and its FLOPs; and no module outside `tilefoundry/ops/` keeps a table keyed
by op, an isinstance chain on op classes or a special case by op name.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.ir import SSAValue

import tilefoundry as tf
from tilefoundry import Constant, Module, TensorType, Var, VerifyError
from tilefoundry import ops as library
from tilefoundry.api.hir import Function
from tilefoundry.builtin.types import IRType
from tilefoundry.dialects.tf.ops import CallOp, defining_call
from tilefoundry.ir.algebra.op_registry import (
    Op,
    ParamDef,
    op_schemas,
    register_op,
    typeinfer,
)
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ops.builders import builders_of
from tilefoundry.ops.folding import elements
from tilefoundry.tools.generators import op_stubs
from tilefoundry.tools.generators.op_docs import describe_ops, entries

ROOT = Path(__file__).resolve().parents[3]


@register_op(dialect="test", category="onedef", name="roll")
class Roll(Op):
    """Rotates a vector: result element `i` is input element `(i - shift) mod n`.

    Types: the input is a rank-1 tensor; the result has its type.

    FLOPs: one per element (counted, for the test's sake).

    ```mlir
    %r = tf.call test.onedef.roll<shift = 1>(%a) : (tensor<4xf32>) -> tensor<4xf32>
    ```
    """

    input = ParamDef(kind="input", pattern=Tensor)
    shift = ParamDef(kind="attribute", annotation=int)

    def infer_type(self, *arg_types: IRType) -> IRType:
        (x,) = arg_types
        if not isinstance(x, TensorType) or x.rank != 1:
            raise ValueError(f"expects a rank-1 tensor, got {x}")
        return x

    def fold(self, args: Sequence[SSAValue], result: IRType) -> SSAValue | None:
        """A shift by a multiple of the length is the value."""
        assert isinstance(result, TensorType)
        n = result.shape[0]
        return args[0] if isinstance(n, int) and self.shift % n == 0 else None

    def canonicalize(
        self, args: Sequence[SSAValue], result: IRType
    ) -> tuple[Op, Sequence[SSAValue]] | None:
        """Two rolls in a row are one, by the sum of the shifts."""
        inner = defining_call(args[0])
        if inner is None or not isinstance(first := inner[0], Roll):
            return None
        return Roll(shift=first.shift + self.shift), (inner[1].args_[0],)

    def flops(self, arg_types: Sequence[IRType], result: IRType) -> int:
        return elements(result)

    def reference(self, *arrays: Any) -> Any:
        return np.roll(arrays[0], self.shift)


V = TensorType((4,), "f32")


def _module(body: object, *params: Var) -> Module:
    f = Function(name="f", params=list(params), body=body)  # type: ignore[arg-type]
    return Module(name="m", functions=[f])


def _body_ops(module: Module) -> list[str]:
    return [op.name for op in module.lookup("f").function_op.body.block.ops]


def test_its_params_and_types_are_its_class() -> None:
    assert [p.name for p in Roll.params()] == ["input", "shift"]
    assert typeinfer(Roll(shift=1), [V]) == V
    with pytest.raises(VerifyError, match="test.onedef.roll: expects a rank-1 tensor"):
        typeinfer(Roll(shift=1), [TensorType((2, 2), "f32")])
    with pytest.raises(TypeError, match="attribute 'shift' expects an int"):
        Roll(shift="one")


def test_it_gets_a_builder_and_a_typed_signature() -> None:
    roll = builders_of(__name__)["roll"]
    x = Var("x", V)
    call = roll(x, 2)
    assert isinstance(call, CallOp) and call.target == Roll(shift=2)
    assert roll(x, shift=2).target == Roll(shift=2)
    stub = op_stubs.render(__name__)
    assert "def roll(input: Expr, shift: int, *, metadata: Iterable[IRMetadata] = ...)" in stub
    assert '"Roll",' in stub and f"from {__name__} import Roll" in stub


def test_the_interpreter_runs_its_reference() -> None:
    x = Var("x", V)
    got = _module(library.call_surface("test", "onedef", "roll", x, shift=1), x).f(
        np.float32([1, 2, 3, 4])
    )
    np.testing.assert_array_equal(got, np.float32([4, 1, 2, 3]))


def test_it_documents_itself() -> None:
    (entry,) = entries(op_schemas("test", "onedef", "roll"))
    assert entry.summary.startswith("Rotates a vector")
    assert entry.types == "the input is a rank-1 tensor; the result has its type."
    assert entry.flops == "one per element (counted, for the test's sake)."
    assert entry.folds == "yes: A shift by a multiple of the length is the value."
    assert entry.canonicalizes == "yes: Two rolls in a row are one, by the sum of the shifts."
    assert entry.missing == ()
    assert "test.onedef.roll (Roll)" in describe_ops([entry])


def test_its_fold_and_canonicalization_apply() -> None:
    x = Var("x", V)
    folded = tf.run_passes(_module(tf.Call(Roll(shift=8), [x]), x), "canonicalize")
    assert _body_ops(folded) == ["hir.return"]
    for passes in ("canonicalize", "tf-simplify"):
        x = Var("x", V)
        twice = tf.Call(Roll(shift=2), [tf.Call(Roll(shift=1), [x])])
        simpler = tf.run_passes(_module(twice, x), passes)
        calls = [
            op.target
            for op in simpler.lookup("f").function_op.body.block.ops
            if isinstance(op, CallOp)
        ]
        assert calls == [Roll(shift=3)], passes
        np.testing.assert_array_equal(simpler.f(np.float32([1, 2, 3, 4])), [2, 3, 4, 1])
    # on a literal it folds to the literal its reference computes
    literal = tf.run_passes(
        _module(tf.Call(Roll(shift=1), [Constant(np.int32([1, 2, 3, 4]))])), "canonicalize"
    )
    assert _body_ops(literal) == ["tf.constant", "hir.return"]
    np.testing.assert_array_equal(literal.f(), [4, 1, 2, 3])


def test_its_flops_are_counted() -> None:
    x = Var("x", V)
    f = Function(name="f", params=[x], body=tf.Call(Roll(shift=1), [x]))
    cost = tf.analyze(Module(name="m", functions=[f], target="h100"))
    assert cost["f"].self_flops == 4


# -- no op-keyed table elsewhere ---------------------------------------------------------------


def _op_vocabulary() -> tuple[set[str], set[str], set[str]]:
    """The op classes' names, the enums of their attributes, and the registered op names."""
    classes = {c.__name__ for c in library.LIBRARY}
    kinds = {
        p.annotation.__name__
        for c in library.LIBRARY
        for p in c.attribute_params()
        if isinstance(p.annotation, type) and issubclass(p.annotation, enum.Enum)
    }
    names = {s.full_name for s in op_schemas() if s.builder.__module__.startswith("tilefoundry.")}
    return classes, kinds, names


def _names_an_op(node: ast.AST, vocabulary: tuple[set[str], set[str], set[str]]) -> bool:
    """Whether an expression names an op: its class (`Binary`, `ops.Binary`, `Binary(...)`), a
    kind of it (`BinaryKind.ADD`), its IR name or its class's name as a string."""
    classes, kinds, names = vocabulary
    if isinstance(node, ast.Name):
        return node.id in classes
    if isinstance(node, ast.Attribute):
        base = node.value
        base_name = base.id if isinstance(base, ast.Name) else getattr(base, "attr", "")
        return node.attr in classes or base_name in kinds
    if isinstance(node, ast.Call):
        return _names_an_op(node.func, vocabulary)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value in names or node.value in classes
    if isinstance(node, ast.Tuple | ast.Set | ast.List):
        return any(_names_an_op(e, vocabulary) for e in node.elts)
    return False


def op_keyed_code(source: str, vocabulary: tuple[set[str], set[str], set[str]]) -> list[str]:
    """The places of a module that decide by op: `isinstance(x, OpClass)`, a dict keyed by op
    class, kind or name, a comparison with one (`op.name == "tf.math.binary"`), a `case
    OpClass(...)`."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("isinstance", "issubclass")
            and len(node.args) == 2
            and _names_an_op(node.args[1], vocabulary)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.Dict) and any(
            k is not None and _names_an_op(k, vocabulary) for k in node.keys
        ):
            found.append(f"{node.lineno}: a dict keyed by op")
        elif isinstance(node, ast.Compare) and any(
            _names_an_op(c, vocabulary) for c in (node.left, *node.comparators)
        ):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.MatchClass) and _names_an_op(node.cls, vocabulary):
            found.append(f"{node.lineno}: case {ast.unparse(node)}")
    return found


def test_no_module_outside_the_definitions_decides_by_op() -> None:
    vocabulary = _op_vocabulary()
    package = ROOT / "tilefoundry"
    found = {
        str(path.relative_to(ROOT)): hits
        for path in sorted(package.rglob("*.py"))
        if path.parent != package / "ops"
        and (hits := op_keyed_code(path.read_text(encoding="utf-8"), vocabulary))
    }
    assert found == {}, (
        "a piece of an op outside its class (put it on the op class: a method or a class "
        f"attribute; the torch mapping's rows are values, not keys): {found}"
    )


@pytest.mark.parametrize(
    "source",
    [
        "if isinstance(target, Binary): pass",
        "if isinstance(target, (ops.Unary, ops.MatMul)): pass",
        "SYMBOLS = {BinaryKind.ADD: '+'}",
        "RULES = {Transpose: compose}",
        "if call.callee_name == 'tf.linalg.transpose': pass",
        "if type(op).__name__ == 'Softmax': pass",
        "match op:\n    case Binary(): pass",
    ],
)
def test_the_scan_finds_code_that_decides_by_op(source: str) -> None:
    assert op_keyed_code(source, _op_vocabulary()), source


def test_the_scan_leaves_code_that_only_builds_ops() -> None:
    source = (
        "y = em.call(ops.Binary(kind=ops.BinaryKind.ADD), a, b)\nATEN = {'aten.add': arith(ADD)}"
    )
    assert op_keyed_code(source, _op_vocabulary()) == []


def test_builders_of_a_library_refuse_two_of_one_name() -> None:
    def make(name: str) -> type[Op]:
        namespace = {"__module__": "onedef_dupes", "builder_name": "same"}
        namespace["input"] = ParamDef(kind="input", pattern=Tensor)
        klass = type(name, (Op,), namespace)
        return register_op(dialect="test", category="onedefdupes", name=name.lower())(klass)

    make("First")
    assert list(builders_of("onedef_dupes")) == ["same"]
    make("Second")
    with pytest.raises(ValueError, match="two builders of the op library are named 'same'"):
        builders_of("onedef_dupes")


def test_an_op_is_spelt_by_the_alias_that_builds_it() -> None:
    assert library.alias_of(library.Binary(kind=library.BinaryKind.ADD)) == "add"
    assert library.alias_of(library.Unary(kind=library.UnaryKind.EXP)) == "exp"
    assert library.alias_of(library.Softmax(axis=-1)) is None
    assert library.builder_name_of(library.ReduceSum) == "reduce_sum"
    assert library.builder_name_of(library.MatMul) == "matmul"
