"""The main job: build the example decoder, run a `tf-opt` pipeline over its text, read the
result back and run it on numpy inputs against a numpy reference. `make demo` runs this.

    python examples/demo.py [--layers 4] [--seq 16] [--pipeline P] [--out build]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

import tilefoundry as tf

sys.path.insert(0, str(Path(__file__).parent))
from decoder import build_decoder, random_weights, reference  # noqa: E402

PIPELINE = "tf-fold-constants,tf-simplify,cse,dce"


def _op_counts(module: tf.Module) -> Counter[str]:
    return Counter(op.name for op in module.module_op.walk())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--pipeline", default=PIPELINE)
    parser.add_argument("--out", default="build")
    args = parser.parse_args()
    out = Path(args.out)
    out.mkdir(exist_ok=True)

    print(f"[1/4] building a {args.layers}-layer decoder ...", flush=True)
    root = build_decoder(args.layers)
    source = out / "decoder.mlir"
    source.write_text(tf.print_module(root, debuginfo=True))
    print(
        f"      {source}: {sum(_op_counts(root).values())} ops, "
        f"target {root.resolve_target()} ({root.resolve_target().arch})"
    )

    tf_opt = shutil.which("tf-opt")
    if tf_opt is None:
        print("tf-opt is not on PATH (run `make demo`, which installs it)", file=sys.stderr)
        return 1
    optimized = out / "decoder.opt.mlir"
    command = [tf_opt, str(source), "-p", args.pipeline, "--print-debuginfo", "-o", str(optimized)]
    print(f"[2/4] {' '.join(command[1:])} ...", flush=True)
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr, end="")
        return 1
    print(f"      done in {time.perf_counter() - started:.2f} s")

    print("[3/4] reading the result back ...", flush=True)
    result = tf.parse_module(optimized.read_text(), str(optimized))
    before, after = _op_counts(root), _op_counts(result)
    for name in sorted(set(before) | set(after)):
        if before[name] != after[name]:
            print(f"      {name}: {before[name]} -> {after[name]}")
    kernel = tf.select(result, "layer0.attention")
    print(
        f"      select('layer0.attention'): target {kernel.target}, "
        f"topologies {', '.join(map(str, kernel.topologies or ()))}"
    )

    print(f"[4/4] running step on x[{args.seq}x64] against numpy ...", flush=True)
    weights = random_weights(root)
    x = np.random.default_rng(1).standard_normal((args.seq, 64)).astype(np.float32)
    got = tf.LoadedModule(result, weights).step(x)
    want = reference(x, weights, args.layers)
    error = float(np.max(np.abs(got - want)))
    verdict = "OK" if error < 1e-4 else "MISMATCH"
    print(f"      max abs error vs numpy: {error:.2e}  {verdict}")
    return 0 if verdict == "OK" else 1


if __name__ == "__main__":
    sys.exit(main())
