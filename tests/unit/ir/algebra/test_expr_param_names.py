"""A parameter's name is any non-empty printable string (a `state_dict` key such as
`0.weight`); the text spells one that is no SSA name escaped (`%$0.weight`) and reads it back."""

from __future__ import annotations

import pytest

import tilefoundry as tf
from tilefoundry import TensorType, Var, ops
from tilefoundry.api.hir import Function
from tilefoundry.api.module import Module
from tilefoundry.ir.algebra.expr import escape_param_name, unescape_param_name

NAMES = ["x", "layers.0.w", "a-b$c", "0.weight", "1", "x y", "$dollar", "naïve.w", "_0"]


@pytest.mark.parametrize("name", NAMES)
def test_the_escape_is_undone(name: str) -> None:
    printed = escape_param_name(name)
    assert unescape_param_name(printed) == name
    if name in ("x", "layers.0.w", "a-b$c", "_0"):
        assert printed == name  # an SSA name already: printed as it is
    else:
        assert printed.startswith("$")


@pytest.mark.parametrize("name", NAMES)
def test_a_param_name_round_trips_through_the_text(name: str) -> None:
    w = Var(name, TensorType((4,), "f32"), is_const=True)
    x = Var("input", TensorType((4,), "f32"))
    module = Module(
        name="m", functions=[Function(name="f", params=[x, w], body=ops.add(x, w))], entry="f"
    )
    again = tf.parse_module(tf.print_module(module))
    assert [p.name for p in again.lookup("f").params] == ["input", name]
    assert list(again.weights) == [name]


@pytest.mark.parametrize("name", ["", "a\nb", 3])
def test_a_name_is_a_non_empty_printable_string(name: object) -> None:
    with pytest.raises(ValueError, match="invalid parameter name"):
        Var(name, TensorType((4,), "f32"))  # type: ignore[arg-type]
