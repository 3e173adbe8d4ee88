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


def test_the_frontends_doc_example_runs() -> None:
    import re

    text = (ROOT / "docs" / "frontends.md").read_text()
    snippet = re.findall(r"```python\n(.*?)```", text, re.S)[0]
    scope: dict[str, object] = {}
    exec(compile(snippet, "docs/frontends.md", "exec"), scope)
    assert scope["layer"].entry == "forward"  # type: ignore[attr-defined]
    assert scope["logits"].shape == (1, 8, 256)  # type: ignore[attr-defined]
