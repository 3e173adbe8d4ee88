"""Parse, verify and print in one process, per op, at growing sizes; and the peak memory.

For each size N (5,000 / 50,000 / 100,000 ops by default) the module is F functions of
elementwise call chains (`generate.large_module`, 500 calls per function), written as text,
then read by `TFParser`, verified by `verify_ir` and printed by `TFPrinter`, each step timed
alone (`time.perf_counter`; the garbage collector as tf-opt has it: paused while parsing and
verifying). Each
size runs in a fresh process, so the peak resident memory (`ru_maxrss`) is that size's own. The
report says how each step grows: the time for 10x the ops over the time for 1x (linear is 10).

Usage: `.venv/bin/python benchmarks/inprocess.py [--sizes 5000,50000,100000]` (a few minutes);
`make bench` runs it after `run.py`.
"""

from __future__ import annotations

import argparse
import io
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

from generate import LargeShape, large_module

CALLS_PER_FUNCTION = 500


def shape_for(ops: int) -> LargeShape:
    """A module of about `ops` ops (each function: its op, 4 constants, the chain, a return)."""
    per_function = CALLS_PER_FUNCTION + 4 + 2
    return LargeShape(functions=max(1, round(ops / per_function)), chain=CALLS_PER_FUNCTION)


def measure(ops: int) -> dict[str, float]:
    """One size, in this process: seconds per step, the op count, the peak memory (MiB)."""
    from tilefoundry.context.context import make_context
    from tilefoundry.ir.allocation import collection_paused
    from tilefoundry.ir.text.parser import TFParser
    from tilefoundry.ir.text.printer import TFPrinter
    from tilefoundry.ir.verify.verifier import verify_ir

    text = large_module(shape_for(ops))
    started = time.perf_counter()
    with collection_paused():
        module = TFParser(make_context(), text, "bench.mlir").parse_module()
    parse = time.perf_counter() - started
    started = time.perf_counter()
    with collection_paused():
        verify_ir(module)
    verify = time.perf_counter() - started
    stream = io.StringIO()
    started = time.perf_counter()
    TFPrinter(stream=stream).print_op(module)
    print_ = time.perf_counter() - started
    count = sum(1 for _ in module.walk())
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"ops": count, "parse": parse, "verify": verify, "print": print_, "peak_mib": peak}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,50000,100000", help="op counts, comma-separated")
    parser.add_argument("--one", type=int, help=argparse.SUPPRESS)  # a child process's size
    args = parser.parse_args()
    if args.one is not None:
        print(json.dumps(measure(args.one)))
        return 0
    rows = []
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"measuring {size} ops ...", file=sys.stderr, flush=True)
        done = subprocess.run(
            [sys.executable, str(Path(__file__)), "--one", str(size)],
            capture_output=True,
            text=True,
            check=True,
        )
        rows.append(json.loads(done.stdout))
    print("| ops | parse µs/op | verify µs/op | print µs/op | peak memory |")
    print("|---|---|---|---|---|")
    for row in rows:
        per_op = {k: 1e6 * row[k] / row["ops"] for k in ("parse", "verify", "print")}
        print(
            f"| {row['ops']:,} | {per_op['parse']:.0f} | {per_op['verify']:.0f} | "
            f"{per_op['print']:.0f} | {row['peak_mib']:.0f} MiB |"
        )
    if len(rows) >= 2:
        small, large = rows[0], rows[-1]
        scale = large["ops"] / small["ops"]
        growth = ", ".join(f"{k} {large[k] / small[k]:.1f}x" for k in ("parse", "verify", "print"))
        print(f"\nFrom {small['ops']:,} to {large['ops']:,} ops ({scale:.1f}x): {growth}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
