"""Paths are unambiguous: a function `@"a.b"` and a child `@a::@b` get two paths, each the one
that `select`, `tf-select{path=...}`, `tf-run --function` and `analyze` resolve; and `select`'s
answer always verifies (a mesh over a level no owner declares is refused, as tf-select refuses
it)."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import pytest

from tilefoundry import (
    VerifyError,
    analyze,
    function_selectors,
    parse_module,
    run_passes,
    select,
)
from tilefoundry.api.selection import path_names, path_of
from tilefoundry.tools.drivers.tf_opt import main as tf_opt
from tilefoundry.tools.drivers.tf_run import main as tf_run

T = "tensor<4xf32>"


def identity(name: str, op: str = "neg") -> str:
    return (
        f"hir.func @{name}(%x: {T}) -> {T} {{\n"
        f"  %y = tf.call tf.math.unary<kind = {op}>(%x) : ({T}) -> {T}\n"
        f"  hir.return %y : {T}\n}}\n"
    )


DOTTED = f"""tf.module @root target #tf.target<"h100"> topologies [] {{
{identity('"a.b"', "neg")}
tf.module @a {{
{identity("b", "exp")}
}}
tf.module @"c d" {{
{identity('"x.y"', "abs")}
}}
}}
"""


def test_a_dotted_name_and_a_child_get_two_paths() -> None:
    root = parse_module(DOTTED)
    paths = [path for path, _ in function_selectors(root)]
    assert paths == ["@a.b", "a.b", '@"c d"::@x.y']
    for path, function in function_selectors(root):
        selected = select(root, path)
        selected.verify()
        assert selected.entry == function.name
        assert str(selected.lookup(function.name).function_op) == str(function.function_op)
    assert select(root, "a.b").attached_name == "a" and select(root, "@a.b").attached_name == "root"
    assert select(root, "@a::@b").attached_name == "a"  # the symbol reference of a.b


def test_analyze_keeps_every_function_s_cost() -> None:
    root = parse_module(DOTTED)
    assert sorted(analyze(root)) == sorted(["@a.b", "a.b", '@"c d"::@x.y'])


def test_tf_select_and_tf_run_read_the_same_spelling(tmp_path: Path) -> None:
    source = tmp_path / "m.mlir"
    source.write_text(DOTTED)
    for path, kind in [("@a.b", "neg"), ("a.b", "exp"), ('@"c d"::@x.y', "abs")]:
        selected = run_passes(parse_module(DOTTED), f"tf-select{{path={path}}}")
        assert f"kind = {kind}" in str(selected), path
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert tf_opt([str(source), "-p", f"tf-select{{path={path}}}"]) == 0
        assert f"kind = {kind}" in out.getvalue()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            assert tf_run([str(source), "--function", path]) == 0


@pytest.mark.parametrize(
    "names",
    [["a"], ["a", "b"], ["a.b"], ["c d", "g"], ['q"x', "y"], ["@x"], ["a", ""], ["ok", "x.y"]],
)
def test_a_path_spells_its_names_back(names: list[str]) -> None:
    path = path_of(names)
    assert path_names(path) == names
    dotted = all(n and "." not in n for n in names) and not names[0].startswith("@")
    assert path.startswith("@") != dotted


@pytest.mark.parametrize("path", ["@", "@a::", "@a b", "@1", "@a::@b extra", '@"open'])
def test_a_bad_symbol_reference_is_refused(path: str) -> None:
    with pytest.raises(ValueError, match="is not a symbol reference"):
        select(parse_module(DOTTED), path)


MESH_TREE = f"""tf.module @root target #tf.target<"h100"> {{
  tf.module @c {{
    hir.func @h(%x: {T}) -> {T} {{
      %y = tf.mesh "cta" {{
        %z = tf.call tf.math.unary<kind = neg>(%x) : ({T}) -> {T}
        tf.yield %z : {T}
      }} : {T}
      hir.return %y : {T}
    }}
  }}
}}
"""
REFUSAL = (
    "path '{}': as a root, module 'c' does not verify: 'tf.mesh' op mesh names topology level "
    "'cta', which is not an effective level of module 'c' (available: none) (bound to 'y') (no "
    "module of its owner chain declares topologies: declare them, e.g. on the root)"
)


@pytest.mark.parametrize("path", ["c.h", "c"])
def test_a_mesh_no_owner_declares_is_one_refusal_for_select_and_tf_select(
    tmp_path: Path, path: str
) -> None:
    root = parse_module(MESH_TREE)
    before = str(root)
    if path == "c.h":  # select of a child answers the node itself, in its tree
        with pytest.raises(VerifyError) as refused:
            select(root, path)
        assert str(refused.value) == REFUSAL.format(path)
    assert str(root) == before  # the tree is as it was
    source = tmp_path / "mesh.mlir"
    source.write_text(MESH_TREE)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert tf_opt([str(source), "-p", f"tf-select{{path={path}}}"]) == 1
    assert err.getvalue().splitlines()[0] == (
        f"{source}:1:1: error: pass 'tf-select' failed: {REFUSAL.format(path)}"
    )


def test_the_same_mesh_under_declared_topologies_is_selected_and_verifies() -> None:
    declared = MESH_TREE.replace(
        '#tf.target<"h100">', '#tf.target<"h100"> topologies [#tf.topology<"cta", 4>]', 1
    )
    selected = select(parse_module(declared), "c.h")
    selected.verify()
    assert [level.name for level in selected.effective_topologies()] == ["cta"]


LAYERS = f"""tf.module @root target #tf.target<"h100"> topologies [] {{
{identity("step", "neg")}
tf.module @"layers.0" {{
tf.module @attn {{
{identity("f", "exp")}
}}
}}
tf.module @"layers.1" {{
tf.module @attn {{
{identity("f", "abs")}
}}
}}
}}
"""


def test_a_dotted_path_reaches_into_a_layer_list(tmp_path: Path) -> None:
    root = parse_module(LAYERS)
    assert select(root, "layers.1.attn").attached_name == "attn"
    assert select(root, "layers.1") is not select(root, "layers.0")
    for path, kind in [("layers.0.attn.f", "exp"), ("layers.1.attn.f", "abs")]:
        selected = select(root, path)
        assert selected.entry == "f" and f"kind = {kind}" in str(selected), path
        symbol = '@"layers.{}"::@attn::@f'.format(path.split(".")[1])
        assert str(selected) == str(select(root, symbol))
        piped = run_passes(parse_module(LAYERS), f"tf-select{{path={path}}}")
        assert f"kind = {kind}" in str(piped)
    source = tmp_path / "m.mlir"
    source.write_text(LAYERS)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert tf_run([str(source), "--function", "layers.1.attn.f"]) == 0
    with pytest.raises(KeyError, match="'layers' names no child module of <root>"):
        select(root, "layers.2.attn")


def test_a_dotted_path_two_children_answer_is_refused(tmp_path: Path) -> None:
    extra = 'tf.module @layers {\ntf.module @"0" {}\n}\ntf.module @"layers.1" {'
    both = LAYERS.replace('tf.module @"layers.1" {', extra)
    root = parse_module(both)
    ambiguous = "ambiguous: children 'layers' and 'layers.0' of module 'root' both answer it"
    with pytest.raises(KeyError) as refused:
        select(root, "layers.0.attn")
    assert ambiguous in refused.value.args[0]
    assert select(root, '@"layers.0"::@attn').attached_name == "attn"  # the symbol reference
    assert select(root, '@layers::@"0"').attached_name == "0"
    with pytest.raises(KeyError, match="ambiguous"):  # a prefix of it names 'layers'
        select(root, "layers.1.attn")
    assert "(the one child: @layers.0)" in refused.value.args[0]
    source = tmp_path / "m.mlir"
    source.write_text(both)
    err = io.StringIO()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        assert tf_run([str(source), "--function", "layers.0.attn.f"]) == 1
    assert ambiguous in err.getvalue()
