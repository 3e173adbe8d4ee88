"""What the DSL reads once (issue 24, item 6: the speed) never changes an answer: a file's
defs are parsed once per text, an annotation is read once per spelling and scope while it says
the same, and what could answer anew (a user's function in an annotation, a file rewritten) is
read again."""

from __future__ import annotations

import ast
import runpy
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.dsl import ConstTensor, DSLError, Tensor, f32
from tilefoundry.dsl.annotations import ParamType
from tilefoundry.dsl.source import _DEFS

N = tf.DimVar("n", 1, 9)
CALLS: list[int] = []


def next_width() -> int:
    """A user's function in an annotation: it answers anew each call."""
    CALLS.append(1)
    return len(CALLS) + 1


def types_of(module: tf.Module) -> list[tuple[str, str, bool]]:
    return [(p.name, str(p.type), p.is_const) for p in module.entry_function().params]


def test_named_parameters_of_one_base_keep_their_names_and_types() -> None:
    @tf.func
    def f(
        x: Tensor[(N, 4), f32],
        a: ConstTensor[(4, 4), f32].named("layer0.w"),
        b: ConstTensor[(4, 4), f32].named("layer1.w"),
        c: Tensor[(N, 4), f32].named("c.x"),
        d: ConstTensor[(4, 2), f32].named("layer1.v"),
    ):
        return (x @ a) @ b + c

    assert types_of(f) == [
        ("x", "tensor<?x4xf32, #tf.dims<n: 1 to 9>>", False),
        ("layer0.w", "tensor<4x4xf32>", True),
        ("layer1.w", "tensor<4x4xf32>", True),
        ("c.x", "tensor<?x4xf32, #tf.dims<n: 1 to 9>>", False),
        ("layer1.v", "tensor<4x2xf32>", True),
    ]


class Renamer:
    """Not a ParamType: its `named` is its own (the annotation is read as written)."""

    def named(self, name: str) -> ParamType:
        return ConstTensor[(2,), f32].named(name.upper())


RENAMER = Renamer()


def test_a_base_that_is_no_parameter_type_is_read_as_written() -> None:
    @tf.func
    def f(x: Tensor[(2,), f32], w: RENAMER.named("w")):  # noqa: F821
        return x + w

    assert types_of(f) == [("x", "tensor<2xf32>", False), ("W", "tensor<2xf32>", True)]


def test_a_user_function_in_an_annotation_is_called_for_each() -> None:
    CALLS.clear()

    @tf.func
    def f(x: Tensor[(next_width(),), f32], y: Tensor[(next_width(),), f32]):
        return x

    assert [t for _, t, _ in types_of(f)] == ["tensor<2xf32>", "tensor<3xf32>"]


def test_a_bad_named_annotation_is_one_diagnostic_at_it() -> None:
    with pytest.raises(DSLError, match="f33") as info:

        @tf.func
        def f(x: Tensor[(4,), "f33"].named("x")):  # noqa: F821, UP037
            return x

    assert (
        info.value.line
        == test_a_bad_named_annotation_is_one_diagnostic_at_it.__code__.co_firstlineno + 4
    )


SCRIPT = """
import tilefoundry as tf
from tilefoundry.dsl import Tensor, f32


@tf.func
def f(x: Tensor[(4,), f32]):
    return x + {value}
"""


def test_a_rewritten_file_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "model.py"
    name = str(path)
    x = np.zeros(4, np.float32)
    answers = []
    for value in ("1.0", "20.0", "300.0"):  # each text of another size: its own parse
        path.write_text(SCRIPT.format(value=value))
        module: Any = runpy.run_path(str(path))["f"]
        answers.append(float(module(x)[0]))
        texts = {"".join(lines) for code, (lines, _) in _DEFS.items() if code.co_filename == name}
        assert path.read_text() in texts
    assert answers == [1.0, 20.0, 300.0]


