"""Time one deep expression chain through the Python surface, step by step.

A chain of N calls (`neg` N times, an `add` of the parameter every 1,000 steps), built from
Python, becomes a function and a module, and is then printed, hashed, compared, copied and run;
its text is parsed back. Each step is timed alone (`time.perf_counter`, one run, the garbage
collector on as a user has it), in one process. Timings are for information only: the test
(`tests/unit/ir/algebra/test_expr_deep_chains.py`) checks that no step recurses per op, not how fast it is.

Usage: `.venv/bin/python benchmarks/deep_chain.py [N]` (N = 100,000 by default; about a minute).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import tilefoundry as tf
from tilefoundry import BindingMetadata, Module, TensorType, Var, ops
from tilefoundry.api.hir import Function


def chain(x: Any, depth: int) -> Any:
    h = x
    for index in range(depth):
        h = ops.add(h, x) if index % 1000 == 999 else ops.neg(h)
    return h


def main(depth: int) -> None:
    rows: list[tuple[str, float]] = []

    def step(name: str, work: Callable[[], Any]) -> Any:
        start = time.perf_counter()
        result = work()
        rows.append((name, time.perf_counter() - start))
        print(f"{name}: {rows[-1][1]:.2f} s", file=sys.stderr)
        return result

    t4 = TensorType((4,), "f32")
    x, y = Var("x", t4), Var("x", t4)
    body = step("build (ops.neg / ops.add)", lambda: chain(x, depth))
    other = chain(y, depth)
    step("structural_hash (detached)", lambda: tf.structural_hash(body))
    step("structural_equal (detached)", lambda: tf.structural_equal(body, other))
    f = step("Function", lambda: Function(name="f", params=[x], body=body))
    m = step("Module (verifies)", lambda: Module(name="m", functions=[f], entry="f"))
    text = step("print_module", lambda: tf.print_module(m))
    step("print_module (generic)", lambda: tf.print_module(m, generic=True))
    step("structural_hash (module)", lambda: tf.structural_hash(m))
    copy = step("cloned", m.cloned)
    step("structural_equal (module, copy)", lambda: tf.structural_equal(m, copy))
    step("run (reference interpreter)", lambda: m.f(np.ones(4, np.float32)))
    step(
        "replace_metadata (of the body)", lambda: tf.replace_metadata(f.body, BindingMetadata("b"))
    )
    step("parse_module (its text)", lambda: tf.parse_module(text))
    print(f"| step ({depth:,} ops) | seconds |\n|---|---|")
    for name, seconds in rows:
        print(f"| {name} | {seconds:.2f} |")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100_000)
