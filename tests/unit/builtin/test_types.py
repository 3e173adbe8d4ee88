"""Types carried by `Expr.type`: TensorType / TupleType / UnitType / DimVar.

The types section of the spec is not available; DESIGN.md section 3 decides it: `TensorType(shape,
dtype)` where a dim is an `int` or a `DimVar(name, lo, hi)` with the half-open envelope `[lo, hi)`
(like `DimVarRangePat`), `TupleType(fields)`, `UnitType()` for effect-form results. In text a
tensor is the builtin `tensor<...>` (dynamic dims named by their DimVar in an encoding), a tuple
is the builtin `tuple<...>`.
"""

from __future__ import annotations

from typing import Any, cast

import pytest
from xdsl.dialects.builtin import DYNAMIC_INDEX, IntegerType, MemRefType, NoneType, f32
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Attribute
from xdsl.parser import Parser

from tilefoundry import (
    DimVar,
    TensorType,
    TextError,
    TupleType,
    UnitType,
    VerifyError,
    parse_module,
)
from tilefoundry.builtin.types import from_attr, to_attr
from tilefoundry.context.context import make_context

N = DimVar("n", 1, 1025)


def parse_type(text: str) -> Attribute:
    return Parser(make_context(), text).parse_type()


# ---------------------------------------------------------------------------------------------
# DimVar


def test_dim_var_fields_and_half_open_envelope() -> None:
    d = DimVar("n", 1, 9)
    assert (d.name, d.lo, d.hi) == ("n", 1, 9)
    assert d.contains(1)
    assert d.contains(8)
    assert not d.contains(9)
    assert not d.contains(0)


def test_dim_var_is_a_value() -> None:
    assert DimVar("n", 1, 9) == DimVar("n", 1, 9)
    assert hash(DimVar("n", 1, 9)) == hash(DimVar("n", 1, 9))
    assert DimVar("n", 1, 9) != DimVar("n", 1, 10)
    assert DimVar("n", 1, 9) != DimVar("m", 1, 9)


def test_dim_var_is_immutable() -> None:
    d = DimVar("n", 1, 9)
    with pytest.raises(AttributeError):
        d.hi = 10
    assert d.hi == 9


@pytest.mark.parametrize(("lo", "hi"), [(5, 5), (6, 5)])
def test_dim_var_refuses_an_empty_envelope(lo: int, hi: int) -> None:
    with pytest.raises(ValueError, match="lo < hi"):
        DimVar("n", lo, hi)


def test_dim_var_single_point_envelope() -> None:
    d = DimVar("n", 4, 5)
    assert d.contains(4)
    assert not d.contains(5)


def test_dim_var_refuses_a_negative_lower_bound() -> None:
    with pytest.raises(ValueError, match="lo"):
        DimVar("n", -1, 4)


@pytest.mark.parametrize(("lo", "hi"), [(True, 4), (0, True), (1.0, 4), (1, "4")])
def test_dim_var_bounds_are_plain_ints(lo: Any, hi: Any) -> None:
    with pytest.raises(TypeError, match="int"):
        DimVar("n", lo, hi)


@pytest.mark.parametrize("name", ["", "1n", "a b", 3])
def test_dim_var_name_is_an_identifier(name: Any) -> None:
    with pytest.raises((TypeError, ValueError), match="name"):
        DimVar(name, 1, 4)


# ---------------------------------------------------------------------------------------------
# TensorType


@pytest.mark.parametrize("dtype", ["f32", "bf16", "f16", "i32", "i1", "f64", "i64", "i8", "i16"])
def test_tensor_type_dtypes(dtype: str) -> None:
    t = TensorType((2, 3), dtype)
    assert t.dtype == dtype
    assert from_attr(to_attr(t)) == t


def test_tensor_type_fields() -> None:
    t = TensorType([4, N, 8], "bf16")
    assert t.shape == (4, N, 8)
    assert isinstance(t.shape, tuple)
    assert t.dtype == "bf16"
    assert t.rank == 3


def test_tensor_type_rank_zero_is_a_scalar() -> None:
    t = TensorType((), "f32")
    assert t.shape == ()
    assert t.rank == 0


def test_tensor_type_is_a_value() -> None:
    assert TensorType((4, 8), "f32") == TensorType([4, 8], "f32")
    assert hash(TensorType((4, 8), "f32")) == hash(TensorType([4, 8], "f32"))
    assert TensorType((4, 8), "f32") != TensorType((8, 4), "f32")
    assert TensorType((4, 8), "f32") != TensorType((4, 8), "bf16")
    assert TensorType((DimVar("n", 1, 9),), "f32") != TensorType((DimVar("n", 1, 17),), "f32")


