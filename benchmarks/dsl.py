"""The DSL at 8, 64 and 256 layers: reading the decoder written in the DSL, against building the
same module through the constructors, each from a script file Python compiles and runs, and
reading its MLIR text (`parse_module`). The module is the example decoder
(`examples/decoder.py`) with its layers attached as copies of one prototype named
`DecoderLayer`, so that its DSL source (`print_script`) is what a user writes: one layer class,
instantiated 64 times under the root class.

The two sides do the same work from the same starting point, a Python file of the model:

- **DSL**: the script `print_script` writes (a layer class, the root class whose `step` calls
  each layer, `module = decoder()`), run with `runpy`: Python's compile of the file, the DSL's
  parse of each decorated function, and the module's construction (the first layer read, the
  others copies of it) and verification.
- **constructors**: a script of the example's constructor code (`_shapes`, `_rms_norm`,
  `_layer_prototype` and the layers cloned from the prototype, as `build_decoder` below), run
  with `runpy` the same way: Python's compile of the file and the module's construction (the
  prototype built and verified, the copies, the root) and verification.

Each timed run reads a file never read before (no cache of the DSL's — a file's parsed defs,
its annotations, its spans' locations — is warm from the run before, and Python compiles each);
the row "again" reads one DSL file repeatedly, as earlier versions of this benchmark did. The
results are checked structurally equal (not timed). For scale, issue 13 quotes TVMScript at
about 4.5 s for a 64-layer, 1,344-op Relax module on this machine.

Times are the median process (CPU) time of `--repeat` runs (the machine is shared: the least
time favours whichever side was lucky), the two sides alternating, each run started after a
full `gc.collect()` (so that no run pays for the garbage of the one before it). Python's cyclic
collector still runs inside each timed run, and a full (generation 2) collection over the
process's heap costs as much as the work around it at 256 layers; whether it falls into a run
is luck, so the ratio is printed a second time with the collector paused during the runs (as
`timeit` times), which is the cost of the code itself. Usage: `.venv/bin/python
benchmarks/dsl.py [--layers 8 64 256] [--repeat 5]` (a few minutes).
"""

from __future__ import annotations

import argparse
import gc
import inspect
import runpy
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from decoder import WEIGHTS, _layer_prototype, _shapes  # noqa: E402

import tilefoundry as tf  # noqa: E402


def build_decoder(num_layers: int, d_model: int = 64, d_ff: int = 128) -> tf.Module:
    """`examples/decoder.py`'s decoder, each layer a copy of one prototype (its own name kept)."""
    from tilefoundry.api.hir import Function

    seq = tf.DimVar("seq", 1, 513)
    prototype = _layer_prototype(seq, d_model, d_ff)
    layers = {f"layer{i}": prototype.cloned() for i in range(num_layers)}
    shapes = _shapes(d_model, d_ff)
    x = tf.Var("x", tf.TensorType((seq, d_model), "f32"))
    params, h = [x], x
    for name, layer in layers.items():
        ws = [
            tf.Var(f"{name}.{w}", tf.TensorType(shapes[w], "f32"), is_const=True) for w in WEIGHTS
        ]
        params += ws
        h = tf.Call(layer.lookup("block"), [h, *ws], metadata=[tf.BindingMetadata(name)])
    levels = (tf.Topology("cluster", 2), tf.Topology("cta", 4), tf.Topology("warp", 4))
    return tf.Module(
        name="decoder",
        functions=[Function(name="step", params=params, body=h)],
        modules=layers,
        target="h100",
        topologies=levels,
        entry="step",
    )


def constructors_script(num_layers: int) -> str:
    """The constructors' side as a user's file: the example's constructor code and
    `build_decoder` above, then `module = build_decoder(num_layers)`."""
    import decoder

    sources = [
        inspect.getsource(f)
        for f in (decoder._shapes, decoder._rms_norm, decoder._layer_prototype, build_decoder)
    ]
    return "\n\n".join(
        [
            "from __future__ import annotations\n\n"
            "import tilefoundry as tf\n"
            "from tilefoundry import ops\n"
            "from tilefoundry.dialects.tf.mesh import MeshOp as Mesh\n"
            "from tilefoundry.api.hir import Function\n\n"
            f"WEIGHTS = {WEIGHTS!r}\nEPS = {decoder.EPS!r}",
            *sources,
            f"module = build_decoder({num_layers})\n",
        ]
    )


