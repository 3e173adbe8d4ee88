"""The time per call stays steady in a long-lived process (issue 25): each case run 1,000 times
in one process, the CPU time of the first hundred calls next to that of the tenth hundred
(calls 901-1,000), and the live objects after each. No test depends on these numbers.

    python benchmarks/soak.py              (all cases; about a minute and a half)
    python benchmarks/soak.py --calls 500  (the fifth hundred instead of the tenth)

Cases: `tf.parse_module` of the second chunk of tests/filecheck/transforms/cse-dce.mlir (the
module issue 25 found growing), parse + verify + print of each lit input of
tests/filecheck/transforms in turn, `run_passes(m, "canonicalize,cse,dce")`, and a DSL
`@tf.func` built, verified and run.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import tilefoundry as tf  # noqa: E402
from tilefoundry import ops  # noqa: E402
from tilefoundry.dsl import ConstTensor, Tensor, f32  # noqa: E402
from tilefoundry.support.caches import CACHES  # noqa: E402

TRANSFORMS = ROOT / "tests" / "filecheck" / "transforms"
N = tf.DimVar("n", 1, 65)


def lit_inputs() -> list[str]:
    chunks = []
    for path in sorted(TRANSFORMS.glob("*.mlir")):
        text = path.read_text()
        if "expected-error" in text:
            continue
        for chunk in text.split("// -----"):
            try:
                tf.parse_module(chunk, path.name).verify()
            except Exception:  # noqa: BLE001 - a chunk for a tool's flags
                continue
            chunks.append(chunk)
    return chunks


def cases() -> dict[str, Callable[[int], object]]:
    cse_dce = (TRANSFORMS / "cse-dce.mlir").read_text().split("// -----")[1]
    chunks = lit_inputs()
    module = tf.parse_module(cse_dce)
    x, w = np.ones((4, 8), np.float32), np.eye(8, dtype=np.float32)

    def lit(i: int) -> None:
        parsed = tf.parse_module(chunks[i % len(chunks)], "chunk.mlir")
        parsed.verify()
        tf.print_module(parsed)

    def dsl(i: int) -> None:
        @tf.func
        def mlp(x: Tensor[(N, 8), f32], w: ConstTensor[(8, 8), f32]):  # type: ignore[no-untyped-def]
            return ops.relu(x @ w + 1.0)

        mlp.verify()
        mlp(x, w)

    return {
        "parse cse-dce.mlir #2": lambda i: tf.parse_module(cse_dce),
        "parse+verify+print, lit inputs": lit,
        "run_passes canonicalize,cse,dce": lambda i: tf.run_passes(module, "canonicalize,cse,dce"),
        "DSL @tf.func build+verify+run": dsl,
    }


def hundred(call: Callable[[int], object], start: int) -> float:
    began = time.process_time()
    for i in range(start, start + 100):
        call(i)
    return time.process_time() - began


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--calls", type=int, default=1000, help="calls per case (a multiple of 100)"
    )
    args = parser.parse_args()
    calls = max(200, args.calls - args.calls % 100)
    print(
        f"| case | first 100 calls, ms | calls {calls - 99}-{calls}, ms | ratio | live objects after 100 / after {calls} |"
    )
    print("|---|---|---|---|---|")
    for name, call in cases().items():
        gc.collect()
        first = hundred(call, 0)
        gc.collect()
        objects_first = len(gc.get_objects())
        for start in range(100, calls - 100, 100):
            hundred(call, start)
        last = hundred(call, calls - 100)
        gc.collect()
        objects_last = len(gc.get_objects())
        print(
            f"| {name} | {first * 1000:.0f} | {last * 1000:.0f} | {last / first:.2f} | "
            f"{objects_first:,} / {objects_last:,} |"
        )
    total = sum(CACHES.sizes().values())
    print(f"\ncache entries at the end: {total:,} (CACHES.sizes())")
    return 0


if __name__ == "__main__":
    sys.exit(main())
