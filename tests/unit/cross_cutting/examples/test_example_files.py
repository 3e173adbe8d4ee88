"""The example `.mlir` files: each parses, verifies and prints back as written; the decoder is
what `examples/decoder.py` builds and computes what its numpy reference does; the README's
tf-opt pipelines and tf-run run on them; the kernel's dispatch cases agree bit for bit."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.tools.drivers.tf_run import main as tf_run

ROOT = Path(__file__).parents[4]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
DECODER = ROOT / "examples" / "decoder.mlir"
KERNEL = ROOT / "examples" / "kernel.mlir"


def _decoder_module() -> tf.Module:
    sys.path.insert(0, str(ROOT / "examples"))
    try:
        import decoder
    finally:
        sys.path.remove(str(ROOT / "examples"))
    return decoder


def _without_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("//"))


def test_there_are_examples() -> None:
    assert DECODER in EXAMPLES and KERNEL in EXAMPLES


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_an_example_parses_verifies_and_prints_back_as_written(path: Path) -> None:
    text = path.read_text()
    module = tf.parse_module(text, str(path))
    module.verify()
    assert tf.print_module(module) == _without_comments(text)


def test_the_decoder_file_is_what_decoder_py_builds() -> None:
    """If this fails, regenerate the file: the comment lines at its top, then
    `tf.print_module(build_decoder(num_layers=4, d_model=16, d_ff=32))`."""
    built = _decoder_module().build_decoder(num_layers=4, d_model=16, d_ff=32)
    assert tf.print_module(built) == _without_comments(DECODER.read_text())


def test_the_decoder_file_computes_the_numpy_reference() -> None:
    decoder = _decoder_module()
    module = tf.parse_module(DECODER.read_text(), str(DECODER))
    weights = decoder.random_weights(module)
    x = np.random.default_rng(0).standard_normal((5, 16)).astype(np.float32)
    ordered = [weights[p.name] for p in module.entry_function().params if p.is_const]
    got = module.step(x, *ordered)
    np.testing.assert_allclose(got, decoder.reference(x, weights, 4), rtol=1e-4, atol=1e-5)


def _readme_pipelines() -> list[str]:
    readme = (ROOT / "README.md").read_text()
    return re.findall(r"^tf-opt model\.mlir -p '([^']*)'", readme, re.M)


def test_the_readme_pipelines_run_on_the_decoder(tmp_path: Path) -> None:
    pipelines = _readme_pipelines()
    assert len(pipelines) >= 2
    tf_opt = Path(sys.executable).parent / "tf-opt"
    env = dict(os.environ, PATH=f"{tf_opt.parent}{os.pathsep}{os.environ['PATH']}")
    for pipeline in pipelines:
        out = tmp_path / "out.mlir"
        run = subprocess.run(
            [str(tf_opt), str(DECODER), "-p", pipeline, "-o", str(out)],
            capture_output=True,
            text=True,
            env=env,
        )
        assert run.returncode == 0, (pipeline, run.stderr)
        result = tf.parse_module(out.read_text(), str(out))
        if "tf-select{path=layer2.block}" in pipeline:  # the kernel: one function, its cost
            assert [f.name for f in result.functions] == ["block"] and not result.modules
            assert "tf.cost" in out.read_text()


def _tf_run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tf_run(args)
    return code, out.getvalue(), err.getvalue()


def test_tf_run_runs_the_decoder_entry() -> None:
    code, out, err = _tf_run([str(DECODER), "--dim", "seq=4"])
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[1].startswith("  drawn at random (--seed 0): x, layer0.norm1, ")
    assert lines[2] == "  -> array[4, 16] float32"


@pytest.mark.parametrize("rows", [3, 16, 17, 40])
def test_tf_run_writes_the_kernel_s_buffer_the_same_in_both_cases(
    rows: int, tmp_path: Path
) -> None:
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 8)).astype(np.float32)
    gain = rng.standard_normal(8).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "g.npy", gain)
    out = tmp_path / "out.npy"
    code, text, err = _tf_run(
        [str(KERNEL), "--input", f"x={tmp_path / 'x.npy'}", "--input", f"gain={tmp_path / 'g.npy'}"]
        + ["--output", f"out={out}"]
    )
    assert (code, err) == (0, "")
    case = "@scale_small" if rows <= 16 else "@scale_large"
    assert text.splitlines()[1] == "  drawn at random (--seed 0): out"  # its initial contents
    assert case in text.splitlines()[2]
    np.testing.assert_array_equal(np.load(out), x * gain)


def test_tf_run_runs_the_kernel_s_accumulate(tmp_path: Path) -> None:
    acc = np.arange(8, dtype=np.float32)
    x = np.full(8, 0.5, np.float32)
    np.save(tmp_path / "acc.npy", acc)
    np.save(tmp_path / "x.npy", x)
    code, _, err = _tf_run(
        [str(KERNEL), "--function", "accumulate", "--input", f"acc={tmp_path / 'acc.npy'}"]
        + ["--input", f"x={tmp_path / 'x.npy'}", "--output", f"acc={tmp_path / 'after.npy'}"]
    )
    assert (code, err) == (0, "")
    np.testing.assert_array_equal(np.load(tmp_path / "after.npy"), acc + x)
