"""Names resolve where the function was written, spans and errors at the right place, copies
keep their class (issue 24, items 3-5)."""

from __future__ import annotations

import copy
import importlib
import importlib.util
import pickle
import runpy
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import ConstTensor, DSLError, Mesh, Tensor, TupleOf, f32

_spec = importlib.util.spec_from_file_location(
    "dsl_wrapping", Path(__file__).with_name("wrapping.py")
)
assert _spec is not None and _spec.loader is not None
wrapping = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wrapping)  # a module of its own, with its own SCALE

FILE = __file__
SCALE = 2.0  # the decorator's module has SCALE = 100.0


def where(marker: str) -> tuple[int, int]:
    """The line and character column of the first line holding `marker` (not a call of this)."""
    for number, text in enumerate(Path(FILE).read_text().splitlines(), start=1):
        if marker in text and "where(" not in text and "refused(" not in text:
            return number, text.index(marker) + 1
    raise AssertionError(marker)


def refused(build: Any, marker: str, message: str) -> DSLError:
    with pytest.raises(DSLError) as info:
        build()
    err = info.value
    line, column = where(marker)
    assert (err.file, err.line, err.column) == (FILE, line, column), str(err)
    assert message in err.message, err.message
    caret = str(err).splitlines()[2]
    assert caret.index("^") == column - 1
    return err


def test_names_resolve_where_the_function_was_written() -> None:
    offset = 1.0

    @tf.func
    @wrapping.traced
    def f(x: Tensor[(4,), f32]):
        return x * SCALE + offset

    x = np.ones(4, np.float32)
    np.testing.assert_array_equal(f(x), x * 2.0 + 1.0)  # not 100x: this module's SCALE
    span = tf.get_metadata(f.functions[0].params[0], tf.SourceSpanMetadata)
    assert span is not None and span.file == FILE


def test_a_macro_under_a_decorator_resolves_in_its_own_module() -> None:
    @wrapping.traced
    def scaled(v: Any) -> Any:
        return v * SCALE

    @tf.func
    def f(x: Tensor[(4,), f32]):
        return scaled(x)

    np.testing.assert_array_equal(f(np.ones(4, np.float32)), np.full(4, 2.0, np.float32))


def test_a_call_over_several_lines_ends_on_its_last_line() -> None:
    @tf.func
    def f(x: Tensor[(4,), f32]):
        return ops.add(
            x,
            x,
        )  # end of the call

    (add,) = [op for op in f.functions[0].function_op.walk() if op.name == "tf.call"]
    span = tf.get_metadata(add, tf.SourceSpanMetadata)
    assert span is not None
    start, column = where("return ops.add(")
    end, _ = where(")  # end of the call")
    assert (span.line, span.column + 0) == (start, column + len("return "))
    assert (span.end_line, span.end_column) == (end, 9)  # the closing parenthesis


def test_a_caret_after_non_ascii_text_counts_characters() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), f32]):
            s = "日本語"; h = ops.exp2(x)  # noqa: E702, F841  # fmt: skip
            return h

    refused(build, "ops.exp2(x)  # noqa: E702", "unknown op or name 'tilefoundry.ops.exp2'")


