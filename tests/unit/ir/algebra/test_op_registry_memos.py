"""The memos that make building and verifying cheap never change an answer.

- `typeinfer` is remembered by value, keyed by the Op and the argument types: the result type
  of a call depends on nothing else (`infer_type` is a pure function of the Op's attributes
  and the argument types; a registration empties the memo). Equal Ops are of one class with
  the same attributes bit for bit, so `-0.0` and `0.0`, `1` and `True`, two classes of the
  same attributes are different keys; a refusal is never remembered.
- `from_attr` is remembered by the identity of the attribute (weakly: an entry goes with it).
- The verifier remembers, per op definition whose constraints see classes only, the classes
  of a signature that verified (`class_key`), and within one verification the function calls
  whose types fit (`CallSymbolUse`): an IR that breaks a rule after a verdict was remembered is
  still refused, with the message it had before.
"""

from __future__ import annotations

import gc

import pytest
from xdsl.dialects.builtin import IntegerType, SymbolRefAttr, f32
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.utils.exceptions import VerifyException

from tilefoundry import Call, Module, TensorType, Var, VerifyError, ops
from tilefoundry.api.hir import Function
from tilefoundry.builtin.types import _SEEN, from_attr, to_attr
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.algebra import op_registry
from tilefoundry.ir.algebra.op_registry import Op, ParamDef, register_op, typeinfer
from tilefoundry.ir.algebra.patterns import Tensor
from tilefoundry.ir.verify.op_verification import definition_verifier
from tilefoundry.ir.verify.verifier import OpVerifyError, verify_ir
from tilefoundry.support.caches import IdentityMapping

T4 = TensorType((4,), "f32")
T2x4 = TensorType((2, 4), "f32")


@register_op(dialect="test", category="memo", name="scaled")
class Scaled(Op):
    """A test op whose result type depends on an attribute: `rows` rows of the input's row."""

    x = ParamDef(kind="input", pattern=Tensor)
    rows = ParamDef(kind="attribute", annotation=int)
    calls = 0  # how often infer_type ran (a class counter of this test op only)

    def infer_type(self, x: TensorType) -> TensorType:  # type: ignore[override]
        Scaled.calls += 1
        return TensorType((self.rows, *x.shape[1:]), x.dtype)


@register_op(dialect="test", category="memo", name="shifted")
class Shifted(Op):
    """An op of another class with the same attribute, and a float one (`-0.0` vs `0.0`)."""

    x = ParamDef(kind="input", pattern=Tensor)
    rows = ParamDef(kind="attribute", annotation=int)
    by = ParamDef(kind="attribute", annotation=float, default=0.0)

    def infer_type(self, x: TensorType) -> TensorType:  # type: ignore[override]
        rows = self.rows + (1 if str(self.by).startswith("-") else 0)
        return TensorType((rows, *x.shape[1:]), x.dtype)


def test_typeinfer_is_remembered_by_op_and_argument_types() -> None:
    Scaled.calls = 0
    first = typeinfer(Scaled(rows=3), [T2x4])
    again = typeinfer(Scaled(rows=3), [TensorType((2, 4), "f32")])  # equal values, new objects
    assert first == again == TensorType((3, 4), "f32") and Scaled.calls == 1
    # every part of the key tells answers apart: the attributes, the argument types
    assert typeinfer(Scaled(rows=5), [T2x4]) == TensorType((5, 4), "f32")
    assert typeinfer(Scaled(rows=3), [TensorType((2, 7), "f32")]) == TensorType((3, 7), "f32")
    assert typeinfer(Scaled(rows=3), [TensorType((2, 4), "f16")]).dtype == "f16"
    assert Scaled.calls == 4


def test_the_class_and_the_bits_of_an_attribute_are_part_of_the_key() -> None:
    assert typeinfer(Scaled(rows=3), [T2x4]).shape == (3, 4)
    assert typeinfer(Shifted(rows=3), [T2x4]).shape == (3, 4)  # another class, same rows
    assert typeinfer(Shifted(rows=3, by=0.0), [T2x4]).shape == (3, 4)
    assert typeinfer(Shifted(rows=3, by=-0.0), [T2x4]).shape == (4, 4)  # -0.0 is not 0.0
    assert Shifted(rows=3, by=0.0) != Shifted(rows=3, by=-0.0)


