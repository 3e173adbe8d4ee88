"""Spec section 3: Pattern, ScalarPat, TensorPat, AndPat, the Scalar / Tensor singletons, and
section 3.1: DimVarRangePat."""

from __future__ import annotations

from typing import Any, cast

import pytest

from tilefoundry import (
    AndPat,
    DimVar,
    DimVarRangePat,
    Pattern,
    Scalar,
    ScalarPat,
    Tensor,
    TensorPat,
    TensorType,
    TupleType,
    UnitType,
)

N = DimVar("n", 1, 9)
SCALAR_F32 = TensorType((), "f32")
SCALAR_I32 = TensorType((), "i32")
VEC_F32 = TensorType((4,), "f32")
MAT_F32 = TensorType((4, 8), "f32")
MAT_BF16 = TensorType((4, 8), "bf16")
DYN_MAT = TensorType((N, 8), "f32")
TUPLE = TupleType((VEC_F32, MAT_F32))


# ---------------------------------------------------------------------------------------------
# Pattern and the parser-dispatch family


def test_every_pattern_is_a_pattern() -> None:
    for pattern in (
        Pattern(),
        ScalarPat(),
        TensorPat(),
        TensorPat(rank=2, dtype="f32"),
        AndPat((Tensor, TensorPat(rank=2))),
        Scalar,
        Tensor,
        DimVarRangePat("n", 1, 4),
    ):
        assert isinstance(pattern, Pattern)


@pytest.mark.parametrize(
    "pattern", [ScalarPat(), TensorPat(), TensorPat(rank=1), AndPat((Tensor,)), Pattern()]
)
@pytest.mark.parametrize("subject", [SCALAR_F32, VEC_F32, TUPLE, UnitType()])
def test_match_returns_a_bool(pattern: Pattern, subject: object) -> None:
    assert type(pattern.match(subject)) is bool


def test_a_subclass_overrides_match() -> None:
    class EvenRank(Pattern):
        def match(self, subject: object) -> bool:
            return isinstance(subject, TensorType) and subject.rank % 2 == 0

    assert EvenRank().match(MAT_F32) is True
    assert EvenRank().match(VEC_F32) is False


def test_scalar_pat_matches_rank_zero_only() -> None:
    assert ScalarPat().match(SCALAR_F32) is True
    assert ScalarPat().match(SCALAR_I32) is True
    assert ScalarPat().match(VEC_F32) is False
    assert ScalarPat().match(MAT_F32) is False
    assert ScalarPat().match(TUPLE) is False
    assert ScalarPat().match(UnitType()) is False


def test_tensor_pat_matches_non_scalar_tensors() -> None:
    assert TensorPat().match(VEC_F32) is True
    assert TensorPat().match(MAT_BF16) is True
    assert TensorPat().match(DYN_MAT) is True
    assert TensorPat().match(SCALAR_F32) is False
    assert TensorPat().match(TUPLE) is False
    assert TensorPat().match(UnitType()) is False


def test_tensor_pat_rank() -> None:
    p = TensorPat(rank=2)
    assert p.rank == 2
    assert p.match(MAT_F32) is True
    assert p.match(DYN_MAT) is True
    assert p.match(VEC_F32) is False
    assert p.match(TensorType((2, 2, 2), "f32")) is False


def test_tensor_pat_dtype() -> None:
    p = TensorPat(dtype="bf16")
    assert p.dtype == "bf16"
    assert p.match(MAT_BF16) is True
    assert p.match(MAT_F32) is False
    assert p.match(TensorType((), "bf16")) is False  # still non-scalar


def test_tensor_pat_rank_and_dtype() -> None:
    p = TensorPat(rank=1, dtype="f32")
    assert p.match(VEC_F32) is True
    assert p.match(MAT_F32) is False
    assert p.match(TensorType((4,), "i32")) is False


def test_tensor_pat_never_matches_a_scalar() -> None:
    for dtype in ("f32", "i32", "i1"):
        assert TensorPat(dtype=dtype).match(TensorType((), dtype)) is False


def test_and_pat_is_a_conjunction() -> None:
    p = AndPat((TensorPat(rank=2), TensorPat(dtype="bf16")))
    assert p.parts == (TensorPat(rank=2), TensorPat(dtype="bf16"))
    assert p.match(MAT_BF16) is True
    assert p.match(MAT_F32) is False  # dtype part fails
    assert p.match(TensorType((4,), "bf16")) is False  # rank part fails
    assert p.match(TensorType((), "bf16")) is False


