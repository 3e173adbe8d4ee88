"""The native backend's build: the stages' files (`dump=`), one diagnostic for a failing tool
(its stage and the kept input), a missing tool named with its package, and the artifact cache
(a changed input or flag builds anew; a hit runs the stored library; bounded; its location)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

from tilefoundry import parse_module
from tilefoundry.backends.native import toolchain
from tilefoundry.backends.native.build import build_library, compile_native
from tilefoundry.backends.native.cache import ArtifactCache, default_cache
from tilefoundry.backends.native.pipeline import NATIVE_PIPELINE
from tilefoundry.backends.native.toolchain import StageError, ToolchainError, find_toolchain
from tilefoundry.codegen.emitter import emit_tree

TEXT = """tf.module @m entry @f {
  tir.prim_func @f(%x: tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>> {
    %y = tir.let tf.call tf.math.binary<kind = mul>(%x, %x) : (tensor<?xf32, #tf.dims<n: 1 to 64>>, tensor<?xf32, #tf.dims<n: 1 to 64>>) -> tensor<?xf32, #tf.dims<n: 1 to 64>>
    tir.return %y : tensor<?xf32, #tf.dims<n: 1 to 64>>
  }
}
"""


def emitted(text: str = TEXT) -> str:
    return emit_tree(parse_module(text, "m.mlir").module_op).text


def test_dump_keeps_every_stages_file(tmp_path: Path) -> None:
    program = compile_native(parse_module(TEXT, "m.mlir").module_op, dump=tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == sorted(
        [
            "module.mlir",
            "schedule.mlir",
            "module.scheduled.mlir",
            "module.llvm.mlir",
            "module.ll",
            "module.opt.ll",
            "module.o",
            "module.so",
        ]
    )
    assert "llvm.func" in (tmp_path / "module.llvm.mlir").read_text()
    x = np.arange(5, dtype=np.float32)
    assert (program.function("f")(x) == x * x).all()


def test_a_failing_tool_is_one_diagnostic_naming_the_stage_and_the_kept_input(
    tmp_path: Path,
) -> None:
    broken = dataclasses.replace(NATIVE_PIPELINE, passes=NATIVE_PIPELINE.passes[:-2])
    cache = ArtifactCache(tmp_path / "cache")
    with pytest.raises(StageError) as caught:
        build_library(emitted(), cache=cache, pipeline=broken)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("native backend: stage 'translate' (mlir-translate-19) failed: ")
    kept = Path(message.rsplit("(input kept: ", 1)[1].rstrip(")"))
    assert kept.exists() and kept.parent == cache.directory / "failed"
    assert "llvm.func" in kept.read_text() and "unrealized_conversion_cast" in kept.read_text()


def test_a_missing_tool_is_one_line_naming_its_package(monkeypatch: pytest.MonkeyPatch) -> None:
    real = toolchain._which
    monkeypatch.setattr(toolchain, "_which", lambda tool: None if tool == "llc-19" else real(tool))
    with pytest.raises(
        ToolchainError,
        match=r"^the native backend needs llc-19, which is not installed: apt-get install llvm-19$",
    ):
        find_toolchain()


def test_the_cache_reuses_a_library_only_for_the_same_input_tools_and_flags(tmp_path: Path) -> None:
    cache = ArtifactCache(tmp_path)
    first = build_library(emitted(), cache=cache)
    again = build_library(emitted(), cache=cache)
    assert again == first  # a hit
    other_text = build_library(emitted(TEXT.replace("kind = mul", "kind = add")), cache=cache)
    other_flags = build_library(
        emitted(), cache=cache, pipeline=dataclasses.replace(NATIVE_PIPELINE, opt_flags=("-O2",))
    )
    assert len({first, other_text, other_flags}) == 3
    assert sorted(p.name for p in tmp_path.glob("*.so")) == sorted(
        p.name for p in (first, other_text, other_flags)
    )


def test_a_changed_tool_builds_anew(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = ArtifactCache(tmp_path)
    first = build_library(emitted(), cache=cache)
    monkeypatch.setattr(toolchain.Toolchain, "versions", lambda self: "another llc")
    assert build_library(emitted(), cache=cache) != first


def test_the_cache_is_bounded(tmp_path: Path) -> None:
    cache = ArtifactCache(tmp_path, max_bytes=1)  # room for one library: the newest
    first = build_library(emitted(), cache=cache)
    os.utime(first, (0, 0))
    second = build_library(emitted(TEXT.replace("kind = mul", "kind = sub")), cache=cache)
    assert not first.exists() and second.exists()


def test_the_cache_location(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path / "here"))
    monkeypatch.setenv("TF_CACHE_MAX_BYTES", "1000")
    cache = default_cache()
    assert cache is not None and cache.directory == tmp_path / "here" and cache.max_bytes == 1000
    monkeypatch.delenv("TF_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    cache = default_cache()
    assert cache is not None and cache.directory == tmp_path / "xdg" / "tilefoundry" / "native"
    monkeypatch.setenv("TF_CACHE_DIR", "")
    assert default_cache() is None


def test_without_a_cache_nothing_is_left_behind(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    program = compile_native(parse_module(TEXT, "m.mlir").module_op, cache=None)
    x = np.array([3.0], np.float32)
    assert program.function("f")(x) == 9.0
    assert list(tmp_path.iterdir()) == []
