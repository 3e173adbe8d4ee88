"""The main job: build the example decoder, run the tf-opt pipelines a user runs on it, and run
the results on numpy inputs against a numpy reference. `make demo` runs this.

1. build a decoder of N layers cloned from one prototype under an H100 root;
2. analyze the whole model: `canonicalize,cse,tf-analyze` — tf-analyze's table of every
   function's FLOPs, bytes and roofline time on the H100 (N cloned layers, N measurements),
   and its roofline plot (`build/roofline.svg`);
3. compile one layer as a kernel: `tf-select` a layer's block (published with the target and
   hierarchy it resolves), `tf-inline` its calls, `tf-prune-unreachable` what is no longer
   called, `canonicalize`, `cse`, `tf-analyze`;
4. compile the layer natively: `tilefoundry.lower` (HIR -> TIR), `tilefoundry.emit_mlir`
   (upstream MLIR) and `tilefoundry.compile` (mlir-opt-19 ... cc: a shared library), every
   stage's file kept in `build/native/` (docs/compile.md);
5. run the model and the kernel (interpreted and native) against numpy: the max abs errors,
   the native kernel against the interpreter, and the time per call of each.

    python examples/demo.py [--layers 4] [--seq 16] [--layer 2] [--out build]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import numpy as np

import tilefoundry as tf
from tilefoundry.backends.native.toolchain import StageError, ToolchainError

sys.path.insert(0, str(Path(__file__).parent))
from decoder import WEIGHTS, build_decoder, random_weights, reference  # noqa: E402

BOUND = 1e-4
"""The largest max abs difference the demo accepts (against numpy, and native against the
interpreter)."""
MODEL_PIPELINE = "canonicalize,cse,tf-analyze{{dims=seq={seq} plot={plot}}}"
KERNEL_PIPELINE = (
    "tf-select{{path=layer{layer}.block}},tf-inline,tf-prune-unreachable,canonicalize,cse,"
    "tf-analyze{{dims=seq={seq}}}"
)


def _op_count(module: tf.Module) -> Counter[str]:
    return Counter(op.name for op in module.module_op.walk())


def _tf_opt(source: Path, pipeline: str, output: Path) -> tf.Module | None:
    tf_opt = shutil.which("tf-opt")
    if tf_opt is None:
        print("tf-opt is not on PATH (run `make demo`, which installs it)", file=sys.stderr)
        return None
    command = [tf_opt, str(source), "-p", pipeline, "--print-debuginfo", "-o", str(output)]
    print(f"      $ tf-opt {source} -p '{pipeline}' --print-debuginfo -o {output}", flush=True)
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        print(run.stderr, file=sys.stderr, end="")
        return None
    result = tf.parse_module(output.read_text(), str(output))
    print(f"      done in {time.perf_counter() - started:.2f} s; tf-analyze's table (stderr):")
    print("\n".join(f"      {line}" for line in run.stderr.splitlines()))
    return result


def per_call(run: Callable[[], object], budget: float = 0.2) -> float:
    """The best time of one call of `run` (seconds), over repeats filling about `budget` s."""
    best = float("inf")
    spent = 0.0
    while spent < budget or best == float("inf"):
        started = time.perf_counter()
        run()
        took = time.perf_counter() - started
        best, spent = min(best, took), spent + took
    return best


def shown_time(seconds: float) -> str:
    return f"{seconds * 1e3:.3f} ms" if seconds < 1 else f"{seconds:.2f} s"


def example_roofline() -> str:
    """The roofline of the 4-layer decoder at seq = 16 after `canonicalize,cse`, as the model
    pipeline draws it: `docs/images/roofline.svg` (`--docs-image` rewrites it)."""
    model = tf.run_passes(build_decoder(4), "canonicalize,cse")
    return tf.analyze(model, dims={"seq": 16}).roofline_svg()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--seq", type=int, default=16)
    parser.add_argument("--layer", type=int, default=2, help="the layer compiled as a kernel")
    parser.add_argument("--out", default="build")
    parser.add_argument(
        "--docs-image", action="store_true", help="rewrite docs/images/roofline.svg and stop"
    )
    args = parser.parse_args()
    if args.docs_image:
        image = Path(__file__).parents[1] / "docs" / "images" / "roofline.svg"
        image.parent.mkdir(exist_ok=True)
        image.write_text(example_roofline())
        print(f"wrote {image}")
        return 0
    if not 0 <= args.layer < args.layers:
        parser.error(f"--layer must name one of the {args.layers} layers")
    out = Path(args.out)
    out.mkdir(exist_ok=True)

    print(f"[1/5] building a {args.layers}-layer decoder ...", flush=True)
    root = build_decoder(args.layers)
    source = out / "decoder.mlir"
    source.write_text(tf.print_module(root, debuginfo=True))
    target = root.resolve_target()
    print(f"      {source}: {sum(_op_count(root).values())} ops, target {target} ({target.arch})")

    print(f"[2/5] analyzing the whole model at seq = {args.seq} ...", flush=True)
    plot = out / "roofline.svg"
    pipeline = MODEL_PIPELINE.format(seq=args.seq, plot=plot)
    model = _tf_opt(source, pipeline, out / "decoder.opt.mlir")
    if model is None:
        return 1
    print(f"      {plot}: the roofline, a point per function (docs/passes.md shows it)")

    print(f"[3/5] compiling layer{args.layer}.block as a kernel ...", flush=True)
    pipeline = KERNEL_PIPELINE.format(layer=args.layer, seq=args.seq)
    kernel = _tf_opt(source, pipeline, out / f"layer{args.layer}.mlir")
    if kernel is None:
        return 1
    before = _op_count(tf.select(root, f"layer{args.layer}"))
    after = _op_count(kernel)
    print(
        f"      {kernel.name}: target {kernel.target}, topologies "
        f"{', '.join(map(str, kernel.topologies or ()))}, entry {kernel.entry}; functions "
        f"{', '.join(f.name for f in kernel.functions)}"
    )
    for name in sorted(set(before) | set(after)):
        if before[name] != after[name]:
            print(f"      {name}: {before[name]} -> {after[name]}")

    print(f"[4/5] compiling layer{args.layer}.block natively ...", flush=True)
    weights = random_weights(root)
    own = {w: weights[f"layer{args.layer}.{w}"] for w in WEIGHTS}
    started = time.perf_counter()
    lowered = tf.lower(kernel)
    text = tf.emit_mlir(lowered)
    dump = out / "native"
    try:
        compiled = tf.compile(lowered, own, dump=dump)
    except (ToolchainError, StageError) as err:  # a missing tool: the Debian package it is in
        print(f"demo: {err}", file=sys.stderr)
        return 1
    print(
        f"      tf.lower: {len(lowered.functions)} prim function(s); tf.emit_mlir: "
        f"{len(text.splitlines())} lines of upstream MLIR"
    )
    files = sorted(dump.iterdir(), key=lambda f: f.stat().st_mtime)  # in the order of the stages
    print(
        f"      tf.compile: {time.perf_counter() - started:.2f} s; {dump}/ keeps every stage: "
        f"{', '.join(f.name for f in files)}"
    )

    print(f"[5/5] running on x[{args.seq}x64] against numpy ...", flush=True)
    x = np.random.default_rng(1).standard_normal((args.seq, 64)).astype(np.float32)
    layer_weights = {f"layer0.{w}": weights[f"layer{args.layer}.{w}"] for w in WEIGHTS}
    bound_model = tf.LoadedModule(model, weights)
    interpreted = tf.LoadedModule(kernel, own)
    want_model = reference(x, weights, args.layers)
    want_layer = reference(x, layer_weights, 1)
    got_interpreted, got_native = interpreted(x), compiled(x)
    rows = [
        ("decoder step, interpreter", bound_model.step(x), want_model, "numpy"),
        (f"layer{args.layer} kernel, interpreter", got_interpreted, want_layer, "numpy"),
        (f"layer{args.layer} kernel, native", got_native, want_layer, "numpy"),
        (f"layer{args.layer} kernel, native", got_native, got_interpreted, "the interpreter"),
    ]
    ok = True
    for what, got, want, against in rows:
        error = float(np.max(np.abs(got - want)))
        ok = ok and error < BOUND
        verdict = "OK" if error < BOUND else f"MISMATCH (bound {BOUND:.0e})"
        print(f"      {what}: max abs error vs {against} {error:.2e}  {verdict}")
    times = {
        "interpreter": per_call(lambda: interpreted(x)),
        "native": per_call(lambda: compiled(x)),
        "numpy": per_call(lambda: reference(x, layer_weights, 1)),
    }
    shown = ", ".join(f"{name} {shown_time(t)}" for name, t in times.items())
    ratio = times["interpreter"] / times["native"]
    faster = f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x slower"
    print(f"      layer{args.layer} time per call: {shown} (native {faster} than the interpreter)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
