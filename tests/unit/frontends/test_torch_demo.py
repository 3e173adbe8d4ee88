"""`make demo-torch` (examples/demo_torch.py) succeeds and prints what it promises."""

from __future__ import annotations

import contextlib
import io
import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import torch_models  # noqa: E402, F401  (torch is required under TF_REQUIRE_TORCH)

ROOT = Path(__file__).parents[3]


def test_the_torch_demo_succeeds() -> None:
    out = io.StringIO()
    argv = sys.argv
    sys.argv = ["demo_torch.py", "--layers", "2", "--tokens", "6"]
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
