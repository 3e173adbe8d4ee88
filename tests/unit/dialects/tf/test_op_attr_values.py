"""An Op instance is a value: immutable, equal and hashing by class and attributes, its own copy,
pickled as its class and attributes (a singleton stays the singleton)."""

from __future__ import annotations

import copy
import pickle

import pytest

from tilefoundry import Call, TensorType, Var
from tilefoundry.dialects.tf.op_attr import attr_to_op
from tilefoundry.ops import Binary, BinaryKind, MatMul, ReduceSum

T = TensorType((2, 3), "f32")


def test_assigning_an_attribute_is_refused_and_changes_nothing() -> None:
    r = ReduceSum(axis=1)
    x = Var("x", T)
    call = Call(r, [x])
    with pytest.raises(AttributeError) as refused:
        r.axis = 0  # type: ignore[misc]
    assert str(refused.value) == (
        "cannot assign attribute 'axis' of ReduceSum(axis=1, keepdims=False): an Op is an "
        "immutable value; build another (ReduceSum(...) with the attributes you want)"
    )
    assert r.axis == 1 and r == ReduceSum(axis=1)
    assert attr_to_op(call.callee) == ReduceSum(axis=1)  # what the call runs: the same axis
    with pytest.raises(AttributeError, match="cannot delete attribute 'axis'"):
        del r.axis
    with pytest.raises(AttributeError, match="cannot assign attribute '_attrs'"):
        r._attrs = {"axis": 0}  # type: ignore[misc]
    assert r.attrs == {"axis": 1, "keepdims": False}


def test_a_singleton_takes_no_attribute() -> None:
    with pytest.raises(AttributeError, match="cannot assign attribute 'tag' of MatMul"):
        MatMul().tag = "mine"  # type: ignore[attr-defined]
    assert not hasattr(MatMul(), "tag")
    assert MatMul() is MatMul()


def test_equal_and_hashing_by_value() -> None:
    assert ReduceSum(axis=1) == ReduceSum(axis=1) and ReduceSum(axis=1) is not ReduceSum(axis=1)
    assert ReduceSum(axis=1) != ReduceSum(axis=0)
    assert Binary(kind=BinaryKind.ADD) == Binary(kind="add")
    assert len({ReduceSum(axis=1), ReduceSum(axis=1), ReduceSum(axis=0), MatMul()}) == 3


def test_copies_and_pickles() -> None:
    r = ReduceSum(axis=1, keepdims=True)
    assert copy.copy(r) is r and copy.deepcopy(r) is r  # an immutable value is its own copy
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.attrs == {"axis": 1, "keepdims": True}
    assert pickle.loads(pickle.dumps(MatMul())) is MatMul()
    with pytest.raises(AttributeError):
        back.axis = 3  # type: ignore[misc]