def test_two_defs_of_one_name_in_a_file_are_each_read(tmp_path: Path) -> None:
    path = tmp_path / "twice.py"
    path.write_text(
        SCRIPT.format(value="1.0")
        + "\n\ng = f\n\n\n@tf.func\ndef f(x: Tensor[(4,), f32]):\n    return x * 3.0\n"
    )
    found = runpy.run_path(str(path))
    x = np.full(4, 2.0, np.float32)
    assert float(found["g"](x)[0]) == 3.0 and float(found["f"](x)[0]) == 6.0


NESTED = """
import tilefoundry as tf
from tilefoundry.dsl import Tensor, f32

if True:
    try:
        with open(__file__):

            class M(tf.Module, entry="g"):
                @tf.func
                def g(x: Tensor[(4,), f32]):
                    return x + 1.0

    except OSError:
        pass
    else:
        for _ in range(1):

            def make():
                @tf.func
                def h(x: Tensor[(4,), f32]):
                    return x * 5.0

                return h

            H = make()
"""


def test_a_def_nested_in_statements_is_found(tmp_path: Path) -> None:
    path = tmp_path / "nested.py"
    path.write_text(NESTED)
    found = runpy.run_path(str(path))
    x = np.ones(4, np.float32)
    assert float(found["M"]()(x)[0]) == 2.0 and float(found["H"](x)[0]) == 5.0
    # each def parsed alone, from its own lines (not the file's syntax tree)
    assert sorted(code.co_name for code in _DEFS if code.co_filename == str(path)) == ["g", "h"]


TRAILING = """
import tilefoundry as tf
from tilefoundry.dsl import Tensor, f32


@tf.func
def f(x: Tensor[(4,), f32]):
    y = x + 1.0
    # a comment, then a statement that makes no code

    z: int
"""


def test_a_def_s_last_lines_that_make_no_code_are_read(tmp_path: Path) -> None:
    """A def is parsed from its own lines: up to the last its code spans, and the lines after
    it indented deeper than the `def` (which make no code: `pass`, a bare annotation)."""
    path = tmp_path / "trailing.py"
    path.write_text(TRAILING)
    with pytest.raises(DSLError) as info:
        runpy.run_path(str(path))
    assert (info.value.line, info.value.column) == (11, 5)
    assert "AnnAssign" in info.value.message or "annotat" in info.value.message


SPELLED = """
import tilefoundry as tf
from tilefoundry.dsl import ConstTensor, Tensor, f32


class M(tf.Module, entry="f"):
    @tf.func
    def f(self, x: Tensor[(4,), f32], a: ConstTensor[(4,), f32].named("w.a"), b: ConstTensor[
        (4,), f32
    ].named("w.b"), c: ConstTensor[(4,), f32].named("ü")):
        return x + a + b + c
"""


def test_an_annotation_s_text_is_its_source(tmp_path: Path) -> None:
    """An annotation's spelling (what its syntax key is remembered by) is its source text on
    one ASCII line, in a def parsed dedented; none over lines or on a line of other text."""
    from tilefoundry.dsl.functions import FunctionSource
    from tilefoundry.dsl.source import read_source

    path = tmp_path / "spelled.py"
    path.write_text(SPELLED)
    found = runpy.run_path(str(path))
    assert [p.name for p in found["M"]().lookup("f").params] == ["x", "w.a", "w.b", "ü"]
    spec = found["M"].__tf_class__.functions["f"]
    assert isinstance(spec, FunctionSource)
    source = read_source(spec.fn, "@func")
    a, b, c = (arg.annotation for arg in source.tree.args.args[2:5])
    assert isinstance(a, ast.Call) and isinstance(b, ast.Call) and isinstance(c, ast.Call)
    assert source.text(a.func) == "ConstTensor[(4,), f32].named"
    assert source.text(a) == 'ConstTensor[(4,), f32].named("w.a")'
    assert source.text(b) is None and source.text(c.func) is None
