"""docs/ir.md's `mlir` examples are complete modules (no `...` placeholders) that parse and
verify as written, and print back to the same IR."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import tilefoundry as tf

DOC = Path(__file__).parents[4] / "docs" / "ir.md"
BLOCKS = re.findall(r"```mlir\n(.*?)```", DOC.read_text(), re.S)


def test_the_doc_has_its_examples() -> None:
    assert len(BLOCKS) >= 2


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_an_example_is_complete_and_verifies(index: int) -> None:
    block = BLOCKS[index]
    assert "..." not in block
    module = tf.parse_module(block, f"docs/ir.md example #{index}")
    module.verify()
    again = tf.parse_module(tf.print_module(module), "printed")
    assert tf.print_module(again) == tf.print_module(module)
