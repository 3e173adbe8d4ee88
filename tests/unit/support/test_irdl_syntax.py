"""Every tf attribute reads and writes IRDL's positional parameter syntax besides its custom
form (`tilefoundry/support/irdl_syntax.py`), and both forms are the same attribute."""

from __future__ import annotations

import io

import pytest
from xdsl.dialects.builtin import ArrayAttr, IntAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import ParseError

from tilefoundry.builtin.metadata import SpanEndAttr
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf.dim_range import DimRangeAttr
from tilefoundry.ir.text.irdl_printer import irdl_printer
from tilefoundry.ir.text.printer import TFPrinter
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDL_DIALECTS, IRDLFormAttribute, irdl_form_here

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


@irdl_attr_definition
class _PairAttr(IRDLFormAttribute):
    """An attribute defined here with its custom form only (`<key = 3>`)."""

    name = "tf.test_pair"

    key: StringAttr
    count: IntAttr
    tail: ArrayAttr[StringAttr] | NoneAttr

    @classmethod
    def parse_custom(cls, parser: AttrParser) -> list[Attribute]:
        key = parser.parse_identifier()
        parser.parse_punctuation("=")
        return [StringAttr(key), IntAttr(parser.parse_integer()), NoneAttr()]

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.key.data} = {self.count.data}>")


def test_a_new_attribute_writes_no_irdl_form_code() -> None:
    """Its IRDL form is read and printed from its definition's parameters alone."""
    context = make_context()
    context.load_attr_or_type(_PairAttr)
    custom = Parser(context, "#tf.test_pair<n = 3>").parse_attribute()
    assert custom == _PairAttr(StringAttr("n"), IntAttr(3), NoneAttr())
    irdl = '#tf.test_pair<"n", 3 : i64, none>'
    assert printed(custom, irdl=True) == irdl
    assert Parser(context, irdl).parse_attribute() == custom
    assert printed(custom, irdl=False) == "#tf.test_pair<n = 3>"
    with pytest.raises(ParseError, match="parameter 'count' of #tf.test_pair"):
        Parser(context, '#tf.test_pair<"n", "x", none>').parse_attribute()


@pytest.mark.parametrize(
    ("text", "irdl"),
    [
        ('"n", 1', True),
        ("n: 1 to 3", False),
        ("none, 3", True),
        ("nonex: 1", False),
        ("[1]", False),
        ("", False),
    ],
)
def test_the_irdl_form_is_told_by_the_first_parameter(text: str, irdl: bool) -> None:
    """`irdl_form_here` derives from the first parameter's definition how its IRDL text may
    start: `#tf.range`'s with a string, `#tf.span_end`'s with an integer or the word `none`."""
    context = make_context()
    cls = SpanEndAttr if text.startswith("none") else DimRangeAttr
    parser = Parser(context, text + ">")
    assert irdl_form_here(cls, parser) is irdl


def test_every_attribute_of_the_dialects_reads_its_irdl_form_from_its_definition() -> None:
    context = make_context()
    found = [
        attr
        for name in IRDL_DIALECTS
        for attr in context.get_dialect(name).attributes
        if issubclass(attr, ParametrizedAttribute)
    ]
    assert len(found) >= 9
    for attr in found:
        assert issubclass(attr, IRDLFormAttribute), attr.name
        assert "parse_parameters" not in vars(attr) or attr.name == "tf.op", attr.name
