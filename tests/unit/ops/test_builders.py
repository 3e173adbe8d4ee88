"""One op = one definition: every op of the library defines its reference and docs on its class,
and has a Python builder generated from the registry (`tilefoundry/ops/builders.py`)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import Call, TensorType, Var, ops
from tilefoundry.ir.algebra.op_registry import Op, schemas_defined_in
from tilefoundry.ops import LIBRARY, Slice, Softmax, Transpose
from tilefoundry.tools.generators.op_docs import FIELDS, entries

X = Var("x", TensorType((4, 8), "f32"))


@pytest.mark.parametrize("op_class", LIBRARY, ids=lambda c: c.op_name)
def test_every_op_defines_its_reference_and_has_a_builder(op_class: type[Op]) -> None:
    assert op_class.has_reference()
    assert "reference" in vars(op_class) or any(
        "reference" in vars(base) for base in op_class.__mro__[1:] if base is not Op
    )
    name = op_class.builder_name or op_class.op_name.rsplit(".", 1)[-1]
    builder = ops.BUILDERS[name]
    assert builder is getattr(ops, name)
    assert op_class.op_name in (builder.__doc__ or "")


def test_every_op_documents_every_field() -> None:
    library = entries(schemas_defined_in("tilefoundry.ops"))
    missing = [(e.name, e.missing) for e in library if e.missing]
    assert missing == [], f"fields {FIELDS} missing"


def test_a_builder_takes_the_inputs_then_the_attributes() -> None:
    assert str(inspect.signature(ops.softmax)) == "(input, axis, *, metadata=())"
    assert str(inspect.signature(ops.reduce_sum)) == (
        "(input, axis, keepdims=False, *, metadata=())"
    )
    # a required attribute after a defaulted one: every attribute is keyword-only
    assert str(inspect.signature(ops.slice)) == (
        "(input, *, axis, start=0, stop, step=1, metadata=())"
    )
    call = ops.softmax(X, -1)
    assert isinstance(call, Call) and call.target == Softmax(axis=-1)
    assert ops.slice(X, axis=1, stop=4).target == Slice(axis=1, stop=4)
    assert ops.reduce_sum(X, 1, True).type == TensorType((4, 1), "f32")


def test_a_tuple_attribute_takes_any_iterable() -> None:
    assert ops.transpose(X, range(1, -1, -1)).target == Transpose(perm=(1, 0))
    assert ops.transpose(X, (p for p in (1, 0))).target == Transpose(perm=(1, 0))


def test_a_wrong_call_of_a_builder_names_it() -> None:
    with pytest.raises(TypeError, match=r"softmax\(\): missing a required argument: 'axis'"):
        ops.softmax(X)
    with pytest.raises(TypeError, match=r"slice\(\): too many positional arguments"):
        ops.slice(X, 1, 0, 4)


def test_a_builder_runs_as_its_op() -> None:
    from tilefoundry.api.hir import Function

    data = np.arange(32, dtype=np.float32).reshape(4, 8)
    f = Function(name="f", params=[X], body=ops.reduce_max(ops.softmax(X, axis=-1), axis=0))
    want = np.exp(data - data.max(-1, keepdims=True))
    want = (want / want.sum(-1, keepdims=True)).max(0)
    np.testing.assert_allclose(tf.Module.implicit(f).f(data), want, rtol=1e-6)


def test_a_misspelt_name_gets_the_nearest() -> None:
    import tilefoundry.ops as library

    with pytest.raises(
        AttributeError, match="has no op or builder 'matmull'; did you mean 'matmul'"
    ):
        library.matmull  # noqa: B018
    with pytest.raises(AttributeError, match="did you mean 'reduce_sum'"):
        library.reduce_summ  # noqa: B018
    with pytest.raises(AttributeError, match=r"has no op or builder 'xyzzy'$"):
        library.xyzzy  # noqa: B018
    assert not hasattr(library, "__wrapped__")  # a dunder: plain, for the tools that probe