def test_parameters_on_one_line_each_span_their_own_characters(tmp_path: Path) -> None:
    # each line's text is read once per function (a signature of thousands of parameters is one
    # line): the spans must stay in characters after non-ASCII text, and per line
    path = tmp_path / "signature.py"
    path.write_text(
        "import tilefoundry as tf\nfrom tilefoundry.dsl import Tensor, f32\n\n\n"
        "@tf.func\n"
        "def f(日本: Tensor[(4,), f32], b: Tensor[(4,), f32], c: Tensor[(4,), f32]):\n"
        "    return 日本\n"
        "\n\n"
        "@tf.func\n"
        "def g(日本: Tensor[(4,), f32], b: Tensor[(4,), f32],\n"
        "      c: Tensor[(4,), f32]):\n"
        "    return 日本 + b + c\n"
    )
    module = runpy.run_path(str(path))
    spans = [
        [tf.get_metadata(p, tf.SourceSpanMetadata) for p in module[name].functions[0].params]
        for name in ("f", "g")
    ]
    f_line = "def f(日本: Tensor[(4,), f32], b: Tensor[(4,), f32], c: Tensor[(4,), f32]):"
    g_line = "def g(日本: Tensor[(4,), f32], b: Tensor[(4,), f32],"
    expected = [
        [
            (6, f_line.index(n) + 1, f_line.index("]", f_line.index(n)) + 1)
            for n in ("日本:", "b:", "c:")
        ],
        [
            (11, g_line.index("日本:") + 1, g_line.index("], b:") + 1),
            (11, g_line.index("b:") + 1, len(g_line) - 1),
            (12, 7, len("      c: Tensor[(4,), f32]")),
        ],
    ]
    found = [[(s.line, s.column, s.end_column) for s in row if s is not None] for row in spans]
    assert found == expected


def test_an_unknown_dtype_is_a_dsl_error_at_the_annotation() -> None:
    def build() -> Any:
        @tf.func
        def f(x: Tensor[(4,), "f33"]):  # noqa: F821, UP037 - a string: the DSL reads it
            return x

    err = refused(build, 'Tensor[(4,), "f33"]', "unknown dtype 'f33'")
    assert err.end_column == err.column + len('Tensor[(4,), "f33"]')


def test_an_unknown_dtype_evaluated_by_python_is_a_dsl_error(tmp_path: Path) -> None:
    path = tmp_path / "eager.py"  # no `from __future__ import annotations`: Python evaluates it
    path.write_text(
        "import tilefoundry as tf\nfrom tilefoundry.dsl import Tensor\n\n\n"
        '@tf.func\ndef f(x: Tensor[(4,), "f33"]):\n    return x\n'
    )
    with pytest.raises(DSLError) as info:
        runpy.run_path(str(path))
    err = info.value
    assert (err.file, err.line, err.column) == (str(path), 6, 10), str(err)
    assert (
        err.end_column == 10 + len('Tensor[(4,), "f33"]') and "unknown dtype 'f33'" in err.message
    )


def test_a_variant_of_a_bare_func_is_the_sealed_error() -> None:
    n = tf.DimVar("n", 1, 9)

    @tf.func
    def bare(x: Tensor[(n,), f32]):
        return ops.exp(x)

    def build() -> Any:
        @bare.variant(n=(1, 4))
        def small(x: Any) -> Any:
            return x

    refused(build, "bare.variant(n=(1, 4))", "are sealed")


def test_an_inverted_mesh_nesting_is_reported_at_the_inner_mesh() -> None:
    levels = (tf.Topology("cta", 4), tf.Topology("warp", 4))

    def build() -> Any:
        @tf.func(topologies=levels)
        def f(x: Tensor[(4,), f32]):
            with Mesh("warp"):
                with Mesh("cta"):  # inverted
                    return ops.exp(x)

    refused(build, 'Mesh("cta"):  # inverted', "cannot be nested in a mesh over 'warp'")


def test_deep_expressions_and_long_call_chains_are_read(tmp_path: Path) -> None:
    terms = " + ".join(["x"] * 700)
    header = "import tilefoundry as tf\nfrom tilefoundry.dsl import Tensor, f32\n\n"
    path = tmp_path / "deep.py"
    path.write_text(f"{header}@tf.func\ndef f(x: Tensor[(4,), f32]):\n    return {terms}\n")
    f = runpy.run_path(str(path))["f"]
    np.testing.assert_array_equal(f(np.ones(4, np.float32)), np.full(4, 700.0, np.float32))
    lines = [header, "class Chain(tf.Module, entry='g0'):"]
    for i in range(300):
        call = f"self.g{i + 1}(x)" if i + 1 < 300 else "-x"
        lines += [
            "    @tf.func",
            f"    def g{i}(self, x: Tensor[(4,), f32]):",
            f"        return {call}",
        ]
    path = tmp_path / "chain.py"
    path.write_text("\n".join([*lines, "chain = Chain()", ""]))
    chain = runpy.run_path(str(path))["chain"]
    assert len(chain.functions) == 300  # built on demand, each calling the next
    np.testing.assert_array_equal(chain.g299(np.ones(4, np.float32)), -np.ones(4, np.float32))


