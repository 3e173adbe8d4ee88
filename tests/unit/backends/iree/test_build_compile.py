"""`tilefoundry.compile(..., backend="iree")`: the compiled module has the native one's surface
(functions, child modules, bindings, a bare call runs the entry), buffers are written in place,
dynamic dims and dispatch are decided at run time, arguments are refused with the interpreter's
text; the examples against the interpreter; the artifact cache."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry.backends.iree.build import build_vmfb
from tilefoundry.backends.iree.toolchain import IreeFlags
from tilefoundry.backends.native.cache import ArtifactCache
from tilefoundry.backends.native.toolchain import StageError
from tilefoundry.codegen.emitter import emit_tree
from tilefoundry.support.diagnostics import ExecutionError

ROOT = Path(__file__).parents[4]
KERNEL = tf.parse_module((ROOT / "examples" / "kernel.mlir").read_text(), "kernel.mlir")
DECODER = tf.parse_module((ROOT / "examples" / "decoder.mlir").read_text(), "decoder.mlir")


def weights(module: tf.Module, seed: int = 0) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    return {
        name: rng.standard_normal([int(d) for d in type.shape]).astype(np.float32) * 0.3
        for name, type in module.weights.items()
    }


@pytest.fixture(scope="module")
def kernel() -> tf.CompiledModule:
    return tf.compile(KERNEL, backend="iree")


@pytest.fixture(scope="module")
def decoder() -> tf.CompiledModule:
    return tf.compile(DECODER, weights(DECODER), backend="iree")


@pytest.mark.parametrize("rows", [1, 4, 16, 17, 256])
def test_the_kernel_dispatch_and_buffers_match_the_interpreter(kernel: Any, rows: int) -> None:
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 8)).astype(np.float32)
    gain = rng.standard_normal(8).astype(np.float32)
    out, expected = np.zeros((rows, 8), np.float32), np.zeros((rows, 8), np.float32)
    assert kernel(x, gain, out) is None  # the entry, scale_rows: effect only
    KERNEL.scale_rows(x, gain, expected)
    assert out.tobytes() == expected.tobytes()


def test_a_buffer_is_written_in_place_even_when_it_is_a_strided_view(kernel: Any) -> None:
    acc = np.zeros((2, 8), np.float32)
    x = np.arange(8, dtype=np.float32)
    view = acc[1]
    kernel.accumulate(view, x)
    kernel.accumulate(view, x)
    assert (acc[1] == 2 * x).all() and not acc[0].any()


@pytest.mark.parametrize(
    "name, args",
    [
        ("scale_rows", (np.zeros((300, 8), np.float32), np.zeros(8, np.float32), np.zeros((300, 8), np.float32))),
        ("scale_rows", (np.zeros((4, 8), np.float32), np.zeros(8, np.float32))),
        ("accumulate", (np.zeros(8, np.float64), np.zeros(8, np.float32))),
    ],
)  # fmt: skip
def test_arguments_are_refused_as_the_interpreter_refuses_them(
    kernel: Any, name: str, args: tuple[Any, ...]
) -> None:
    with pytest.raises(ExecutionError) as compiled:
        getattr(kernel, name)(*args)
    with pytest.raises(ExecutionError) as interpreted:
        getattr(KERNEL, name)(*args)
    assert str(compiled.value) == str(interpreted.value)


def test_the_decoder_matches_the_interpreter(decoder: Any) -> None:
    """Within the float tolerance the native backend's decoder test states (IREE's exp in
    softmax is its own, `test_bounds.py`)."""
    bound = tf.LoadedModule(DECODER, weights(DECODER))
    for seq in (1, 5, 64):
        x = np.random.default_rng(seq).standard_normal((seq, 16)).astype(np.float32)
        expected = bound.step(x)
        got = decoder.step(x)
        assert got.dtype == expected.dtype and got.shape == expected.shape
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)
        np.testing.assert_allclose(decoder(x), expected, rtol=2e-5, atol=2e-6)  # the entry


def test_a_child_module_takes_every_param(decoder: Any) -> None:
    bound = tf.LoadedModule(DECODER, weights(DECODER))
    x = np.random.default_rng(3).standard_normal((3, 16)).astype(np.float32)
    named = weights(DECODER)
    names = ["norm1", "wq", "wk", "wv", "wo", "norm2", "w_up", "w_down"]
    block = [named[f"layer2.{n}"] for n in names]
    layer = decoder.layer2
    assert isinstance(layer, tf.CompiledModule)
    np.testing.assert_allclose(
        layer.block(x, *block), bound.module.layer2.block(x, *block), rtol=2e-5, atol=2e-6
    )


def test_an_index_out_of_range_is_the_interpreters_error() -> None:
    module = tf.parse_module(
        """tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<8xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
    %y = tir.let tf.call tf.tensor.gather<axis = 0>(%x, %i) : (tensor<8xf32>, tensor<2xi64>) -> tensor<2xf32>
    tir.return %y : tensor<2xf32>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module, backend="iree")
    x = np.arange(8, dtype=np.float32)
    assert compiled.f(x, np.int64([7, -8])).tolist() == [7.0, 0.0]
    with pytest.raises(ExecutionError) as refused:
        compiled.f(x, np.int64([1, 9]))
    with pytest.raises(ExecutionError) as interpreted:
        module.f(x, np.int64([1, 9]))
    assert str(refused.value) == str(interpreted.value)


