"""Every before/after example of docs/passes.md: the `// before` text, through the pipeline
named above it (`tf-opt -p ...`), prints as the `// after` text (both read back by tf-opt, so
the comparison is of IR, not of spelling)."""

from __future__ import annotations

import contextlib
import io
import re
import shlex
from pathlib import Path

import pytest

from tilefoundry.tools.drivers.tf_opt import main as tf_opt

DOC = Path(__file__).parents[4] / "docs" / "passes.md"
EXAMPLE = re.compile(
    r"`tf-opt (?P<args>[^`]+)`:\s*```mlir\n// before\n(?P<before>.*?)// after\n(?P<after>.*?)```",
    re.DOTALL,
)


def examples() -> list[tuple[list[str], str, str]]:
    found = [
        (shlex.split(m.group("args")), m.group("before"), m.group("after"))
        for m in EXAMPLE.finditer(DOC.read_text())
    ]
    assert len(found) >= 10, "docs/passes.md lost its examples"
    return found


def run(args: list[str], text: str, tmp_path: Path) -> str:
    path = tmp_path / "input.mlir"
    path.write_text(text)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = tf_opt([str(path), *args])
    assert code == 0, err.getvalue()
    return out.getvalue()


@pytest.mark.parametrize(("args", "before", "after"), examples(), ids=lambda v: str(v)[:40])
def test_the_example_is_what_the_pass_does(
    args: list[str], before: str, after: str, tmp_path: Path
) -> None:
    debuginfo = [a for a in args if a == "--print-debuginfo"]
    assert run(args, before, tmp_path) == run(debuginfo, after, tmp_path)


def test_every_pass_is_documented() -> None:
    from tilefoundry.transforms import PASSES

    text = DOC.read_text()
    for name in PASSES:
        assert f"### `{name}`" in text, f"docs/passes.md has no section for {name}"
