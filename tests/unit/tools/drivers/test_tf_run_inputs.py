"""tf-run's inputs: a value of another dtype than its parameter's is converted only when every
element is exact in the parameter's dtype, else refused in one line naming both dtypes and the
first element that does not fit; numpy's warnings never reach stderr."""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tilefoundry.tools.drivers.tf_run import main

EXACT = "(tf-run converts an input's dtype only when every element is exact)"


def identity(tmp_path: Path, type: str) -> Path:
    path = tmp_path / "f.mlir"
    path.write_text(f"hir.func @f(%x: {type}) -> {type} {{\n  hir.return %x : {type}\n}}\n")
    return path


def run(tmp_path: Path, type: str, value: object) -> tuple[int, str, str, object]:
    """Run the identity of `type` on `value` (saved as given): the exit code, stdout, stderr
    and the result written back."""
    np.save(tmp_path / "x.npy", value)
    out, err = io.StringIO(), io.StringIO()
    args = [identity(tmp_path, type), "--input", f"x={tmp_path / 'x.npy'}"]
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in [*args, "--output", tmp_path / "y.npy"]])
    result = np.load(tmp_path / "y.npy") if code == 0 else None
    (tmp_path / "y.npy").unlink(missing_ok=True)
    return code, out.getvalue(), err.getvalue(), result


@pytest.mark.parametrize(
    ("type", "value", "message"),
    [
        (
            "tensor<4xi8>",
            np.array([1000, 1, 2, 3]),
            "input 'x' (int64) holds 1000 at [0], which i8 cannot hold exactly: tensor<4xi8> "
            f"takes int8 values {EXACT}",
        ),
        (
            "tensor<2xf16>",
            np.array([1.0, 1e10]),
            "input 'x' (float64) holds 10000000000.0 at [1], which f16 cannot hold exactly: "
            f"tensor<2xf16> takes float16 values {EXACT}",
        ),
        (
            "tensor<2xf32>",
            np.array([0.5, 0.1]),
            "input 'x' (float64) holds 0.1 at [1], which f32 cannot hold exactly",
        ),
        ("tensor<2xi32>", np.array([2.0, 1.5]), "input 'x' (float64) holds 1.5 at [1]"),
        ("tensor<2xi32>", np.array([np.nan, 1.0]), "input 'x' (float64) holds nan at [0]"),
        (
            "tensor<2xi64>",
            np.array([2**64 - 1, 0], np.uint64),
            "input 'x' (uint64) holds 18446744073709551615 at [0], which i64 cannot",
        ),
        ("tensor<2x2xi1>", np.array([[0, 1], [2, 0]]), "input 'x' (int64) holds 2 at [1, 0]"),
        (
            "tensor<2xbf16>",
            np.array([1.0, 0.1], np.float32),
            "input 'x' (float32) holds 0.10000000149011612 at [1], which bf16 cannot hold "
            f"exactly: tensor<2xbf16> takes bf16 (float32) values {EXACT}",
        ),
        (
            "tensor<2xf32>",
            np.array([1 + 1j, 0]),
            "input 'x' (complex128) is not a bool, integer or float array: tensor<2xf32> takes "
            "float32 values",
        ),
    ],
)
def test_an_input_that_its_dtype_cannot_hold_is_refused_naming_both(
    tmp_path: Path, type: str, value: object, message: str
) -> None:
    code, out, err, _ = run(tmp_path, type, value)
    assert (code, out) == (1, "")
    assert err.startswith(f"tf-run: error: {message}") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    ("type", "value", "expected"),
    [
        ("tensor<4xi8>", np.array([100, -128, 2, 127]), np.array([100, -128, 2, 127], np.int8)),
        ("tensor<2xf16>", np.array([0.5, -65504.0]), np.array([0.5, -65504.0], np.float16)),
        ("tensor<2xf32>", np.array([np.inf, -0.0]), np.array([np.inf, -0.0], np.float32)),
        ("tensor<2xf32>", np.array([3, 2**24]), np.array([3, 2**24], np.float32)),
        ("tensor<2xi32>", np.array([2.0, -7.0]), np.array([2, -7], np.int32)),
        ("tensor<2xi1>", np.array([1, 0]), np.array([True, False])),
        ("tensor<2xbf16>", np.array([1.0, 0.5]), np.array([1.0, 0.5], np.float32)),
    ],
)
def test_an_input_is_converted_when_every_element_is_exact(
    tmp_path: Path, type: str, value: object, expected: np.ndarray
) -> None:
    code, _, err, result = run(tmp_path, type, value)
    assert (code, err) == (0, "")
    assert isinstance(result, np.ndarray) and result.dtype == expected.dtype
    np.testing.assert_array_equal(result, expected)
    assert np.signbit(result).tolist() == np.signbit(expected).tolist()


def test_a_nan_stays_a_nan(tmp_path: Path) -> None:
    code, _, _, result = run(tmp_path, "tensor<1xf16>", np.array([np.nan]))
    assert code == 0 and isinstance(result, np.ndarray) and np.isnan(result).all()


def test_a_tuple_s_fields_are_each_checked(tmp_path: Path) -> None:
    type = "tuple<tensor<2xi32>, tensor<2xi1>>"
    path = identity(tmp_path, type)
    np.savez(tmp_path / "good.npz", np.array([1, 2]), np.array([True, False]))
    np.savez(tmp_path / "bad.npz", np.array([1, 2**40]), np.array([True, False]))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main([str(path), "--input", f"x={tmp_path / 'good.npz'}"]) == 0
        assert main([str(path), "--input", f"x={tmp_path / 'bad.npz'}"]) == 1
    assert "-> (array[2] int32, array[2] bool)" in out.getvalue()
    assert err.getvalue().startswith(
        "tf-run: error: input 'x' field 0 (int64) holds 1099511627776 at [1], which i32 cannot"
    )


def test_a_random_bf16_argument_holds_bf16_values(tmp_path: Path) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [str(identity(tmp_path, "tensor<64xbf16>")), "--output", str(tmp_path / "y.npy")]
        )
    assert code == 0
    bits = np.load(tmp_path / "y.npy").view(np.uint32)
    assert (bits & 0xFFFF).tolist() == [0] * 64 and len(set(bits.tolist())) > 8


def test_no_numpy_warning_reaches_stderr(tmp_path: Path) -> None:
    # A conversion that overflows, and a run that overflows, in a process that shows warnings.
    np.save(tmp_path / "x.npy", np.array([1e10, 6e4]))
    np.save(tmp_path / "h.npy", np.array([6e4, 0.0], np.float16))
    square = tmp_path / "square.mlir"
    t = "tensor<2xf16>"
    square.write_text(
        f"hir.func @f(%x: {t}) -> {t} {{\n"
        f"  %y = tf.call tf.math.binary<kind = mul>(%x, %x) : ({t}, {t}) -> {t}\n"
        f"  %z = tf.call tf.math.binary<kind = div>(%y, %x) : ({t}, {t}) -> {t}\n"
        f"  hir.return %z : {t}\n}}\n"
    )
    script = Path(sys.executable).parent / "tf-run"
    env = {"PYTHONWARNINGS": "default"}
    refused = subprocess.run(
        [str(script), str(square), "--input", f"x={tmp_path / 'x.npy'}"],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard only (a loaded machine is slow, not hung)
        env=env,
    )
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1, refused.stderr
    ran = subprocess.run(
        [str(script), str(square), "--input", f"x={tmp_path / 'h.npy'}"],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert (ran.returncode, ran.stderr) == (0, "")
    assert "[inf nan]" in ran.stdout
