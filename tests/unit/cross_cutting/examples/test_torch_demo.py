"""`make demo-torch` (examples/demo_torch.py) succeeds and prints what it promises."""

from __future__ import annotations

import contextlib
import io
import os
import runpy
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "frontends" / "torch"))
import torch_models  # noqa: E402, F401  (torch is required under TF_REQUIRE_TORCH)

ROOT = Path(__file__).parents[4]


def test_the_torch_demo_succeeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _native_toolchain()
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path / "cache"))  # not the user's cache
    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["demo_torch.py", "--layers", "2", "--tokens", "6", "--out", str(tmp_path)]
    try:
        with contextlib.redirect_stdout(out):
            try:
                runpy.run_path(str(ROOT / "examples" / "demo_torch.py"), run_name="__main__")
            except SystemExit as exit:
                assert exit.code == 0, out.getvalue()
    finally:
        sys.argv = argv
    text = out.getvalue()
    assert "self_attn                 LlamaAttention" in text
    assert "q_proj" in text and "Linear" in text
    assert "LlamaDecoderLayer (1):" in text
    assert "same next tokens: True" in text
    # the layer and the model, interpreted and native, against PyTorch
    assert text.count("interpreter: max abs error vs PyTorch") == 2
    assert text.count("native: max abs error vs PyTorch") == 2
    assert "native: max abs error vs the interpreter" in text and "MISMATCH" not in text
    assert "layer 1 time per call: interpreter" in text and "model time per call" in text
    assert (tmp_path / "native-torch" / "module.so").stat().st_size > 0


def _native_toolchain() -> None:
    """The native backend's tools (the demo compiles with them): required where
    `TF_REQUIRE_NATIVE` is set, as in CI; else the test skips, saying which is missing."""
    from tilefoundry.backends.native.toolchain import ToolchainError, find_toolchain

    try:
        find_toolchain()
    except ToolchainError as err:
        if os.environ.get("TF_REQUIRE_NATIVE"):
            pytest.fail(f"TF_REQUIRE_NATIVE is set: {err}")
        pytest.skip(str(err))


def test_the_frontends_doc_example_runs() -> None:
    import re

    text = (ROOT / "docs" / "frontends.md").read_text()
    snippet = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    scope: dict[str, object] = {}
    exec(compile(snippet, "docs/frontends.md", "exec"), scope)
    assert scope["layer"].entry == "forward"  # type: ignore[attr-defined]
    assert scope["logits"].shape == (1, 8, 256)  # type: ignore[attr-defined]
