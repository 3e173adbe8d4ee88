"""TFParser and TFPrinter: strings and names read back as written."""

from __future__ import annotations

from tilefoundry.text import parse_module, print_module

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
