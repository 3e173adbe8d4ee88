"""The surface reaches the DSL's class bodies only through the loader the package installs
(`tilefoundry/api/class_body.py`): never an import of the DSL, a layer above it."""

from __future__ import annotations

import ast
from pathlib import Path

import tilefoundry as tf
import tilefoundry.dsl.classes
from tilefoundry.api import module
from tilefoundry.api.class_body import class_body
from tilefoundry.dsl import Tensor, f32


def test_the_package_wires_the_dsl_class_bodies_in() -> None:
    assert class_body() is tilefoundry.dsl.classes


def test_a_subclass_is_collected_through_the_loader() -> None:
    class Doubler(tf.Module):
        @tf.func
        def run(x: Tensor[(4,), f32]) -> Tensor[(4,), f32]:
            return x + x

    assert Doubler().name == "Doubler"


def test_the_module_names_no_dsl_module() -> None:
    text = Path(module.__file__ or "").read_text(encoding="utf-8")
    assert "tilefoundry.dsl" not in text
    assert not [
        node
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Attribute) and node.attr == "import_module"
    ]
