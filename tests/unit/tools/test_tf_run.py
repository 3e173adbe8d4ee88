"""tf-run: a function of a module, run on random inputs."""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from tilefoundry.tools.tf_run import main

MODULE = """tf.module @m entry @f {
  hir.func @f(%x: tensor<?x4xf32, #tf.dims<n: 1 to 64>>) -> tensor<?x4xf32, #tf.dims<n: 1 to 64>> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<?x4xf32, #tf.dims<n: 1 to 64>>) -> tensor<?x4xf32, #tf.dims<n: 1 to 64>>
    hir.return %y : tensor<?x4xf32, #tf.dims<n: 1 to 64>>
  }
  tf.module @c {
    hir.func @g(%t: tuple<tensor<2xi32>, tensor<2xi1>>) -> tuple<tensor<2xi32>, tensor<2xi1>> {
      hir.return %t : tuple<tensor<2xi32>, tensor<2xi1>>
    }
  }
}
"""


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def test_runs_the_entry_with_the_given_dim_sizes(tmp_path: Path) -> None:
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    code, out, err = run([str(path), "--dim", "n=7"])
    assert (code, err) == (0, "")
    assert out.splitlines() == ["f(x[7, 4])", out.splitlines()[1]]
    assert out.splitlines()[1].startswith("  -> array[7, 4] float32: sum ")


def test_runs_a_function_of_a_child_by_path(tmp_path: Path) -> None:
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    code, out, _ = run([str(path), "--function", "c.g"])
    assert code == 0
    assert "-> (array[2] int32: sum" in out and "array[2] bool" in out


def test_refusals_are_one_line(tmp_path: Path) -> None:
    path = tmp_path / "m.mlir"
    path.write_text(MODULE)
    for args, expected in [
        ([str(tmp_path / "nope.mlir")], "cannot open input file"),
        ([str(path), "--dim", "n"], "--dim takes NAME=SIZE"),
        ([str(path), "--dim", "n=99"], "outside n's envelope [1, 64)"),
        ([str(path), "--function", "zz.g"], "names no child module"),
    ]:
        code, _, err = run(args)
        assert code == 1, args
        assert err.startswith("tf-run: error:") and err.count("\n") == 1, err
        assert expected in err, err