def test_tensor_type_is_immutable() -> None:
    t = TensorType((4,), "f32")
    with pytest.raises(AttributeError):
        t.dtype = "i32"
    assert t.dtype == "f32"


@pytest.mark.parametrize("dtype", ["float32", "f8", "", "F32"])
def test_tensor_type_refuses_an_unknown_dtype(dtype: str) -> None:
    with pytest.raises(ValueError, match="dtype"):
        TensorType((4,), dtype)


def test_tensor_type_refuses_a_negative_dim() -> None:
    with pytest.raises(ValueError, match="-1"):
        TensorType((4, -1), "f32")


@pytest.mark.parametrize("dim", [True, 2.0, "4", None])
def test_tensor_type_dims_are_plain_ints_or_dim_vars(dim: Any) -> None:
    with pytest.raises(TypeError, match="dimension"):
        TensorType((4, dim), "f32")


def test_tensor_type_one_envelope_per_dim_var_name() -> None:
    with pytest.raises(ValueError, match="'n'.*two envelopes"):
        TensorType((DimVar("n", 1, 9), DimVar("n", 1, 17)), "f32")


def test_tensor_type_same_dim_var_twice() -> None:
    t = TensorType((N, N), "f32")
    assert t.shape == (N, N)


# ---------------------------------------------------------------------------------------------
# TupleType and UnitType


def test_tuple_type_fields() -> None:
    a = TensorType((4,), "f32")
    b = TensorType((), "i1")
    t = TupleType([a, b])
    assert t.fields == (a, b)
    assert isinstance(t.fields, tuple)
    assert len(t) == 2


def test_tuple_type_nests() -> None:
    inner = TupleType((TensorType((4,), "f32"),))
    outer = TupleType((inner, TensorType((2,), "i32")))
    assert outer.fields[0] == inner


def test_tuple_type_is_a_value() -> None:
    a = TensorType((4,), "f32")
    assert TupleType((a,)) == TupleType([a])
    assert hash(TupleType((a,))) == hash(TupleType([a]))
    assert TupleType((a,)) != TupleType((a, a))


@pytest.mark.parametrize("field", [3, "f32", None, (4,)])
def test_tuple_type_fields_are_ir_types(field: Any) -> None:
    with pytest.raises(TypeError, match="IRType"):
        TupleType((TensorType((4,), "f32"), field))


def test_unit_type_is_a_value() -> None:
    assert UnitType() == UnitType()
    assert hash(UnitType()) == hash(UnitType())
    assert UnitType() != TupleType(())


# ---------------------------------------------------------------------------------------------
# IR forms


@pytest.mark.parametrize(
    ("type_", "text"),
    [
        (TensorType((4, 8), "f32"), "tensor<4x8xf32>"),
        (TensorType((), "i1"), "tensor<i1>"),
        (TensorType((N, 8), "bf16"), "tensor<?x8xbf16, #tf.dims<n: 1 to 1025>>"),
        (
            TensorType((DimVar("b", 1, 9), 64, DimVar("s", 1, 4097)), "f16"),
            "tensor<?x64x?xf16, #tf.dims<b: 1 to 9, s: 1 to 4097>>",
        ),
        (
            TupleType((TensorType((4,), "f32"), TensorType((), "i1"))),
            "tuple<tensor<4xf32>, tensor<i1>>",
        ),
        (UnitType(), "none"),
    ],
)
def test_ir_form_text(type_: TensorType | TupleType | UnitType, text: str) -> None:
    assert str(to_attr(type_)) == text


@pytest.mark.parametrize(
    "type_",
    [
        TensorType((4, 8), "f32"),
        TensorType((), "f64"),
        TensorType((N, 8, N), "bf16"),
        TensorType((DimVar("b", 1, 9), DimVar("s", 2, 4097)), "i32"),
        TupleType((TensorType((4,), "f32"), TensorType((N,), "i1"))),
        TupleType((TupleType((TensorType((4,), "f32"),)), TensorType((), "i8"))),
        TupleType(()),
        UnitType(),
    ],
)
def test_to_attr_from_attr_round_trip(type_: TensorType | TupleType | UnitType) -> None:
    assert from_attr(to_attr(type_)) == type_


@pytest.mark.parametrize(
    "type_",
    [
        TensorType((4, 8), "f32"),
        TensorType((N, 8), "bf16"),
        TupleType((TensorType((4,), "f32"), TensorType((N,), "i1"))),
        UnitType(),
    ],
)
def test_ir_form_is_the_parsed_attribute(type_: TensorType | TupleType | UnitType) -> None:
    """The attribute built from Python is the one the parser builds from its text (equal and
    hashable like every IR attribute), so both compare alike wherever IR is compared."""
    attr = to_attr(type_)
    parsed = parse_type(str(attr))
    assert parsed == attr
    assert hash(parsed) == hash(attr)
    assert from_attr(parsed) == type_


