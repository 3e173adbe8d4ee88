"""tf-tree: the module tree (targets, topologies, functions and their op counts), and
repr(Module) two levels deep."""

from __future__ import annotations

import contextlib
import io
import sys
from pathlib import Path

import tilefoundry as tf
from tilefoundry.tools.drivers.tf_tree import main, module_tree

ROOT = Path(__file__).parents[4]

TREE = """tf.module @root target #tf.target<"h100"> topologies [#tf.topology<"cta", 4>] entry @f {
  hir.func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<?xf32, #tf.dims<n: 1 to 9>>) -> tensor<?xf32, #tf.dims<n: 1 to 9>>
    hir.return %y : tensor<?xf32, #tf.dims<n: 1 to 9>>
  } variants {
    hir.variant [n: 1 to 4] (%x: tensor<?xf32, #tf.dims<n: 1 to 9>>) {
      hir.return %x : tensor<?xf32, #tf.dims<n: 1 to 9>>
    }
  }
  tf.module @child name "MLP" topologies [] {
    tir.prim_func @k(%b: !tf.buffer<4xf32>) -> () {
      %z = tir.let tf.call tf.memory.alloc<shape = [4], dtype = f32>() : () -> !tf.buffer<4xf32>
      tir.evaluate tf.call tf.memory.copy(%b, %z) : (!tf.buffer<4xf32>, !tf.buffer<4xf32>) -> ()
      tir.return
    }
    tf.module @"g c" {
      hir.func @g() -> () {
        hir.return
      }
    }
  }
  tf.module @empty {
  }
}
"""


def run(args: list[str], stdin: bytes = b"") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    saved = sys.stdin
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(args)
    finally:
        sys.stdin = saved
    return code, out.getvalue(), err.getvalue()


def test_the_tree_shows_targets_topologies_functions_and_op_counts() -> None:
    module = tf.parse_module(TREE, "tree.mlir")
    assert module_tree(module.module_op) == [
        "@root: target h100, topologies cta[4], entry @f",
        "  hir.func @f: 1 param, 4 ops, 1 variant",
        '  @child name "MLP": target h100 (inherited), topologies none',
        "    tir.prim_func @k: 1 param, 7 ops",
        '    @"g c": target h100 (inherited), topologies none (inherited)',
        "      hir.func @g: 0 params, 1 op",
        "  @empty: target h100 (inherited), topologies cta[4] (inherited)",
    ]


def test_depth_bounds_the_levels_shown() -> None:
    module = tf.parse_module(TREE, "tree.mlir")
    assert module_tree(module.module_op, depth=0) == [
        "@root: target h100, topologies cta[4], entry @f",
        "  ...",
    ]
    assert module_tree(module.module_op, depth=1)[2:] == [
        '  @child name "MLP": target h100 (inherited), topologies none',
        "    ...",
        "  @empty: target h100 (inherited), topologies cta[4] (inherited)",
    ]


def test_a_module_without_target_or_topologies_says_so() -> None:
    module = tf.parse_module("tf.module @m {\n}\n", "m.mlir")
    assert module_tree(module.module_op) == ["@m: no target, no topologies"]


def test_the_tool_reads_a_file_or_standard_input(tmp_path: Path) -> None:
    path = tmp_path / "tree.mlir"
    path.write_text(TREE)
    code, out, err = run([str(path)])
    assert (code, err) == (0, "")
    assert out.splitlines() == module_tree(tf.parse_module(TREE, "tree.mlir").module_op)
    assert run(["-"], TREE.encode()) == (code, out, err)
    assert run([], TREE.encode()) == (code, out, err)


def test_refusals_are_one_line(tmp_path: Path) -> None:
    code, out, err = run([str(tmp_path / "nope.mlir")])
    assert (code, out) == (1, "")
    assert err.startswith("tf-tree: error: cannot open input file") and err.count("\n") == 1
    code, _, err = run(["--depth", "x", str(tmp_path / "nope.mlir")])
    assert err == "tf-tree: error: --depth takes a number of levels (0, 1, ...), got 'x'\n"
    code, _, err = run(["-"], b"tf.module @m {\n  frob.nicate\n}\n")
    assert code == 1
    assert err.splitlines() == [
        "<stdin>:2:3: error: Operation frob.nicate is not registered",
        "  frob.nicate",
        "  ^",
    ]


def test_repr_of_a_module_shows_two_levels() -> None:
    module = tf.parse_module(TREE, "tree.mlir")
    assert repr(module) == "Module(root: f, child/(k, g c/(...)), empty/)"
    decoder = tf.parse_module((ROOT / "examples" / "decoder.mlir").read_text(), "decoder.mlir")
    assert repr(decoder) == (
        "Module(decoder: step, layer0/(block, attention, mlp), layer1/(block, attention, mlp), "
        "layer2/(block, attention, mlp), layer3/(block, attention, mlp))"
    )


def test_repr_shows_at_most_eight_members_a_level() -> None:
    funcs = "".join(f"  hir.func @f{i}() -> () {{\n    hir.return\n  }}\n" for i in range(11))
    module = tf.parse_module(f"tf.module @many {{\n{funcs}}}\n", "many.mlir")
    assert repr(module) == "Module(many: f0, f1, f2, f3, f4, f5, f6, f7, ... (3 more))"
