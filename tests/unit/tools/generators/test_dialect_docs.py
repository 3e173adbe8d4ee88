"""The dialect reference (`docs/dialects/*.md`) is fresh, documents every op and attribute, and
every example in it parses (and verifies, when it defines all it uses)."""

from __future__ import annotations

import contextlib
import io

import pytest
from xdsl.ir import Operation

from tilefoundry.ir.verify.verifier import verify_ir
from tilefoundry.tools.generators.dialect_docs import examples, main, parse_example, render
from tilefoundry.tools.generators.irdl_export import dialects

NAMES = sorted(
    cls.name for dialect in dialects() for cls in [*dialect.operations, *dialect.attributes]
)


def test_the_reference_is_fresh() -> None:
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main(["--check"])
    assert code == 0, f"{err.getvalue()} (run `make dialects` and commit the result)"


def test_every_op_and_attribute_is_documented_with_an_example() -> None:
    assert sorted(examples()) == NAMES
    texts = "".join(render(d) for d in dialects())
    for name in NAMES:
        assert any(f"### `{sigil}{name}`" in texts for sigil in ("", "#", "!"))


def _defines_all_it_uses(ops: list[Operation]) -> bool:
    return all(
        type(value).__name__ != "ForwardDeclaredValue"
        for top in ops
        for op in top.walk()
        for value in op.operands
    )


@pytest.mark.parametrize("name", NAMES)
def test_the_example_parses(name: str) -> None:
    text = examples()[name]
    example = parse_example(text)
    shown = {op.name for top in example.ops for op in top.walk()}
    assert name in shown or f"#{name}<" in text or f"!{name}<" in text  # its op, attribute or type
    if example.ops and _defines_all_it_uses(example.ops):
        for op in example.ops:
            verify_ir(op)
