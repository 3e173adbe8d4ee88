"""tf-analyze's definitions and report: self and inclusive costs (a caller includes its
callees' FLOPs and bytes, once per call), the table it prints (the same as `analyze(...)
.table()`), where it goes, and the roofline plot; a tf.cost no pass leaves stale."""

from __future__ import annotations

import contextlib
import io
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function
from tilefoundry.tools.drivers.tf_opt import main as tf_opt
from tilefoundry.transforms import PassError

sys.path.insert(0, str(Path(__file__).parents[3] / "examples"))
from mlp import build_mlp  # noqa: E402

SVG = "{http://www.w3.org/2000/svg}"


def test_a_caller_includes_its_callees_bytes_and_flops() -> None:
    costs = tf.analyze(build_mlp())
    forward, fc1, fc2 = costs["forward"], costs["fc1.proj"], costs["fc2.proj"]
    # own: x, w1, w2 and the result at f32 (512x256, 256x1024, 1024x256, 512x256)
    assert forward.self_bytes == 4 * (2 * 512 * 256 + 2 * 256 * 1024) == 3_145_728
    assert fc1.self_bytes == 4 * (512 * 256 + 256 * 1024 + 512 * 1024) == 3_670_016
    assert forward.bytes == forward.self_bytes + fc1.bytes + fc2.bytes
    assert forward.self_flops == 512 * 1024  # the relu
    assert forward.flops == forward.self_flops + fc1.flops + fc2.flops
    for callee in (fc1, fc2):
        assert (callee.flops, callee.bytes) == (callee.self_flops, callee.self_bytes)
        assert forward.bytes >= callee.bytes and forward.flops >= callee.flops
    assert forward.intensity == forward.flops / forward.bytes


def test_a_function_called_twice_counts_its_callee_twice() -> None:
    x = tf.Var("x", tf.TensorType((8,), "f32"))
    inner = Function(name="inner", params=[x], body=ops.exp(x))
    y = tf.Var("y", tf.TensorType((8,), "f32"))
    outer = Function(name="outer", params=[y], body=tf.Call(inner, [tf.Call(inner, [y])]))
    module = tf.Module(name="m", functions=[outer, inner], target="h100", topologies=())
    costs = tf.analyze(module)
    assert costs["outer"].flops == 2 * costs["inner"].flops == 16
    assert costs["outer"].bytes == costs["outer"].self_bytes + 2 * costs["inner"].bytes


