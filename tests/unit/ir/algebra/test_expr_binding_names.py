"""A binding that xDSL cannot take as an SSA name hint (`_0`: it strips the `_N` suffix, which
leaves nothing) prints as a numbered value, its binding kept in its location, and reads back."""

from __future__ import annotations

import pytest

from tilefoundry import BindingMetadata, Module, TensorType, Var, ops, parse_module, print_module
from tilefoundry.api.hir import Function


@pytest.mark.parametrize("name", ["_0", "_12"])
def test_a_binding_that_strips_to_nothing_prints_numbered(name: str) -> None:
    x = Var("x", TensorType((4,), "f32"))
    body = ops.neg(x, metadata=[BindingMetadata(name)])
    module = Module(name="m", functions=[Function(name="f", params=[x], body=body)])
    text = print_module(module)
    assert "%0 = tf.call tf.math.unary<kind = neg>(%x)" in text
    with_locations = print_module(module, debuginfo=True)
    assert f'loc("{name}")' in with_locations
    assert print_module(parse_module(with_locations), debuginfo=True) == with_locations


def test_a_binding_with_a_suffix_still_names_its_value() -> None:
    x = Var("x", TensorType((4,), "f32"))
    body = ops.neg(x, metadata=[BindingMetadata("h_0")])
    module = Module(name="m", functions=[Function(name="f", params=[x], body=body)])
    assert "%h" in print_module(module)


def _name_hints(module: Module) -> list[tuple[object, str | None]]:
    hints: list[tuple[object, str | None]] = []
    for op in module.module_op.walk():
        for region in op.regions:
            for block in region.blocks:
                hints.extend((arg, arg.name_hint) for arg in block.args)
        hints.extend((result, result.name_hint) for result in op.results)
    return hints


@pytest.mark.parametrize("hint", ["other", "_0"])  # xDSL keeps `_0` as the hint ""
@pytest.mark.parametrize("binding", ["h", "h_1", "naïve", "_0"])
def test_printing_never_changes_a_name_hint(binding: str, hint: str) -> None:
    # A value whose hint differs from the name it prints with (its binding, a number): the
    # printer names it without writing the name onto the value.
    x = Var("x", TensorType((4,), "f32"))
    body = ops.neg(x, metadata=[BindingMetadata(binding)])
    module = Module(name="m", functions=[Function(name="f", params=[x], body=body)])
    for op in module.module_op.walk():
        for result in op.results:
            result.name_hint = hint
    before = _name_hints(module)
    first = print_module(module, debuginfo=True)
    second = print_module(module, debuginfo=True)
    assert first == second
    assert _name_hints(module) == before
    assert "%other" not in first
