"""Files generated from the dialects (`make dialects`): written when stale, or only checked."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

__all__ = ["generate_main"]


def generate_main(
    prog: str,
    description: str,
    default_out: Path,
    files: Callable[[Path], Iterable[tuple[Path, str]]],
    argv: Sequence[str] | None,
) -> int:
    """The command line of a generator: `--out DIR` (default `default_out`) and `--check` (exit 1
    naming the stale files instead of writing them). `files(out)` gives each path and its text."""
    parser = argparse.ArgumentParser(prog=prog, description=description)
    parser.add_argument("--out", default=str(default_out), help="the output folder")
    parser.add_argument("--check", action="store_true", help="exit 1 when a file is stale")
    args = parser.parse_args(argv)
    out = Path(args.out)
    stale = []
    for path, text in files(out):
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(str(path))
        if not args.check:
            out.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if args.check and stale:
        print(f"stale (run `make dialects`): {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0
