"""`print_script` is total on what it accepts (issue 24, item 2): over the translation-validation
generator's programs and every DSL program of this test suite, each script is valid Python
that reads back structurally equal, or is refused by name (a `ScriptError`, a `DSLError`). The
lit modules are in test_script.py."""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import ConstTensor, ScriptError, Tensor, f32
from tilefoundry.testing.program_generator import generate_program

SEEDS = int(os.environ.get("TF_SCRIPT_SEEDS", "48"))

GENERATOR_REFUSALS = ("a bf16 constant holding NaN payloads",)
"""What print_script refuses among the generator's programs (numpy has no bf16 to hold it)."""


def read_back(module: tf.Module, tmp_path: Path) -> tf.Module | None:
    """The module the script reads back as, or None when print_script refuses by name."""
    try:
        source = tf.print_script(module)
    except ScriptError as err:
        assert err.message.startswith("print_script: "), err.message
        assert any(reason in err.message for reason in GENERATOR_REFUSALS), str(err)
        return None
    path = tmp_path / "script.py"
    path.write_text(source)
    compile(source, str(path), "exec")  # valid Python
    found = runpy.run_path(str(path))["module"]
    assert isinstance(found, tf.Module)
    return found


@pytest.mark.parametrize("seed", range(SEEDS))
def test_every_generated_program_reads_back(seed: int, tmp_path: Path) -> None:
    program = generate_program(seed)
    module = tf.parse_module(program.text, f"seed{seed}")
    again = read_back(module, tmp_path)
    if again is not None:
        assert tf.structural_equal(again, module), f"seed {seed}:\n{tf.print_script(module)}"


def test_most_generated_programs_read_back(tmp_path: Path) -> None:
    refused = sum(
        read_back(tf.parse_module(generate_program(s).text, f"seed{s}"), tmp_path) is None
        for s in range(SEEDS)
    )
    assert refused <= SEEDS // 10, refused


def suite_modules() -> list[tuple[str, tf.Module]]:
    """The DSL modules the tests of this directory build at import time (module objects, and
    class-body modules that construct without arguments)."""
    found: list[tuple[str, tf.Module]] = []
    here = Path(__file__).parent
    for path in sorted(here.glob("test_*.py")):
        if path.name == Path(__file__).name:
            continue
        try:  # the module pytest imported (`--import-mode=importlib` names it so)
            module = importlib.import_module(f"tests.unit.dsl.{path.stem}")
        except ModuleNotFoundError:
            spec = importlib.util.spec_from_file_location(f"dsl_suite_{path.stem}", path)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        for name, value in sorted(vars(module).items()):
            if isinstance(value, tf.Module):
                found.append((f"{path.stem}.{name}", value))
            elif (
                isinstance(value, type)
                and issubclass(value, tf.Module)
                and value is not tf.Module
                and value.__module__ == module.__name__
            ):
                arguments = ARGUMENTS.get(f"{path.stem}.{name}", [()])
                try:
                    found += [(f"{path.stem}.{name}{a}", value(*a)) for a in arguments]
                except (TypeError, tf.DSLError):  # takes arguments, or a diagnostic test
                    continue
    return found


ARGUMENTS: dict[str, list[tuple[Any, ...]]] = {
    "test_classes.Root": [(2,)],
    "test_loops.Stack": [(1,), (3,)],
    "test_loops.Configured": [(True,), (False,)],
}
"""The arguments the suite's class-body modules that take some are built with here."""


SUITE = suite_modules()


@pytest.mark.parametrize(("name", "module"), SUITE, ids=[n for n, _ in SUITE])
def test_every_dsl_program_of_the_suite_reads_back(
    name: str, module: tf.Module, tmp_path: Path
) -> None:
    again = read_back(module, tmp_path)
    assert again is not None, name
    assert tf.structural_equal(again, module), tf.print_script(module)


def test_the_suite_has_dsl_programs() -> None:
    assert len(SUITE) >= 25, [n for n, _ in SUITE]


class Layer(tf.Module, entry="block"):
    @tf.func
    def block(x: Tensor[(4,), f32], w: ConstTensor[(4,), f32]):
        return ops.relu(x * w) + x


class Stack(tf.Module, entry="step"):
    def __init__(self, depth: int) -> None:
        self.layers = [Layer() for _ in range(depth)]

    @tf.func
    def step(self, x: Tensor[(4,), f32], w: ConstTensor[(4,), f32]):
        for layer in self.layers:
            x = layer.block(x, w)
        proj = x * w
        proj += x  # bound to 'proj' again: `loc=` after the call's arguments
        return proj


def test_a_layer_list_and_a_rebinding_read_back(tmp_path: Path) -> None:
    model = Stack(3)
    source = tf.print_script(model)
    assert "proj_1 = ops.add(proj, x_1, loc='proj')" in source
    assert not re.search(r"\([^()]* [-+*/@] [^()]*, loc=", source)  # never `(a + b, loc=...)`
    assert "self.layers = [Layer() for _ in range(3)]" in source
    assert "    for layer in self.layers:\n            x_1 = layer.block(x_1, w)\n" in source
    again = read_back(model, tmp_path)
    assert again is not None and tf.structural_equal(again, model)
    x, w = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    np.testing.assert_array_equal(again.step(x, w), model.step(x, w))


def test_a_value_named_v_reads_back(tmp_path: Path) -> None:
    text = """
    tf.module @m {
      hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
        %v = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
        %v1 = tf.call tf.math.unary<kind = neg>(%v) : (tensor<4xf32>) -> tensor<4xf32>
        %dead = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
        hir.return %v1 : tensor<4xf32>
      }
    }
    """
    module = tf.parse_module(text)
    again = read_back(module, tmp_path)
    assert again is not None and tf.structural_equal(again, module), tf.print_script(module)


def test_a_refusal_is_a_dsl_error_at_the_op() -> None:
    @tf.func
    def f(x: Tensor[(4,), f32]):
        return x + 1.0

    (function,) = f.functions
    op = next(o for o in function.function_op.walk() if o.name == "tf.constant")
    from xdsl.dialects.builtin import StringAttr

    op.attributes["note"] = StringAttr("x")
    with pytest.raises(ScriptError) as info:
        tf.print_script(f)
    err: Any = info.value
    assert isinstance(err, tf.DSLError) and isinstance(err, ValueError)
    assert "discardable attributes" in err.message
    assert err.file == __file__ and "return x + 1.0" in err.source_line