def test_a_nested_def_whose_docstring_continues_at_column_0() -> None:
    @tf.func
    def f(x: Tensor[(4,), f32]):
        """A docstring whose second line is not indented:
        at column 0."""
        return ops.exp(x)  # the span

    (call,) = [op for op in f.functions[0].function_op.walk() if op.name == "tf.call"]
    span = tf.get_metadata(call, tf.SourceSpanMetadata)
    line, column = where("ops.exp(x)  # the span")
    assert span is not None and (span.line, span.column) == (line, column)


class Layers(tf.Module, entry="step"):
    def __init__(self) -> None:
        for i in range(2):
            setattr(self, f"layer{i:02d}", Inner())

    @tf.func
    def step(self, x: Tensor[(4,), f32]):
        for i in range(2):
            x = getattr(self, f"layer{i:02d}").g(x, loc=f"{'h'!r}{i:>3}")
        return x


class Inner(tf.Module, entry="g"):
    def __init__(self) -> None:
        self._scale = 3.0

    @tf.func
    def g(x: Tensor[(4,), f32]):
        return x + 1.0

    def forward(self, x: np.ndarray) -> np.ndarray:
        return self._helper(self.g(x))

    def _helper(self, y: np.ndarray) -> np.ndarray:
        return y * self._scale


def test_f_string_format_specs_and_conversions() -> None:
    model = Layers()
    assert [m.attached_name for m in model.modules] == ["layer00", "layer01"]
    calls = [op for op in model.lookup("step").function_op.walk() if op.name == "tf.call"]
    labels = [tf.get_metadata(c, tf.BindingMetadata) for c in calls]
    assert [b.name for b in labels if b is not None] == ["'h'  0", "'h'  1"]
    np.testing.assert_array_equal(model.step(np.zeros(4, np.float32)), np.full(4, 2.0))


def test_a_class_attribute_may_not_shadow_the_module_api() -> None:
    def build() -> Any:
        class Shadow(tf.Module):
            entry = "g"  # shadows

            @tf.func
            def g(x: Tensor[(4,), f32]):
                return x

    err = refused(build, 'entry = "g"  # shadows', "class attribute 'entry' shadows the Module API")
    assert "class Shadow(tf.Module, entry=...)" in err.message


class Quiet(tf.Module):
    def __init_subclass__(cls, **kwargs: Any) -> None:  # no super().__init_subclass__()
        pass


class Uncollected(Quiet):  # the class statement
    @tf.func
    def g(x: Tensor[(4,), f32]):
        return x


def test_init_subclass_without_super_is_one_diagnostic() -> None:
    refused(Uncollected, "class Uncollected(Quiet):", "must call super().__init_subclass__")


def test_copies_keep_their_class() -> None:
    original = Inner()
    x = np.ones(4, np.float32)
    for duplicate in (original.cloned(), copy.deepcopy(original), original.renamed("other")):
        assert type(duplicate) is Inner
        np.testing.assert_array_equal(duplicate.forward(x), original.forward(x))
    tree = Layers()
    for duplicate in (tree.cloned(), copy.deepcopy(tree)):
        assert type(duplicate) is Layers and type(duplicate.layer00) is Inner
        np.testing.assert_array_equal(duplicate.layer01.forward(x), np.full(4, 6.0))