def timed(
    sides: dict[str, Callable[[], Any]], repeat: int, paused: bool = False
) -> tuple[dict[str, float], dict[str, Any]]:
    """The median CPU time of `repeat` runs of each side (the machine is shared: wall time
    is noise), the sides alternating, each run after a full collection; `paused`: with the
    cyclic collector off during the runs."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    results: dict[str, Any] = {}
    for index in range(repeat):
        names = list(sides) if index % 2 == 0 else list(reversed(sides))
        for name in names:
            results[name] = None
            gc.collect()
            if paused:
                gc.disable()
            try:
                started = time.process_time()
                results[name] = sides[name]()
                times[name].append(time.process_time() - started)
            finally:
                gc.enable()
    return {name: statistics.median(t) for name, t in times.items()}, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[8, 64, 256])
    parser.add_argument("--repeat", type=int, default=5)
    arguments = parser.parse_args()
    same = True
    for layers in arguments.layers:
        same = measure(layers, arguments.repeat) and same
    return 0 if same else 1


def measure(layers: int, repeat: int) -> bool:
    root = build_decoder(num_layers=layers)
    ops = sum(1 for _ in root.module_op.walk())
    printed, found = timed({"print": lambda: tf.print_script(root)}, 1)
    script = found["print"]
    text = tf.print_module(root)
    built = constructors_script(layers)
    with tempfile.TemporaryDirectory() as directory:
        count = iter(range(1_000_000))

        def new_file(kind: str, content: str) -> str:
            path = Path(directory) / f"decoder_{kind}_{next(count)}.py"
            path.write_text(content)
            return str(path)

        def run(kind: str, content: str) -> Callable[[], Any]:
            return lambda: runpy.run_path(new_file(kind, content))["module"]

        # each run reads a file never read before, so no cache of the DSL's is warm
        sides = {"dsl": run("dsl", script), "constructors": run("constructors", built)}
        run("dsl", script)(), run("constructors", built)()  # imports, first uses: not timed
        cold, found = timed(sides, repeat)
        paused, _ = timed(sides, repeat, paused=True)
        # warm: one file again, as a process that reads one model file twice does
        again_file = new_file("dsl", script)
        again, _ = timed({"again": lambda: runpy.run_path(again_file)["module"]}, repeat)
    parsed, reread = timed({"parse": lambda: tf.parse_module(text)}, repeat)
    same = all(
        tf.structural_equal(module, root)
        for module in (found["dsl"], found["constructors"], reread["parse"])
    )
    read, made = cold["dsl"], cold["constructors"]
    lines = script.count("\n")
    print(f"decoder, {layers} layers: {ops} ops; DSL source {lines} lines, MLIR text {len(text)} B")
    print("| how | seconds |\n|---|---|")
    print(
        f"| built through the constructors (a script file of examples/decoder.py's code) | {made:.3f} |"
    )
    print(f"| read from the DSL (runpy of print_script's source, a new file) | {read:.3f} |")
    print(
        f"| read from the DSL again (the same file: the DSL's caches warm) | {again['again']:.3f} |"
    )
    print(f"| read from MLIR text (parse_module) | {parsed['parse']:.3f} |")
    print(f"| print_script | {printed['print']:.3f} |")
    print(
        f"DSL / constructors: {read / made:.2f} (the same file again: {again['again'] / made:.2f})"
        f"; structurally equal: {same}"
    )
    print(
        f"the collector paused: DSL {paused['dsl']:.3f}, constructors {paused['constructors']:.3f}"
        f", DSL / constructors: {paused['dsl'] / paused['constructors']:.2f}\n"
    )
    return same


if __name__ == "__main__":
    sys.exit(main())
