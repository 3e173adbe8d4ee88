"""The op catalogue (`docs/ops.md`, `tf-opt --list-ops`): fresh, complete, and every example
line parses and verifies as a call of its op."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tilefoundry.builtin.types import IRType
from tilefoundry.dialects.tf.op_attr import OpAttr, attr_to_op, op_to_attr
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, op_schemas, register_alias, register_op
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ops import Binary, BinaryKind, ReduceSum
from tilefoundry.tools.generators.dialect_docs import parse_example
from tilefoundry.tools.generators.op_docs import OpEntry, describe_ops, entries, render

LIBRARY = [e for e in entries() if e.where.startswith("tilefoundry.")]
"""The library's entries (other tests register ops of their own in this process)."""

ON_THIS_BRANCH = frozenset(
    {
        "tf.linalg.matmul",
        "tf.linalg.transpose",
        "tf.math.binary",
        "tf.math.cast",
        "tf.math.unary",
        "tf.memory.copy",
        "tf.reduce.max",
        "tf.reduce.sum",
        "tf.shape.split",
        "tf.tuple.get_item",
    }
)
"""The ops that had their docstring fields written with the catalogue: each must keep them. An
op added since is listed, with what it lacks, at the end of docs/ops.md (and in the assertion
below when it is one of these)."""


def test_docs_ops_md_is_fresh() -> None:
    # a process of its own: the registry of this one holds the test ops of other tests
    done = subprocess.run(
        [sys.executable, "-m", "tilefoundry.tools.generators.op_docs", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, f"{done.stderr} (run `make dialects` and commit the result)"


def test_the_catalogue_has_every_registered_op_and_alias() -> None:
    names = {e.name for e in LIBRARY}
    assert ON_THIS_BRANCH <= names
    assert {"tf.math.add", "tf.math.cmp_lt", "tf.math.exp"} <= names  # aliases
    text, markdown = describe_ops(LIBRARY), render(LIBRARY)
    for entry in LIBRARY:
        assert f"\n{entry.name}" in f"\n{text}"
        assert f"### `{entry.name}`" in markdown


def test_every_op_documents_its_fields() -> None:
    """Every op and alias of the library (the zoo's `tf.nn.conv`, `tf.nn.pool`,
    `tf.tensor.topk` included) states its types, FLOPs and example: nothing in `--list-ops` or
    docs/ops.md says "not documented" (issue 22: 15 of 49 did)."""
    missing = {e.name: e.missing for e in LIBRARY if e.missing}
    assert missing == {}, f"every op missing a docstring field: {missing}"
    assert {"tf.nn.conv", "tf.nn.pool", "tf.tensor.topk"} <= {e.name for e in LIBRARY}
    assert "not documented" not in describe_ops(LIBRARY)
    assert "not documented" not in render(LIBRARY)


@pytest.mark.parametrize("entry", [e for e in LIBRARY if e.example], ids=lambda e: e.name)
def test_the_example_is_a_verified_call_of_its_op(entry: OpEntry) -> None:
    assert entry.example is not None
    ops = parse_example(entry.example).ops
    targets = [
        attr_to_op(op.callee)
        for top in ops
        for op in top.walk()  # a TIR example holds its call in a tir.let or tir.evaluate
        if isinstance(op, CallOp) and isinstance(op.callee, OpAttr)
    ]
    if entry.schema.is_alias:
        assert entry.schema.builder() in targets
    else:
        assert entry.schema.op_class in {type(t) for t in targets}
    for op in ops:
        op.verify()


def test_the_facts_come_from_the_op_class() -> None:
    (binary,) = [e for e in LIBRARY if e.name == "tf.math.binary"]
    assert binary.types is not None and "broadcast" in binary.types and "i1" in binary.types
    assert binary.flops == "one per result element."
    assert binary.folds is not None and binary.folds.startswith("yes: `x + 0`")
    (add,) = [e for e in LIBRARY if e.name == "tf.math.add"]
    assert add.builds == "tf.math.binary<kind = add>"
    assert op_to_attr(add.schema.builder()) == op_to_attr(Binary(kind=BinaryKind.ADD))
    (total,) = [e for e in LIBRARY if e.name == "tf.reduce.sum"]
    assert total.schema.op_class is ReduceSum
    assert total.types is not None and total.types.startswith("`axis`")  # from the base class
    assert total.folds is None
    text = describe_ops([total])
    assert "attributes: axis: int, required; keepdims: bool, default false" in text
    assert "inputs: input: Tensor\n" in text


@register_op(dialect="test", category="op_docs", name="undocumented")
class _Undocumented(Op):
    dst = ParamDef(kind="input", pattern=Tensor)
    mode = ParamDef(kind="attribute", annotation=str, default="fast")

    def infer_type(self, *arg_types: IRType) -> IRType:
        return arg_types[0]


@register_alias(dialect="test", category="op_docs", name="needs_mode", params=[_Undocumented.dst])
def _needs_mode(mode: str) -> Op:
    return _Undocumented(mode=mode)


def test_an_op_without_its_fields_gets_a_fallback_and_is_listed() -> None:
    found = entries(op_schemas("test", "op_docs"))
    op, alias = sorted(found, key=lambda e: e.schema.is_alias)
    assert op.missing == ("Types", "FLOPs", "example")
    assert alias.missing == ("example",) and alias.builds is None
    where = f"{__name__}._Undocumented"
    text = describe_ops(found)
    assert f"types: not documented (add a `Types:` paragraph to the docstring of `{where}`)" in text
    assert "flops: not documented (add a `FLOPs:` paragraph" in text and "it counts none" in text
    assert f"example: none (add a ```mlir example to the docstring of `{where}`)" in text
    assert "alias of: an op (its builder takes attributes)" in text
    assert "attributes: mode: str, default fast" in text
    markdown = render(found)
    assert f"- `test.op_docs.undocumented` (`{where}`): Types, FLOPs, example" in markdown


def test_a_declared_effect_of_an_input_is_listed() -> None:
    # `ParamDef(effect=...)` is read where the field exists; set here on a ParamDef of a test op
    schema = next(s for s in op_schemas("test", "op_docs") if not s.is_alias)
    param = schema.params[0]
    absent = object()
    before = getattr(param, "effect", absent)
    try:
        setattr(param, "effect", "write")  # noqa: B010 - a field this branch does not have yet
        assert "inputs: dst: Tensor (write)" in describe_ops(entries([schema]))
    finally:
        if before is absent:
            delattr(param, "effect")
        else:
            setattr(param, "effect", before)  # noqa: B010