def test_unit_type_ir_form_is_none() -> None:
    assert to_attr(UnitType()) == NoneType()
    assert from_attr(NoneType()) == UnitType()


def test_dim_var_envelope_is_kept_in_the_ir_form() -> None:
    t = from_attr(parse_type("tensor<?x?xf32, #tf.dims<a: 2 to 5, b: 0 to 3>>"))
    assert t == TensorType((DimVar("a", 2, 5), DimVar("b", 0, 3)), "f32")


def test_dim_var_shared_by_two_dims_in_text() -> None:
    t = from_attr(parse_type("tensor<?x?xf32, #tf.dims<n: 1 to 5, n: 1 to 5>>"))
    assert t == TensorType((DimVar("n", 1, 5), DimVar("n", 1, 5)), "f32")


def test_to_attr_refuses_a_non_type() -> None:
    with pytest.raises(TypeError, match="TensorType"):
        to_attr(cast(Any, "tensor<4xf32>"))


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("tensor<4xi128>", "element type i128"),
        ("tensor<?xf32>", "dynamic"),
        ("tensor<?x?xf32, #tf.dims<n: 1 to 5>>", "2 dynamic"),
        ('tensor<4xf32, "enc">', "encoding"),
        ("tensor<?x?xf32, #tf.dims<n: 1 to 5, n: 1 to 6>>", "two envelopes"),
        ("i32", "unsupported type i32"),
        ("memref<4xf32>", "unsupported type memref"),
        ("tuple<tensor<4xf32>, i32>", "unsupported type i32"),
    ],
)
def test_from_attr_refuses_what_is_not_a_tilefoundry_type(text: str, words: str) -> None:
    attr = parse_type(text)
    with pytest.raises(VerifyError, match=words):
        from_attr(attr)


def test_from_attr_refuses_python_built_attributes() -> None:
    with pytest.raises(VerifyError, match="unsupported type"):
        from_attr(IntegerType(32))
    with pytest.raises(VerifyError, match="unsupported type"):
        from_attr(MemRefType(f32, [4]))
    with pytest.raises(VerifyError, match="dynamic"):
        from_attr(BuiltinTensorType(f32, [DYNAMIC_INDEX]))


@pytest.mark.parametrize("dims", ["n: 5 to 5", "n: 6 to 5"])
def test_dim_var_envelope_refused_in_text(dims: str) -> None:
    with pytest.raises(VerifyError, match="lo < hi"):
        parse_type(f"tensor<?xf32, #tf.dims<{dims}>>")


def test_dim_var_envelope_refused_in_a_module_with_a_position() -> None:
    """DESIGN section 5: bad text gets a one-line diagnostic with a location."""
    text = (
        "tf.module @m {\n"
        "  hir.func @g(%x: tensor<?xf32, #tf.dims<n: 5 to 5>>)"
        " -> tensor<?xf32, #tf.dims<n: 5 to 5>> {\n"
        "    hir.return %x : tensor<?xf32, #tf.dims<n: 5 to 5>>\n"
        "  }\n"
        "}\n"
    )
    with pytest.raises(TextError, match=r"<string>:2:\d+: error: .*lo < hi"):
        parse_module(text)


def test_dynamic_dim_without_a_dim_var_refused_in_a_module() -> None:
    text = (
        "tf.module @m {\n"
        "  hir.func @g(%x: tensor<?xf32>) -> tensor<?xf32> {\n"
        "    hir.return %x : tensor<?xf32>\n"
        "  }\n"
        "}\n"
    )
    with pytest.raises(TextError, match=r"<string>:2:\d+: error: .*dynamic"):
        parse_module(text)


def test_dim_var_type_round_trips_through_a_module() -> None:
    text = (
        "tf.module @m {\n"
        "  hir.func @g(%x: tensor<?x8xbf16, #tf.dims<n: 1 to 1025>>) "
        "-> tensor<?x8xbf16, #tf.dims<n: 1 to 1025>> {\n"
        "    hir.return %x : tensor<?x8xbf16, #tf.dims<n: 1 to 1025>>\n"
        "  }\n"
        "}\n"
    )
    g = parse_module(text).lookup("g")
    assert g.params[0].type == TensorType((N, 8), "bf16")
    assert g.type == TensorType((N, 8), "bf16")
