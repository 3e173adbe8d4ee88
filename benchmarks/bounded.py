"""Bounded work on adversarial inputs: each case once through `tf-opt` (one process), its wall
time and peak memory, and mlir-opt-19 on the same text where it reads it.

    python benchmarks/bounded.py        (tf-opt and mlir-opt-19 on PATH)

Cases: `tf-inline` on a call graph that doubles per level (30 levels, refused by max-ops); a
chain of 40 location aliases `callsite(#locN-1 at #locN-1)` read before and after their use,
printed with `--print-debuginfo`; `expected-error-re {{(a|aa)+b}}` against a 48-character name;
a pipeline nested 3,000 deep. No test depends on these numbers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

T4 = "tensor<4xf32>"


def doubling(levels: int) -> str:
    lines = ["tf.module @m entry @f0 {"]
    for i in range(levels):
        lines.append(f"  hir.func @f{i}(%x: {T4}) -> {T4} {{")
        if i < levels - 1:
            lines.append(f"    %a = tf.call @f{i + 1}(%x) : ({T4}) -> {T4}")
            lines.append(f"    %b = tf.call @f{i + 1}(%a) : ({T4}) -> {T4}")
            lines.append(f"    hir.return %b : {T4}")
        else:
            lines.append(f"    %a = tf.call tf.math.unary<kind = neg>(%x) : ({T4}) -> {T4}")
            lines.append(f"    hir.return %a : {T4}")
        lines.append("  }")
    return "\n".join([*lines, "}"]) + "\n"


def chain(after: bool) -> str:
    aliases = ['#loc0 = loc("a.py":1:1)'] + [
        f"#loc{i} = loc(callsite(#loc{i - 1} at #loc{i - 1}))" for i in range(1, 41)
    ]
    body = '"tf.module"() <{sym_name = "m"}> ({\n^bb0:\n}) : () -> () loc(#loc40)'
    return "\n".join([body, *aliases] if after else [*aliases, body]) + "\n"


def regex() -> str:
    return (
        f"tf.module @m {{\n  hir.func @f(%x: {T4}) -> {T4} {{\n"
        "    // expected-error-re @+1 {{'@{{(a|aa)+b}}' does not}}\n"
        f"    %y = tf.call @{'a' * 48}(%x) : ({T4}) -> {T4}\n    hir.return %y : {T4}\n  }}\n}}\n"
    )


def timed(command: list[str]) -> tuple[float, int]:
    """Wall seconds and the exit code."""
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
    return time.perf_counter() - started, done.returncode


def main() -> None:
    mlir_opt = shutil.which("mlir-opt-19")
    with tempfile.TemporaryDirectory() as scratch:
        files = {
            "doubling": doubling(30),
            "chain_after": chain(after=True),
            "chain_before": chain(after=False),
            "regex": regex(),
        }
        paths = {name: Path(scratch, f"{name}.mlir") for name in files}
        for name, text in files.items():
            paths[name].write_text(text, encoding="utf-8")
        deep = "tf.module(" * 3000 + "cse" + ")" * 3000
        cases = [
            (
                "tf-inline, doubling call graph, 30 levels",
                [str(paths["doubling"]), "-p", "tf-inline"],
                None,
            ),
            (
                "40 aliases after use, --print-debuginfo",
                [str(paths["chain_after"]), "--print-debuginfo"],
                [
                    str(paths["chain_after"]),
                    "--mlir-print-debuginfo",
                    "--allow-unregistered-dialect",
                ],
            ),
            (
                "40 aliases before use, --print-debuginfo",
                [str(paths["chain_before"]), "--print-debuginfo"],
                [
                    str(paths["chain_before"]),
                    "--mlir-print-debuginfo",
                    "--allow-unregistered-dialect",
                ],
            ),
            (
                "expected-error-re (a|aa)+b, 48 a's",
                [str(paths["regex"]), "--verify-diagnostics"],
                None,
            ),
            ("pipeline nested 3,000 deep", [str(paths["regex"]), "-p", deep], None),
        ]
        print("| case | tf-opt s | exit | mlir-opt-19 s |")
        print("|---|---|---|---|")
        for title, args, upstream in cases:
            seconds, code = timed(["tf-opt", *args])
            theirs = "-"
            if upstream is not None and mlir_opt is not None:
                theirs = f"{timed([mlir_opt, *upstream])[0]:.3f}"
            print(f"| {title} | {seconds:.3f} | {code} | {theirs} |")
    sys.stdout.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
