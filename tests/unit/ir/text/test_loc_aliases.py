"""Location aliases defined after their use, as upstream mlir-opt prints debug info, read back
(`tilefoundry/ir/text/loc_aliases.py`)."""

from __future__ import annotations

import pytest
from xdsl.utils.exceptions import ParseError

from tilefoundry.builtin.metadata import (
    BindingMetadata,
    SourceSpanMetadata,
    location_to_metadata,
)
from tilefoundry.context.context import make_context
from tilefoundry.dialects.tf.ops import CallOp
from tilefoundry.ir.text.parser import TFParser

TEXT = """#loc1 = loc("m.py":1:7)
"tf.module"() ({
  "hir.func"() ({
  ^bb0(%arg0: tensor<4xf32> loc(#loc1)):
    %0 = "tf.call"(%arg0) {callee = #tf.op<tf.math.unary<kind = exp>>} : (tensor<4xf32>) -> tensor<4xf32> loc(#loc3)
    "hir.return"(%0) : (tensor<4xf32>) -> () loc(#loc2)
  }) {function_type = (tensor<4xf32>) -> tensor<4xf32>, param_names = ["x"], sym_name = "f"} : () -> () loc(#loc2)
}) {sym_name = "m"} : () -> () loc(unknown)
#loc2 = loc("m.py":2:5)
#loc3 = loc("h"(#loc2))
"""


def test_aliases_defined_after_their_use_are_put_in_place() -> None:
    module = TFParser(make_context(), TEXT, "up.mlir").parse_module()
    call = next(op for op in module.walk() if isinstance(op, CallOp))
    assert location_to_metadata(call.location) == (
        BindingMetadata("h"),
        SourceSpanMetadata("m.py", 2, 5),
    )
    assert call.results[0].name_hint == "h"  # the binding names the value, as written inline
    (parameter,) = call.operands
    assert location_to_metadata(parameter.location) == (SourceSpanMetadata("m.py", 1, 7),)
    assert location_to_metadata(call.next_op.location) == (SourceSpanMetadata("m.py", 2, 5),)


def test_an_alias_never_defined_is_an_error_at_its_use() -> None:
    text = TEXT.replace("loc(#loc3)", "loc(#loc9)")
    with pytest.raises(ParseError, match="undefined symbol alias '#loc9'") as err:
        TFParser(make_context(), text, "up.mlir").parse_module()
    assert err.value.span.start == text.index("#loc9")
