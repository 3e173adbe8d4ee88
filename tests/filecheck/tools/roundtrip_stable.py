"""Check that both print forms of a file are fixed points, debug info included.

    custom(x) == custom(custom(x)) == custom(generic(x)) == custom(irdl(x))
    generic(x) == generic(generic(x))

(irdl: the IRDL form, `--print-irdl-generic`, which upstream MLIR verifies with `dialects/`)

each with --split-input-file --print-debuginfo, so that every location (all metadata) survives
the trip too. Runs tf-opt in-process; prints a unified diff and exits 1 on a mismatch.

    roundtrip_stable.py FILE [tf-opt flags for every run, e.g. --plugin custom_metadata]
"""

from __future__ import annotations

import contextlib
import difflib
import io
import os
import sys
import tempfile

from tilefoundry.tools.drivers.tf_opt import main as tf_opt

EXTRA = sys.argv[2:]


def run(text: str, *flags: str) -> str:
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as stream:
        stream.write(text)
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = tf_opt([stream.name, "--split-input-file", "--print-debuginfo", *EXTRA, *flags])
    finally:
        os.unlink(stream.name)
    if code != 0:
        sys.exit(f"tf-opt {' '.join(flags)} failed:\n{err.getvalue()}")
    return out.getvalue()


def same(what: str, expected: str, actual: str) -> bool:
    if expected == actual:
        return True
    diff = difflib.unified_diff(
        expected.splitlines(), actual.splitlines(), "expected", what, lineterm=""
    )
    print(f"{what} differs:\n" + "\n".join(diff))
    return False


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as stream:
        source = stream.read()
    custom = run(source)
    generic = run(source, "--print-op-generic")
    ok = same("custom(custom(x))", custom, run(custom))
    ok &= same("custom(generic(x))", custom, run(generic))
    ok &= same("custom(irdl(x))", custom, run(run(source, "--print-irdl-generic")))
    ok &= same("generic(generic(x))", generic, run(generic, "--print-op-generic"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
