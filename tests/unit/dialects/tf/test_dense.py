"""Literals (`Constant`): a value is kept exactly or refused — never reinterpreted, wrapped,
truncated or overflowed to infinity by the conversion to its dtype."""

from __future__ import annotations

import numpy as np
import pytest

from tilefoundry import Constant, parse_module, print_module
from tilefoundry.api.hir import Function
from tilefoundry.api.module import Module


@pytest.mark.parametrize(
    ("value", "dtype"),
    [
        ([2**40], "i32"),
        ([2**31], "i32"),
        ([-(2**31) - 1], "i32"),
        ([128], "i8"),
        ([2**63], "i64"),
        ([2**70], None),
        ([2**70], "i64"),
        ([2], "i1"),
        ([-1], "i1"),
        ([1.5], "i32"),
        ([float("nan")], "i32"),
        ([float("inf")], "i64"),
        ([1e40], "f32"),
        ([70000.0], "f16"),
        ([1e39], "bf16"),
        ([2**1100], "f64"),
        (np.array([2**40], np.int64), "i32"),
        (np.array([1e40]), "f32"),
    ],
)
def test_a_value_that_does_not_fit_its_dtype_is_refused(value: object, dtype: str | None) -> None:
    with pytest.raises(ValueError, match=r"a Constant value .* does not fit"):
        Constant(value, dtype=dtype)


@pytest.mark.parametrize(
    ("array", "dtype"),
    [
        (np.array([0, 255], np.uint8), "i16"),
        (np.array([0, 2**16 - 1], np.uint16), "i32"),
        (np.array([0, 2**32 - 1], np.uint32), "i64"),
        (np.array([0, 2**63 - 1], np.uint64), "i64"),
    ],
)
def test_an_unsigned_array_keeps_its_values(array: np.ndarray, dtype: str) -> None:
    constant = Constant(array)
    assert constant.type.dtype == dtype  # type: ignore[union-attr]
    assert constant.value.tolist() == array.tolist()


def test_an_unsigned_array_beyond_i64_is_refused() -> None:
    with pytest.raises(ValueError, match=r"18446744073709551615 does not fit i64"):
        Constant(np.array([2**64 - 1], np.uint64))


def test_an_unsigned_array_given_a_dtype_that_holds_it_is_kept() -> None:
    assert Constant(np.array([200], np.uint8), dtype="i32").value.tolist() == [200]
    with pytest.raises(ValueError, match=r"200 does not fit i8"):
        Constant(np.array([200], np.uint8), dtype="i8")


@pytest.mark.parametrize(
    ("value", "dtype", "expected"),
    [
        ([2**31 - 1, -(2**31)], "i32", [2**31 - 1, -(2**31)]),
        ([127, -128], "i8", [127, -128]),
        ([2.0, -3.0], "i32", [2, -3]),
        ([True, False], "i32", [1, 0]),
        ([1, 0], "i1", [True, False]),
        ([2**63 - 1], "i64", [2**63 - 1]),
        ([65504.0], "f16", [65504.0]),
        ([float("inf"), float("-inf")], "f32", [float("inf"), float("-inf")]),
        ([2**70], "f32", [float(np.float32(2**70))]),
        ([0.1], "f32", [float(np.float32(0.1))]),
        ([1e-50], "f32", [0.0]),
    ],
)
def test_a_value_that_fits_is_kept(value: object, dtype: str, expected: list[object]) -> None:
    assert Constant(value, dtype=dtype).value.tolist() == expected


def test_a_nan_float_constant_is_kept() -> None:
    assert np.isnan(Constant([float("nan")], dtype="f32").value).all()


def test_a_ragged_list_is_refused_naming_the_value() -> None:
    with pytest.raises(ValueError, match=r"rectangular nested list"):
        Constant([[1.0], [1.0, 2.0]])


def test_complex_and_text_values_are_refused() -> None:
    with pytest.raises(TypeError, match=r"must be numeric, got ndarray"):
        Constant(np.array([1j]))
    with pytest.raises(TypeError, match=r"must be numeric, got str"):
        Constant("1")


def test_an_unknown_dtype_is_refused() -> None:
    with pytest.raises(TypeError, match=r"dtype must be one of .*, got list \[\]"):
        Constant(1.0, dtype=[])  # type: ignore[arg-type]


def test_an_unsigned_constant_survives_text_with_its_values() -> None:
    f = Function(name="f", params=[], body=Constant(np.array([255, 7], np.uint8)))
    m = Module(name="m", functions=[f], entry="f")
    assert "dense<[255, 7]> : tensor<2xi16>" in print_module(m)
    again = parse_module(print_module(m))
    assert again.f().tolist() == [255, 7]
