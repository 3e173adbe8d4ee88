"""How long tf-opt takes on the fuzz's adversarial inputs (tests/unit/tools/drivers/test_tf_opt_fuzz.py), one
run each in this process, and how long reading a splat of 50,000,000 elements takes: the speed
claims the test suite used to assert (2 s per fuzz run, 0.5 s per splat) and no longer does.

Usage: `.venv/bin/python benchmarks/fuzz_runs.py` (about a minute). Prints Markdown: per input
class, the runs, the median and the slowest, in seconds.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import statistics
import sys
import time
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

from tilefoundry.context.context import make_context
from tilefoundry.ir.text.parser import TFParser
from tilefoundry.tools.drivers.tf_opt import main as tf_opt

ROOT = Path(__file__).parents[1]


def _fuzz() -> ModuleType:
    path = ROOT / "tests" / "unit" / "tools" / "test_fuzz.py"
    spec = importlib.util.spec_from_file_location("test_fuzz", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _timed_runs(texts: Iterable[str], path: Path) -> list[float]:
    times = []
    for text in texts:
        path.write_text(text, encoding="utf-8")
        started = time.perf_counter()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            tf_opt([str(path)])
        times.append(time.perf_counter() - started)
    return times


def main() -> int:
    fuzz = _fuzz()
    scratch = Path("/tmp") / f"fuzz_runs.{id(fuzz)}.mlir"
    classes = {
        "mutated test files": list(fuzz.mutants(160, 0)),
        "nesting (10, 1000, 10000 of each kind)": [
            make(depth) for make in fuzz.NESTINGS.values() for depth in (10, 1000, 10000)
        ],
        "numbers": list(fuzz.numbers(60, 1)),
        "strings": list(fuzz.strings(30, 2)),
    }
    print("| inputs | runs | median s | slowest s |")
    print("|---|---|---|---|")
    try:
        for name, texts in classes.items():
            times = _timed_runs(texts, scratch)
            print(f"| {name} | {len(times)} | {statistics.median(times):.4f} | {max(times):.4f} |")
    finally:
        scratch.unlink(missing_ok=True)
    started = time.perf_counter()
    TFParser(make_context(), "dense<1.0> : tensor<50000000xf32>").parse_attribute()
    print(f"\nReading `dense<1.0> : tensor<50000000xf32>`: {time.perf_counter() - started:.4f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