def test_a_refusal_is_never_remembered() -> None:
    for _ in range(3):
        with pytest.raises(VerifyError, match="expects 1 argument"):
            typeinfer(Scaled(rows=3), [T2x4, T2x4])
        with pytest.raises(TypeError, match="an IRType"):
            typeinfer(Scaled(rows=3), ["tensor<2x4xf32>"])  # type: ignore[list-item]
    assert not any(len(key) == 3 for key in op_registry._INFERRED.entries if key[0] == Scaled)


def test_a_registration_empties_the_typeinfer_memo() -> None:
    typeinfer(Scaled(rows=3), [T2x4])
    assert len(op_registry._INFERRED)

    @register_op(dialect="test", category="memo", name="probe")
    class Probe(Op):
        pass

    assert not len(op_registry._INFERRED)


def test_an_op_hashes_and_compares_as_its_class_and_attributes() -> None:
    a, b = ops.Binary(kind=ops.BinaryKind.ADD), ops.Binary(kind=ops.BinaryKind.ADD)
    assert a is not b and a == b and hash(a) == hash(b)
    assert hash(a) == hash(a)  # remembered on the instance, the same
    assert a != ops.Binary(kind=ops.BinaryKind.MUL)


def test_from_attr_by_identity_goes_with_its_attribute() -> None:
    kept = BuiltinTensorType(f32, [3, 9])  # the value cache keeps this one
    assert from_attr(kept) == TensorType((3, 9), "f32")
    attr = BuiltinTensorType(f32, [3, 9])  # an equal one, only in the identity memo
    assert from_attr(attr) == TensorType((3, 9), "f32")
    assert _SEEN.get(attr) == TensorType((3, 9), "f32")
    count = len(_SEEN)
    del attr
    gc.collect()
    assert len(_SEEN) == count - 1


def test_an_identity_mapping_never_takes_another_object_for_its_own() -> None:
    mapping: IdentityMapping[int] = IdentityMapping(limit=4)
    kept = [BuiltinTensorType(f32, [i]) for i in range(10)]
    for index, item in enumerate(kept):
        mapping.set(item, index)
        assert len(mapping) <= 4
    assert mapping.get(kept[-1]) == 9
    assert mapping.get(BuiltinTensorType(f32, [9])) is None  # equal, but not the same object


def test_a_remembered_class_signature_still_refuses_a_type_of_another_class() -> None:
    verifier = definition_verifier(CallOp)
    assert verifier is not None and verifier.classes_only
    callee = SymbolRefAttr("g")

    def call(result: object) -> CallOp:
        return CallOp.create(properties={"callee": callee}, result_types=[result])

    shapes = call(BuiltinTensorType(f32, [2])), call(BuiltinTensorType(f32, [3, 5]))
    assert verifier.class_key(shapes[0]) == verifier.class_key(shapes[1])
    assert verifier.class_key(shapes[0]) != verifier.class_key(call(IntegerType(32)))
    key = verifier.class_key(shapes[0])
    assert key is not None
    verifier.class_memo.set(key, True)  # as if verified
    for _ in range(2):
        with pytest.raises(VerifyException, match="Unexpected attribute i32"):
            verifier(call(IntegerType(32)))


def _two_calls() -> Module:
    x = Var("x", T4)
    inner = Function(name="g", params=[x], body=ops.exp(x))
    y = Var("y", T4)
    first = Call(inner, [y])
    outer = Function(name="f", params=[y], body=Call(inner, [first]))
    return Module(name="m", functions=[inner, outer])


def test_verification_still_refuses_calls_after_fitting_ones_were_remembered() -> None:
    """A call of @g whose result type no longer fits, and an op call whose result type is not
    the inferred one, after the same module verified (its verdicts remembered)."""
    module = _two_calls()
    verify_ir(module.module_op)
    verify_ir(module.module_op)
    calls = [op for op in module.module_op.walk() if isinstance(op, CallOp)]
    wrong = to_attr(TensorType((8,), "f32"))
    for call, words in (
        (calls[-1], "does not match @g's result type"),  # the second call of @g
        (calls[0], "does not match the type inferred"),  # g's exp
    ):
        result = call.results[0]
        good = result.type
        result._type = wrong  # type: ignore[attr-defined]
        try:
            messages = set()
            for _ in range(2):
                with pytest.raises(OpVerifyError, match=words) as caught:
                    verify_ir(module.module_op)
                messages.add(str(caught.value))
            assert len(messages) == 1
        finally:
            result._type = good  # type: ignore[attr-defined]
        verify_ir(module.module_op)
