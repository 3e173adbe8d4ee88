"""Numeric literals in text: splats stay splats, floats keep their bits, values their types."""

from __future__ import annotations

import math
import struct
import tracemalloc
from io import StringIO

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr
from xdsl.ir import Attribute

from tilefoundry.api.text import TextError, parse_module
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf.dense import array_to_dense, dense_to_array
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.ir.text.printer import TFPrinter


def attribute(text: str) -> Attribute:
    return TFParser(make_context(), text).parse_attribute()


def dense(text: str) -> DenseIntOrFPElementsAttr:
    attr = attribute(text)
    assert isinstance(attr, DenseIntOrFPElementsAttr)
    return attr


def printed(attr: Attribute) -> str:
    stream = StringIO()
    TFPrinter(stream=stream).print_attribute(attr)
    return stream.getvalue()


def test_a_splat_costs_no_memory() -> None:
    # Its element is stored once, never its 50,000,000 (200 MB); how long reading it takes is
    # measured in benchmarks/fuzz_runs.py, not asserted here.
    tracemalloc.start()
    try:
        attr = dense("dense<1.0> : tensor<50000000xf32>")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000
    assert attr.data.data == struct.pack("<f", 1.0)
    assert dense('dense<"0x0000803F"> : tensor<50000000xf32>') == attr
    assert printed(attr) == "dense<1.000000e+00> : tensor<50000000xf32>"


def test_equal_elements_are_a_splat_however_written() -> None:
    splat = dense("dense<2.0> : tensor<2x2xf32>")
    assert dense("dense<[[2.0, 2.0], [2.0, 2.0]]> : tensor<2x2xf32>") == splat
    assert array_to_dense(np.full((2, 2), 2.0, np.float32)) == splat
    np.testing.assert_array_equal(dense_to_array(splat), np.full((2, 2), 2.0, np.float32))


def test_non_finite_floats_read_back_as_the_same_bits() -> None:
    attr = dense("dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001]> : tensor<4xf32>")
    values = dense_to_array(attr)
    assert values[0] == math.inf and values[1] == -math.inf
    assert math.isnan(values[2]) and math.isnan(values[3])
    text = printed(attr)
    assert text.startswith("dense<[0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001]>")
    assert dense(text) == attr
    from_numpy = array_to_dense(np.array([np.inf, -np.inf], np.float16))
    assert printed(from_numpy) == "dense<[0x7C00, 0xFC00]> : tensor<2xf16>"


def test_hex_literals_of_float_types_are_bits() -> None:
    assert dense_to_array(dense("dense<0x3F800000> : tensor<f32>")) == 1.0
    assert dense_to_array(dense("dense<0x3C00> : tensor<f16>")) == 1.0
    assert dense_to_array(dense("dense<0x3F80> : tensor<bf16>")) == 1.0
    scalar = attribute("0x7C00 : f16")
    assert isinstance(scalar, FloatAttr) and scalar.value.data == math.inf
    assert printed(scalar) == "0x7C00 : f16"


def test_an_integer_of_thousands_of_digits_is_a_diagnostic() -> None:
    for literal in (f"dense<{'9' * 5000}> : tensor<2xi32>", f"{'9' * 5000} : i64", "9" * 5000):
        text = f"tf.module @m metadata {{a = {literal}}} {{}}"
        with pytest.raises(TextError) as caught:
            parse_module(text)
        assert caught.value.message == (
            "integer literal of 5000 digits is too long (tf-opt reads at most 4300)"
        )
        assert caught.value.position is not None
        assert caught.value.position.column == text.index("9") + 1
    with pytest.raises(TextError, match=f"integer constant {'9' * 300} out of range for i32"):
        parse_module(f"tf.module @m metadata {{a = {'9' * 300} : i32}} {{}}")