def test_a_const_parameter_in_a_macro_keeps_its_span() -> None:
    def project(v: Any, w: Any) -> Any:
        return v @ w  # the macro's span

    @tf.func
    def f(x: Tensor[(2, 4), f32], w: ConstTensor[(4, 4), f32]):
        return project(x, w)

    (call,) = [op for op in f.functions[0].function_op.walk() if op.name == "tf.call"]
    span = tf.get_metadata(call, tf.SourceSpanMetadata)
    line, column = where("v @ w  # the macro's span")
    assert span is not None and (span.line, span.column) == (line, column)


class Dotted(tf.Module, entry="run"):
    @tf.func(name="a.b")  # an IR name that is no identifier: the def is named otherwise
    def a_b(x: Tensor[(4,), f32]):
        return -x

    @tf.func
    def run(self, x: Tensor[(4,), f32]):
        return getattr(self, "a.b")(x) + 1.0


def test_a_class_body_function_named_otherwise_than_its_def(tmp_path: Path) -> None:
    model = Dotted()
    assert sorted(f.name for f in model.functions) == ["a.b", "run"]
    np.testing.assert_array_equal(model.run(np.ones(4, np.float32)), np.zeros(4))
    source = tf.print_script(model)
    assert "@tf.func(name='a.b')" in source
    path = tmp_path / "dotted.py"
    path.write_text(source)
    assert tf.structural_equal(runpy.run_path(str(path))["module"], model)
    with pytest.raises(DSLError, match="declares only the function's name"):

        class Bad(tf.Module):
            @tf.func(target="h100")
            def f(x: Tensor[(4,), f32]):
                return x


def test_a_tuple_parameter() -> None:
    @tf.func
    def f(t: TupleOf[Tensor[(4,), f32], Tensor[(4,), f32]]):
        return t[0] * t[1]

    assert str(f.functions[0].params[0].type) == "tuple<tensor<4xf32>, tensor<4xf32>>"

    def build() -> Any:
        @tf.func
        def g(t: TupleOf[Tensor[(4,), f32], 3]):
            return t[0]

    refused(build, "TupleOf[Tensor[(4,), f32], 3]", "item #1 is a Tensor[...] or TupleOf[...]")


def test_a_pickled_copy_keeps_its_class_and_state() -> None:
    original, tree = Inner(), Layers()
    object.__setattr__(tree.layer01, "_scale", 5.0)  # a child's own state travels with it
    x = np.ones(4, np.float32)
    back = pickle.loads(pickle.dumps(original))
    assert type(back) is Inner and back._scale == 3.0
    np.testing.assert_array_equal(back.forward(x), original.forward(x))  # its _helper works
    for duplicate in (pickle.loads(pickle.dumps(tree)), copy.copy(tree)):
        assert type(duplicate) is Layers and type(duplicate.layer00) is Inner
        np.testing.assert_array_equal(duplicate.layer00.forward(x), np.full(4, 6.0))
        np.testing.assert_array_equal(duplicate.layer01.forward(x), np.full(4, 10.0))
        assert tf.structural_equal(duplicate, tree)
    child = pickle.loads(pickle.dumps(tree.layer01))  # a child pickles as a root of its class
    assert type(child) is Inner and child._scale == 5.0


def test_what_cannot_be_pickled_is_refused_by_name() -> None:
    class Local(tf.Module, entry="g"):  # a class inside a function pickles by no reference
        @tf.func
        def g(x: Tensor[(4,), f32]):
            return x

    with pytest.raises(TypeError, match=r"its class .*Local cannot be pickled .*top level"):
        pickle.dumps(Local())
    assert type(copy.deepcopy(Local())) is Local  # a copy in the process keeps it
    unpicklable = Inner()
    object.__setattr__(unpicklable, "_lock", threading.Lock())
    with pytest.raises(TypeError, match="the Python state '_lock' of its Inner instance"):
        pickle.dumps(unpicklable)
