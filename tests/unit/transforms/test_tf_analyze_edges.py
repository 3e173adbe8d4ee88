"""tf-analyze at its edges: the table and the plot are written all or none (a failure leaves
the previous files as they were), the plot is well-formed XML whatever a function is named, a
function with no target is refused, and from Python nothing is printed or changed."""

from __future__ import annotations

import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tilefoundry as tf
from tilefoundry.transforms import PassError

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "examples"))
from mlp import build_mlp  # noqa: E402

CONTROL = """tf.module @m target #tf.target<"h100"> {
  hir.func @"a\\01b"(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = neg>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
"""


def test_run_passes_prints_nothing(capfd: pytest.CaptureFixture[str]) -> None:
    analyzed = tf.run_passes(build_mlp(), "tf-analyze")
    out, err = capfd.readouterr()
    assert (out, err) == ("", "")
    assert "tf.cost" in tf.print_module(analyzed)


def test_analyze_leaves_its_input_as_it_was() -> None:
    module = build_mlp()
    before = tf.print_module(module)
    assert tf.analyze(module)["forward"].flops > 0
    assert tf.print_module(module) == before


def test_a_plot_that_fails_leaves_the_table_unwritten(tmp_path: Path) -> None:
    table, plot = tmp_path / "costs.txt", tmp_path / "plot.svg"
    plot.mkdir()  # a directory: the plot cannot be written
    with pytest.raises(PassError, match="cannot write the roofline plot"):
        tf.run_passes(build_mlp(), f"tf-analyze{{table={table} plot={plot}}}")
    assert not table.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["plot.svg"]  # no temporary left


def test_a_failed_write_keeps_the_previous_files(tmp_path: Path) -> None:
    """`ulimit -f 1` (512 bytes): the plot does not fit; the table and the plot of an earlier
    run stay whole (they were truncated), and the run fails in one line."""
    source = tmp_path / "mlp.mlir"
    source.write_text(tf.print_module(build_mlp()))
    table, plot = tmp_path / "costs.txt", tmp_path / "plot.svg"
    table.write_text("the previous table\n")
    plot.write_text("<svg/>\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TF_OPT_SERVER", None)
    command = (
        f'ulimit -f 1 && exec "$0" -m tilefoundry.tools.drivers.tf_opt {source} '
        f"-p 'tf-analyze{{table={table} plot={plot}}}' -o {tmp_path / 'out.mlir'}"
    )
    done = subprocess.run(
        ["bash", "-c", command, sys.executable], env=env, capture_output=True, text=True
    )
    assert done.returncode == 1
    assert "cannot write the roofline plot" in done.stderr and done.stderr.count("\n") <= 3
    assert table.read_text() == "the previous table\n"
    assert plot.read_text() == "<svg/>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["costs.txt", "mlp.mlir", "plot.svg"]


def test_the_plot_is_xml_whatever_the_names(tmp_path: Path) -> None:
    plot = tmp_path / "plot.svg"
    tf.run_passes(tf.parse_module(CONTROL), f'tf-analyze{{table="" plot={plot}}}')
    root = ET.fromstring(plot.read_text())  # it was malformed: a raw \x01
    (point,) = root.findall("{http://www.w3.org/2000/svg}circle[@class='point']")
    assert point.get("data-path") == "a\\x01b"


def test_a_function_in_no_module_is_refused() -> None:
    source = ROOT / "tests" / "filecheck" / "transforms" / "Inputs" / "bare-function.mlir"
    done = subprocess.run(
        [sys.executable, "-m", "tilefoundry.tools.drivers.tf_opt", str(source), "-p", "tf-analyze"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines()[0] == (
        f"{source}:1:1: error: pass 'tf-analyze' failed: function '@f' is in no tf.module, "
        "so it has no target to measure against; put it in one that declares its target "
        '(tf.module @m target "h100")'
    )
