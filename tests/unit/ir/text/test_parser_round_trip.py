"""TFParser and TFPrinter: strings and names read back as written."""

from __future__ import annotations

import io
from collections.abc import Callable

from tilefoundry.api.text import parse_module, print_module

MODULE = """tf.module @"top level" name "café" entry @"a b" {
  hir.func @"a b"(%x: tensor<4xf32> loc("déjà.py":1:2)) -> tensor<4xf32> {
    %y = tf.call @"c d"::@"café"(%x) : (tensor<4xf32>) -> tensor<4xf32> loc("naïve")
    hir.return %y : tensor<4xf32>
  }
  tf.module @"c d" {
    hir.func @"café"(%x: tensor<4xf32>) -> tensor<4xf32> {
      hir.return %x : tensor<4xf32>
    }
  }
}
"""


def test_non_ascii_strings_and_quoted_symbols_read_back_as_written() -> None:
    for generic in (False, True):
        module = parse_module(print_module(parse_module(MODULE), generic=generic, debuginfo=True))
        op = module.module_op
        assert (op.sym_name.data, module.name) == ("top level", "café")
        function = module.lookup("a b")
        assert function.params[0].value.location.filename.data == "déjà.py"
        call = function.function_op.body.block.first_op
        assert [r.data for r in (call.callee.root_reference, *call.callee.nested_references)] == [
            "c d",
            "café",
        ]
        assert call.location.desc.data == "naïve"


def test_a_non_ascii_binding_prints_as_a_numbered_value() -> None:
    text = print_module(parse_module(MODULE))
    assert "%0 = tf.call" in text and "naïve" not in text


TYPED = """\
tf.module @m {
  hir.func @f(%a: tensor<2x3xf32>, %b: tensor<f16>, %c: tensor<?x4xi8>, %d: tensor<?x8xf32, #tf.dims<seq: 1 to 513>>, %e: tuple<tensor<1xf32>, tensor<2xi32>>) -> tensor<2x3xf32> {
    hir.return %a : tensor<2x3xf32>
  }
}
"""


def test_the_printer_prints_each_type_from_its_text_as_xdsl_prints_it() -> None:
    """`TFPrinter.type_text` and `function_type_text` (worked out from the types' texts, once
    per object) are what xDSL's printer prints, for tensor types of every kind of shape,
    element and encoding, other types, and function types of 0, 1 and 2 results."""
    from xdsl.dialects.builtin import FunctionType, IntegerType
    from xdsl.printer import Printer

    from tilefoundry.context.context import make_context
    from tilefoundry.ir.text.parser import TFParser
    from tilefoundry.ir.text.printer import TFPrinter

    module = TFParser(make_context(), TYPED, "m.mlir").parse_module()
    types = [arg.type for op in module.walk() for r in op.regions for arg in r.block.args]
    types.append(IntegerType(32))
    assert len(types) == 6

    def xdsl(print_it: Callable[[Printer], None]) -> str:
        stream = io.StringIO()
        print_it(Printer(stream=stream))
        return stream.getvalue()

    printer = TFPrinter(stream=io.StringIO())
    for type in types:
        assert printer.type_text(type) == xdsl(lambda p, t=type: p.print_attribute(t))
        assert printer.type_text(type) == printer.type_text(type)  # remembered: the same
    nested = FunctionType.from_lists(types[:1], types[:1])
    for inputs, outputs in [([], []), (types, types[:1]), (types[:2], types), ([], [nested])]:
        expected = xdsl(lambda p, i=inputs, o=outputs: p.print_function_type(i, o))
        assert printer.function_type_text(inputs, outputs) == expected