def test_and_pat_of_scalar_and_tensor_matches_nothing() -> None:
    p = AndPat([Scalar, Tensor])
    for subject in (SCALAR_F32, VEC_F32, MAT_F32, TUPLE):
        assert p.match(subject) is False


def test_and_pat_parts_must_be_patterns() -> None:
    with pytest.raises(TypeError, match="Pattern"):
        AndPat((Tensor, cast(Any, "rank=2")))


def test_singletons() -> None:
    assert isinstance(Scalar, ScalarPat)
    assert isinstance(Tensor, TensorPat)
    assert Tensor.rank is None
    assert Tensor.dtype is None
    assert Scalar.match(SCALAR_F32) and not Scalar.match(VEC_F32)
    assert Tensor.match(VEC_F32) and not Tensor.match(SCALAR_F32)


def test_patterns_are_values() -> None:
    assert TensorPat(rank=2, dtype="f32") == TensorPat(rank=2, dtype="f32")
    assert hash(TensorPat(rank=2)) == hash(TensorPat(rank=2))
    assert TensorPat(rank=2) != TensorPat(rank=3)
    assert Tensor == TensorPat()
    assert Scalar == ScalarPat()


# ---------------------------------------------------------------------------------------------
# DimVarRangePat


def test_dim_var_range_pat_fields() -> None:
    p = DimVarRangePat(dim_var="seq", lo=1, hi=128)
    assert (p.dim_var, p.lo, p.hi) == ("seq", 1, 128)
    assert DimVarRangePat("seq", 1, 128) == p


def test_dim_var_range_pat_is_immutable() -> None:
    p = DimVarRangePat("n", 1, 4)
    with pytest.raises(AttributeError):
        p.lo = 0
    assert p.lo == 1


def test_dim_var_must_be_a_non_empty_str() -> None:
    with pytest.raises(ValueError, match="dim_var"):
        DimVarRangePat("", 1, 4)


@pytest.mark.parametrize("dim_var", [3, None, DimVar("n", 1, 9), b"n"])
def test_dim_var_must_be_a_str(dim_var: Any) -> None:
    with pytest.raises(TypeError, match="dim_var"):
        DimVarRangePat(dim_var, 1, 4)


@pytest.mark.parametrize(
    ("lo", "hi", "field"),
    [
        (True, 4, "lo"),
        (False, 4, "lo"),
        (0, True, "hi"),
        (1.0, 4, "lo"),
        (1, 4.0, "hi"),
        ("1", 4, "lo"),
        (None, 4, "lo"),
    ],
)
def test_bounds_must_be_plain_ints(lo: Any, hi: Any, field: str) -> None:
    with pytest.raises(TypeError, match=rf"{field}.*int"):
        DimVarRangePat("n", lo, hi)


@pytest.mark.parametrize(("lo", "hi"), [(4, 4), (5, 4), (0, 0), (10, -10)])
def test_construction_requires_lo_below_hi(lo: int, hi: int) -> None:
    with pytest.raises(ValueError, match="lo < hi"):
        DimVarRangePat("n", lo, hi)


def test_match_is_half_open() -> None:
    p = DimVarRangePat("n", 2, 5)
    assert p.match(2) is True  # lo inclusive
    assert p.match(3) is True
    assert p.match(4) is True
    assert p.match(5) is False  # hi exclusive
    assert p.match(1) is False
    assert p.match(100) is False


def test_match_ignores_dim_var() -> None:
    a = DimVarRangePat("n", 2, 5)
    b = DimVarRangePat("something_else", 2, 5)
    for v in range(0, 8):
        assert a.match(v) == b.match(v)


def test_single_point_range() -> None:
    p = DimVarRangePat("n", 7, 8)
    assert [v for v in range(0, 20) if p.match(v)] == [7]


def test_negative_bounds_are_plain_ints_too() -> None:
    p = DimVarRangePat("n", -3, 0)
    assert p.match(-3) is True
    assert p.match(0) is False


def test_envelope_containment_is_not_checked_at_construction() -> None:
    """The DimVar's envelope is checked in signature context, not by the pattern itself: a
    range wider than any envelope, for a name no DimVar has, still constructs."""
    p = DimVarRangePat("not_declared_anywhere", 0, 10**12)
    assert p.match(10**11) is True
