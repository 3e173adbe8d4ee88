"""The Python surface at 16 / 64 / 256 layers: building the example decoder, `cloned()` of it,
`structural_hash` of its entry, `select` of a kernel, and lookups (`lookup`, a child by
attribute). Each size runs in this process, one after the other, the garbage collector on as a
user has it; a lookup's time is the mean of 1,000. The report says how each grows from the
smallest size to the largest (linear is the ratio of the op counts; a lookup should not grow).

Usage: `.venv/bin/python benchmarks/surface.py [--layers 16,64,256]` (about half a minute).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from decoder import build_decoder  # noqa: E402

import tilefoundry as tf  # noqa: E402

LOOKUPS = 1000


def timed(work: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    started = time.perf_counter()
    for _ in range(repeat):
        result = work()
    return (time.perf_counter() - started) / repeat, result


def measure(layers: int) -> dict[str, float]:
    build, root = timed(lambda: build_decoder(num_layers=layers))
    clone, _ = timed(root.cloned)
    step = root.lookup("step")
    hash_, _ = timed(lambda: tf.structural_hash(step))
    select, _ = timed(lambda: tf.select(root, f"layer{layers - 1}.mlp"))
    lookup, _ = timed(lambda: root.lookup("step"), LOOKUPS)
    child, _ = timed(lambda: getattr(root, f"layer{layers - 1}"), LOOKUPS)
    ops = sum(1 for _ in root.module_op.walk())
    return {
        "ops": ops,
        "build": build,
        "cloned": clone,
        "hash": hash_,
        "select": select,
        "lookup": lookup,
        "child": child,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="16,64,256", help="sizes, comma-separated")
    args = parser.parse_args()
    rows = []
    for layers in (int(n) for n in args.layers.split(",")):
        print(f"{layers} layers ...", file=sys.stderr, flush=True)
        rows.append((layers, measure(layers)))
    print("| layers | ops | build | cloned() | structural_hash | select | lookup | child |")
    print("|---|---|---|---|---|---|---|---|")
    for layers, row in rows:
        print(
            f"| {layers} | {row['ops']:,} | {row['build']:.3f} s | {row['cloned']:.3f} s | "
            f"{row['hash'] * 1e3:.1f} ms | {row['select'] * 1e3:.1f} ms | "
            f"{row['lookup'] * 1e6:.1f} µs | {row['child'] * 1e6:.1f} µs |"
        )
    if len(rows) >= 2:
        (_, small), (_, large) = rows[0], rows[-1]
        growth = ", ".join(
            f"{k} {large[k] / small[k]:.1f}x"
            for k in ("build", "cloned", "hash", "select", "lookup", "child")
        )
        print(
            f"\nFrom {small['ops']:,} to {large['ops']:,} ops ({large['ops'] / small['ops']:.1f}x): {growth}."
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
