"""The examples and the README keep working: the decoder example end to end, and the README's
Python snippet as written."""

from __future__ import annotations

import contextlib
import io
import os
import re
import runpy
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).parents[4]


def native_toolchain() -> None:
    """The native backend's tools (the demo compiles a layer with them): required where
    `TF_REQUIRE_NATIVE` is set, as in CI; else the test skips, saying which is missing."""
    from tilefoundry.backends.native.toolchain import ToolchainError, find_toolchain

    try:
        find_toolchain()
    except ToolchainError as err:
        if os.environ.get("TF_REQUIRE_NATIVE"):
            pytest.fail(f"TF_REQUIRE_NATIVE is set: {err}")
        pytest.skip(str(err))


def test_the_decoder_example_matches_its_numpy_reference() -> None:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import decoder
    finally:
        sys.path.remove(str(ROOT / "examples"))
    root = decoder.build_decoder(num_layers=2, d_model=16, d_ff=32, max_seq=64)
    assert [m.attached_name for m in root.modules] == ["layer0", "layer1"]
    assert root.resolve_target().arch == "sm_90a"
    weights = decoder.random_weights(root)
    x = np.random.default_rng(0).standard_normal((5, 16)).astype(np.float32)
    ordered = [weights[p.name] for p in root.entry_function().params if p.is_const]
    got = root.step(x, *ordered)
    np.testing.assert_allclose(got, decoder.reference(x, weights, 2), rtol=1e-4, atol=1e-5)


def test_the_decoder_example_script_succeeds() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            runpy.run_path(str(ROOT / "examples" / "decoder.py"), run_name="__main__")
        except SystemExit as exit:
            assert exit.code == 0, out.getvalue()
    assert "max abs error" in out.getvalue()


def test_the_readme_python_snippet_runs(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text()
    (snippet,) = re.findall(r"```python\n(.*?)```", readme, re.S)
    path = tmp_path / "readme.py"  # the DSL reads its functions' source from a file
    path.write_text(snippet)
    with contextlib.redirect_stdout(io.StringIO()):
        runpy.run_path(str(path))


def test_the_demo_runs_its_pipelines_and_matches_numpy(tmp_path: Path) -> None:
    """`make demo`, smaller: the model analysis table, the kernel pipeline and the kernel
    compiled natively, checked against numpy and the interpreter by the demo itself."""
    import subprocess

    native_toolchain()

    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}")
    args = ["--layers", "2", "--seq", "4", "--layer", "1", "--out", str(tmp_path)]
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo.py"), *args],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "layer1.mlp" in run.stdout and "roofline time" in run.stdout
    for row in ("interpreter: max abs error vs numpy", "native: max abs error vs numpy"):
        assert f"layer1 kernel, {row}" in run.stdout
    assert "layer1 kernel, native: max abs error vs the interpreter" in run.stdout
    assert "layer1 time per call: interpreter" in run.stdout and "native" in run.stdout
    assert "MISMATCH" not in run.stdout
    stages = ["module.mlir", "module.llvm.mlir", "module.ll", "module.opt.ll", "module.o"]
    assert all((tmp_path / "native" / name).stat().st_size > 0 for name in [*stages, "module.so"])
    plot = ET.fromstring((tmp_path / "roofline.svg").read_text())
    paths = {c.get("data-path") for c in plot.iter("{http://www.w3.org/2000/svg}circle")}
    assert paths == {
        "step",
        *(f"layer{i}.{f}" for i in (0, 1) for f in ("block", "attention", "mlp")),
    }


def test_the_mlp_example_prints_self_and_inclusive_costs() -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert runpy.run_path(str(ROOT / "examples" / "mlp.py"))["main"]() == 0
    rows = {line.split()[0]: line.split() for line in out.getvalue().splitlines()[3:]}
    assert rows["forward"][3:5] == ["3,145,728", "10,485,760"]
    assert rows["fc1.proj"][3:5] == ["3,670,016", "3,670,016"]