def test_bf16_and_bool_cross_the_boundary() -> None:
    module = tf.parse_module(
        """tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<4xbf16>, %b: !tf.buffer<4xbf16>) -> tensor<4xi1> {
    %y = tir.let tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xbf16>
    tir.evaluate tf.call tf.memory.copy(%b, %y) : (!tf.buffer<4xbf16>, tensor<4xbf16>) -> ()
    %z = tir.let tf.call tf.math.binary<kind = cmp_gt>(%y, %x) : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
    tir.return %z : tensor<4xi1>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module, backend="iree")
    x = np.float32([1.5, -2.0, 0.0, 3.0e38])
    out, expected = np.zeros(4, np.float32), np.zeros(4, np.float32)
    got = compiled.f(x, out)
    assert got.dtype == np.bool_ and got.tolist() == module.f(x, expected).tolist()
    assert out.tobytes() == expected.tobytes()  # bf16 held in float32, +inf past the range


def test_the_cache_reuses_an_artifact_and_keys_the_flags(tmp_path: Path) -> None:
    cache = ArtifactCache(tmp_path, suffix=".vmfb")
    text = emit_tree(KERNEL.module_op, by_value=True).text
    first, path = build_vmfb(text, cache=cache)
    again, same = build_vmfb(text, cache=cache)
    assert same == path and again == first and path.suffix == ".vmfb"
    flags = IreeFlags(flags=(*IreeFlags().flags, "--iree-opt-level=O1"))
    _, other = build_vmfb(text, cache=cache, flags=flags)
    assert other != path and len(list(tmp_path.glob("*.vmfb"))) == 2


def test_dump_keeps_the_input_the_module_and_the_phases(tmp_path: Path) -> None:
    compiled = tf.compile(KERNEL, backend="iree", dump=tmp_path)
    assert (tmp_path / "module.mlir").read_text().startswith("module {")
    assert (tmp_path / "module.vmfb").stat().st_size > 0
    assert any((tmp_path / "phases").iterdir())
    assert repr(compiled).endswith(".vmfb)>")


def test_a_failing_compile_is_one_line_naming_the_stage_and_the_kept_input(
    tmp_path: Path,
) -> None:
    text = "module {\n  func.func @f() {\n    %x = arith.constant 1 : i32\n    func.return %x : i32\n  }\n}\n"
    with pytest.raises(StageError) as failed:
        build_vmfb(text, cache=ArtifactCache(tmp_path, suffix=".vmfb"))
    message = str(failed.value)
    assert message.startswith("iree backend: stage 'compile' (iree-compile) failed: ")
    assert "error:" in message and "\n" not in message
    kept = Path(message.rsplit("(input kept: ", 1)[1].rstrip(")"))
    assert kept.read_text() == text


def test_bound_weights_are_checked_once_then_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on the native backend: a weight is checked when bound; each call then checks only the
    free arguments, and passes the weight's input (on the device) as it is."""
    from tilefoundry.interpreter.evaluate import check_argument

    module = tf.parse_module(
        """
tf.module @m entry @f {
  hir.func @f(%x: tensor<3xf32>, %w: tensor<3xbf16> {const}) -> tensor<3xf32> {
    %c = tf.call tf.math.cast<dtype = f32>(%w) : (tensor<3xbf16>) -> tensor<3xf32>
    %y = tf.call tf.math.binary<kind = mul>(%x, %c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
    hir.return %y : tensor<3xf32>
  }
}
""",
        "m.mlir",
    )
    w = np.array([1.00390625, -2.5, 3.0], np.float32)  # the first is bf16's 1.0 once bound
    bound = tf.compile(module, {"w": w}, backend="iree")
    x = np.array([1, 2, 3], np.float32)
    assert bound.f(x).tobytes() == module.f(x, w).tobytes()  # the runner made: `w` trusted
    checked: list[str] = []

    def counting(name: str, *rest: Any) -> Any:
        checked.append(name)
        return check_argument(name, *rest)

    monkeypatch.setattr("tilefoundry.backends.native.abi.check_argument", counting)
    for _ in range(3):
        assert bound.f(x).tobytes() == module.f(x, w).tobytes()
    assert checked == ["x", "x", "x"]
    y = np.array([4, 5, 6], np.float32)
    assert bound.f(y).tobytes() == module.f(y, w).tobytes()  # a new free argument, checked
    assert checked == ["x", "x", "x", "x"]  # the free parameter's name, whatever the array


def test_a_result_is_a_view_that_keeps_its_buffer_alive() -> None:
    """A result is a view of IREE's result buffer, not a copy, and the view holds the buffer: it
    stays what it was after the call's runtime objects are gone and later calls have run, and no
    two calls' results share memory (each call's results are buffers of their own). (A view
    that did not hold the buffer read freed memory on `local-sync`: the f16 softmax bound case
    gave zeros and NaNs; docs/decisions.md.)"""
    import gc

    from tilefoundry.backends.iree.abi import _Mapped
    from tilefoundry.backends.iree.build import HOST_DRIVER

    assert HOST_DRIVER == "local-sync"
    module = tf.parse_module(
        """
tf.module @m entry @f {
  hir.func @f(%x: tensor<65536xf16>) -> tensor<65536xf16> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<65536xf16>, tensor<65536xf16>) -> tensor<65536xf16>
    hir.return %y : tensor<65536xf16>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module, backend="iree")
    inputs = [np.full(65536, k, np.float16) for k in range(1, 9)]
    results = [compiled.f(x) for x in inputs]
    gc.collect()
    for _ in range(4):
        compiled.f(np.zeros(65536, np.float16))
    for x, result in zip(inputs, results, strict=True):
        assert isinstance(result.base, _Mapped)  # no copy: IREE's memory, held
        assert result.tobytes() == (x + x).tobytes()
        assert not np.shares_memory(result, x)
    for first, result in enumerate(results):
        assert not any(np.shares_memory(result, other) for other in results[first + 1 :])
    results[0][:] = 7  # the caller's: writing it changes no other result, and no later call
    assert results[1].tobytes() == (inputs[1] + inputs[1]).tobytes()
    assert compiled.f(inputs[0]).tobytes() == (inputs[0] + inputs[0]).tobytes()


def test_a_result_never_shares_memory_with_an_argument_or_another_result() -> None:
    """IREE returns a parameter returned as it is in the argument's own memory, and one value
    returned twice as one buffer: those results are copied (the caller owns each result, and
    an input is the caller's array, passed without a copy when IREE can take it)."""
    module = tf.parse_module(
        """
tf.module @m entry @f {
  hir.func @f(%x: tensor<4096xf32>) -> tuple<tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>> {
    %y = tf.call tf.math.binary<kind = add>(%x, %x) : (tensor<4096xf32>, tensor<4096xf32>) -> tensor<4096xf32>
    %t = tf.tuple %x, %y, %y : tuple<tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>>
    hir.return %t : tuple<tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>>
  }
}
""",
        "m.mlir",
    )
    compiled = tf.compile(module, backend="iree")
    room = np.arange(2 * 4096 + 32, dtype=np.float32)  # inputs IREE takes (aligned) or not
    start = (-room.ctypes.data % 64) // 4
    aligned, misaligned = room[start : start + 4096], room[start + 4097 : start + 8193]
    for x in (aligned, misaligned, room[::-1][:4096]):
        before = x.copy()
        same, y, again = compiled.f(x)
        assert x.tobytes() == before.tobytes()  # IREE did not write its input
        assert same.tobytes() == x.tobytes() and not np.shares_memory(same, x)
        assert y.tobytes() == again.tobytes() == (x + x).tobytes()
        assert not np.shares_memory(y, again)
        compiled.f(-x)  # a later call (the copy of a misaligned input reuses its memory)
        assert same.tobytes() == before.tobytes() and y.tobytes() == (before + before).tobytes()


MATMUL = """
tf.module @m entry @mm {{
  hir.func @mm(%a: {t}, %b: tensor<512x256xf32>) -> {u} {{
    %y = tf.call tf.linalg.matmul(%a, %b) : ({t}, tensor<512x256xf32>) -> {u}
    hir.return %y : {u}
  }}
}}
"""


def test_an_input_is_passed_without_a_copy_when_iree_can_take_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """IREE takes host memory that is C-contiguous, writable and 64-byte aligned as it is (the
    caller's array, not the read-only view the argument check returns); any other input is
    copied once to memory that is (as the runtime's own conversion would)."""
    from tilefoundry.backends.iree.abi import ALIGNMENT, IreeFunction, _aligned

    compiled = tf.compile(
        tf.parse_module(MATMUL.format(t="tensor<4x512xf32>", u="tensor<4x256xf32>"), "mm.mlir"),
        backend="iree",
    )
    imported: list[Any] = []
    real = IreeFunction._view
    monkeypatch.setattr(
        IreeFunction, "_view", lambda self, data: real(self, imported.append(data) or data)
    )
    room = np.ones(4 * 512 + 256 * 512 + 32, np.float32)
    start = (-room.ctypes.data % ALIGNMENT) // 4
    a = room[start : start + 4 * 512].reshape(4, 512)
    b = room[start + 4 * 512 + 1 : start + 4 * 512 + 1 + 512 * 256].reshape(512, 256)
    assert compiled.mm(a, b).tolist() == [[512.0] * 256] * 4
    assert np.shares_memory(imported[0], a) and not np.shares_memory(imported[1], b)
    compiled.mm(a, b)  # the misaligned one's copy is made in the same memory, call after call
    assert np.shares_memory(imported[1], imported[3]) and imported[3].ctypes.data % ALIGNMENT == 0

    room = np.empty(1024 + 16, np.float32)
    start = (-room.ctypes.data % ALIGNMENT) // 4
    aligned = room[start : start + 1024]
    assert _aligned(aligned) is aligned
    readonly = aligned.view()
    readonly.flags.writeable = False
    for other in (room[start + 1 : start + 1025], aligned[::2], readonly):
        copy = _aligned(other)
        assert copy.ctypes.data % ALIGNMENT == 0 and copy.flags.c_contiguous
        assert copy.tobytes() == other.tobytes() and not np.shares_memory(copy, other)


DYNAMIC_MATMUL = tf.parse_module(
    MATMUL.format(
        t="tensor<?x512xf32, #tf.dims<n: 1 to 4097>>", u="tensor<?x256xf32, #tf.dims<n: 1 to 4097>>"
    ),
    "mm.mlir",
)


def test_large_matmuls_are_data_tiled_and_small_ones_are_not() -> None:
    """A module with a matmul operand of 2^16 elements or more is compiled with data tiling
    (`IreeFlags.for_module`): its pack, mmt4d and unpack dispatches are worth it there; the
    decoder's and the kernel's small matmuls keep the default, three fewer dispatches each."""
    from tilefoundry.backends.iree.toolchain import IREE_FLAGS, largest_matmul_operand

    text = emit_tree(DYNAMIC_MATMUL.module_op, by_value=True).text
    assert largest_matmul_operand(text) == 512 * 256
    assert IREE_FLAGS.for_module(text) == (*IREE_FLAGS.flags, *IREE_FLAGS.data_tiling)
    text = emit_tree(DECODER.module_op, by_value=True).text
    assert 0 < largest_matmul_operand(text) < IREE_FLAGS.data_tiling_elements
    assert IREE_FLAGS.for_module(text) == IREE_FLAGS.flags
    text = emit_tree(KERNEL.module_op, by_value=True).text
    assert largest_matmul_operand(text) == 0 and IREE_FLAGS.for_module(text) == IREE_FLAGS.flags
    assert IreeFlags(data_tiling=()).fingerprint() != IREE_FLAGS.fingerprint()


@pytest.fixture(scope="module")
def data_tiled() -> tf.CompiledModule:
    return tf.compile(DYNAMIC_MATMUL, backend="iree")


@pytest.mark.parametrize("rows", [1, 17, 512])
def test_a_data_tiled_matmul_matches_the_interpreter(data_tiled: Any, rows: int) -> None:
    rng = np.random.default_rng(rows)
    a = rng.standard_normal((rows, 512)).astype(np.float32)
    b = rng.standard_normal((512, 256)).astype(np.float32)
    np.testing.assert_allclose(data_tiled.mm(a, b), DYNAMIC_MATMUL.mm(a, b), rtol=1e-4, atol=1e-4)