def _tf_opt(args: list[str], source: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tf_opt([str(source), *args])
    return code, out.getvalue(), err.getvalue()


def test_tf_analyze_prints_the_table_analyze_offers(tmp_path: Path) -> None:
    source = tmp_path / "mlp.mlir"
    source.write_text(tf.print_module(build_mlp()))
    code, _, err = _tf_opt(["-p", "tf-analyze"], source)
    assert code == 0
    table = tf.analyze(build_mlp()).table()
    assert err == table
    lines = table.splitlines()
    assert lines[0].startswith("tf-analyze on h100 (NVIDIA H100 SXM5 80GB)")
    assert lines[1].split() == [
        "function", "self", "FLOPs", "FLOPs", "self", "bytes", "bytes", "FLOP/B", "roofline",
        "time", "bound",
    ]  # fmt: skip
    assert lines[3].split() == [
        "forward", "524,288", "537,395,200", "3,145,728", "10,485,760", "51.25", "8.03", "us",
        "compute",
    ]  # fmt: skip
    assert [line.split()[0] for line in lines[3:]] == ["forward", "fc1.proj", "fc2.proj"]


def test_the_table_goes_to_a_file_or_nowhere(tmp_path: Path) -> None:
    source = tmp_path / "mlp.mlir"
    source.write_text(tf.print_module(build_mlp()))
    table = tmp_path / "costs.txt"
    code, out, err = _tf_opt(["-p", f"tf-analyze{{table={table}}}"], source)
    assert (code, err) == (0, "")
    assert table.read_text() == tf.analyze(build_mlp()).table()
    assert "tf.cost" in out
    code, _, err = _tf_opt(["-p", 'tf-analyze{table=""}'], source)
    assert (code, err) == (0, "")


def test_a_file_that_cannot_be_written_is_refused_and_nothing_recorded(tmp_path: Path) -> None:
    module = build_mlp()
    missing = tmp_path / "no" / "such" / "dir.svg"
    with pytest.raises(PassError, match="cannot write the roofline plot to '.*dir.svg'"):
        tf.run_passes(module, f'tf-analyze{{table="" plot={missing}}}')
    source = tmp_path / "mlp.mlir"
    source.write_text(tf.print_module(module))
    code, out, err = _tf_opt(["-p", f"tf-analyze{{table={tmp_path}}}"], source)
    assert code != 0 and out == ""
    assert "error: pass 'tf-analyze' failed: cannot write the table to" in err


def test_the_plot_has_a_labelled_point_per_function_instance(tmp_path: Path) -> None:
    plot = tmp_path / "roofline.svg"
    tf.run_passes(build_mlp(), f'tf-analyze{{table="" plot={plot}}}')
    root = ET.fromstring(plot.read_text())
    points = root.findall(f"{SVG}circle[@class='point']")
    assert sorted(p.get("data-path") for p in points) == ["fc1.proj", "fc2.proj", "forward"]
    labels = {t.text for t in root.findall(f"{SVG}text[@class='label']")}
    assert labels == {"forward", "fc1.proj (+1 alike)"}
    assert plot.read_text() == tf.analyze(build_mlp()).roofline_svg()


def test_a_function_with_no_flops_is_drawn_on_the_edge() -> None:
    x = tf.Var("x", tf.TensorType((8,), "f32"))
    f = Function(name="id", params=[x], body=x)
    module = tf.Module(name="m", functions=[f], target="h100", topologies=())
    root = ET.fromstring(tf.analyze(module).roofline_svg())
    (point,) = root.findall(f"{SVG}circle[@class='point']")
    assert point.get("fill") == "white"
    assert [t.text for t in root.findall(f"{SVG}text[@class='label']")] == ["id (no FLOPs)"]


def test_a_pass_that_changes_the_ir_drops_every_cost() -> None:
    x = tf.Var("x", tf.TensorType((4,), "f32"))
    f = Function(name="f", params=[x], body=ops.mul(x, tf.Constant([1.0] * 4)))
    module = tf.Module(name="m", functions=[f], target="h100", topologies=())
    analyzed = tf.run_passes(module, 'tf-analyze{table=""}')
    assert "tf.cost" in tf.print_module(analyzed)
    # cse changes nothing here: the costs stay; canonicalize removes `x * 1`: they go
    assert "tf.cost" in tf.print_module(tf.run_passes(analyzed, "cse"))
    assert "tf.cost" not in tf.print_module(tf.run_passes(analyzed, "canonicalize"))
    nested = tf.run_passes(analyzed, "tf.module(hir.func(canonicalize))")
    assert "tf.cost" not in tf.print_module(nested)


TWO_ROOTS = """
tf.module @a target #tf.target<"h100"> topologies [] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = tf.call tf.math.unary<kind = exp>(%x) : (tensor<4xf32>) -> tensor<4xf32>
    hir.return %y : tensor<4xf32>
  }
}
tf.module @b target #tf.target<"DEVICE"> topologies [] {
  hir.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    hir.return %x : tensor<4xf32>
  }
}
"""


def test_rows_of_several_roots_name_their_root(tmp_path: Path) -> None:
    source = tmp_path / "two.mlir"
    source.write_text(TWO_ROOTS.replace("DEVICE", "h100"))
    code, _, err = _tf_opt(["-p", "tf-analyze"], source)
    assert code == 0
    assert [line.split()[0] for line in err.splitlines()[3:]] == ["a:f", "b:f"]


def test_a_plot_of_functions_on_different_devices_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "two.mlir"
    source.write_text(TWO_ROOTS.replace("DEVICE", "a100"))
    plot = tmp_path / "roofline.svg"
    code, out, err = _tf_opt(["-p", f"tf-analyze{{plot={plot}}}"], source)
    assert code != 0 and out == "" and not plot.exists()
    assert (
        "pass 'tf-analyze' failed: plot draws one device's roofline, but the functions resolve "
        "a100, h100" in err
    )
    code, _, err = _tf_opt(["-p", "tf-analyze"], source)
    assert code == 0 and "h100 (NVIDIA H100 SXM5 80GB)" in err and "a100 (" in err
