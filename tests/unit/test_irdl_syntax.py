"""Every tf attribute reads and writes IRDL's positional parameter syntax besides its custom
form (`tilefoundry/irdl_syntax.py`), and both forms are the same attribute."""

from __future__ import annotations

import io

import pytest
from xdsl.ir import Attribute
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from tilefoundry.context import make_context
from tilefoundry.diagnostics import VerifyError
from tilefoundry.ir.asm import TFPrinter
from tilefoundry.ir.irdl_printer import irdl_printer

FORMS = [
    (
        "#tf.dims<n: 1 to 5, m: 0 to 3>",
        '#tf.dims<["n", "m"], [1 : i64, 0 : i64], [5 : i64, 3 : i64]>',
    ),
    ("#tf.range<n: 1 to 128>", '#tf.range<"n", 1 : i64, 128 : i64>'),
    (
        "#tf.op<tf.reduce.sum<axis = 1>>",
        '#tf.op<"tf.reduce.sum", {axis = 1 : i64, keepdims = false}>',
    ),
    ("#tf.op<tf.linalg.matmul>", '#tf.op<"tf.linalg.matmul", {}>'),
    ('#tf.target<"h100">', '#tf.target<"h100">'),
    ('#tf.topology<"cta", 4>', '#tf.topology<"cta", 4 : i64>'),
    ('#tf.topology<"warp">', '#tf.topology<"warp", none>'),
    ("#tf.span_end<3, 10>", "#tf.span_end<3 : i64, 10 : i64>"),
    ("#tf.span_end<none, 10>", "#tf.span_end<none, 10 : i64>"),
    ('#tf.meta<"k", {a = 1 : i64}>', '#tf.meta<"k", {a = 1 : i64}>'),
]


def parse(text: str) -> Attribute:
    return Parser(make_context(), text).parse_attribute()


def printed(attr: Attribute, *, irdl: bool) -> str:
    stream = io.StringIO()
    printer = irdl_printer(stream) if irdl else TFPrinter(stream=stream)
    printer.print_attribute(attr)
    return stream.getvalue()


@pytest.mark.parametrize(("custom", "irdl"), FORMS)
def test_both_forms_are_one_attribute_and_print_back(custom: str, irdl: str) -> None:
    attr = parse(custom)
    assert parse(irdl) == attr
    assert printed(attr, irdl=True) == irdl
    assert printed(parse(irdl), irdl=False) == custom


def test_upstream_output_reads_back() -> None:
    """mlir-opt prints `i64` array elements bare and sorts dictionary keys."""
    assert parse('#tf.dims<["n"], [1], [5]>') == parse("#tf.dims<n: 1 to 5>")
    sorted_keys = parse('#tf.op<"tf.reduce.sum", {keepdims = true, axis = 0 : i64}>')
    assert printed(sorted_keys, irdl=False) == "#tf.op<tf.reduce.sum<axis = 0, keepdims = true>>"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('#tf.range<"n", "x", 3 : i64>', "parameter 'lo' of #tf.range"),
        ('#tf.topology<"a", 1, 2>', r"#tf.topology has 2 parameter\(s\) \(level, extent\), got 3"),
        ('#tf.dims<["n"], [true], [5]>', "parameter 'los' of #tf.dims"),
        ("#tf.span_end<-1 : i64, 3 : i64>", "non-negative"),
        ('#tf.topology<"cta", 0 : i64>', "extent must be a positive int"),
    ],
)
def test_bad_parameters_are_refused(text: str, message: str) -> None:
    with pytest.raises((ParseError, VerifyError), match=message):
        parse(text)
