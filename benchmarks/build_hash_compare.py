"""Building, hashing and comparing a model: TileFoundry's Python API next to TVM Relax.

The model is the example decoder (`examples/decoder.py`): N layers of attention + MLP (RMSNorm,
residuals, softmax), each layer a module of three functions (`block`, `attention`, `mlp`),
under a root whose entry `step` calls the layers in turn. TVM builds the same graph with Relax's
`BlockBuilder`: one `IRModule` of 3N + 1 functions, the same ops (matmul, permute_dims, exp,
max, sum, divide, rsqrt, sigmoid, ...), the same symbolic `seq` dimension. Both sides build
every layer from scratch (the "fresh" rows); the example's own way, one prototype renamed N
times, is timed too.

Timed side by side in one process, the garbage collector on as a user has it; each figure is the
best of `--repeat` runs:
- build: the constructors (and, with `--dsl`, the DSL reading `print_script`'s source);
- hash: `tf.structural_hash` of the root against `tvm_ffi.structural_hash` of the IRModule;
- the limit: creating the xDSL objects of the fresh model alone (`object_limit.py`'s
  `Rebuilder`: nothing inferred, checked or verified), the floor of any build;
- equal: `tf.structural_equal` of two models built apart (equal, nothing shared) against
  `tvm_ffi.structural_equal` of two IRModules built apart; and the same object with itself,
  and two models that differ in the last layer (an early exit where it can).
Each answer is checked (equal models hash equal, the differing ones compare unequal).

TVM is an optional benchmark dependency (`pip install -e '.[bench]'`); without it the TVM
columns are left out. Usage: `.venv/bin/python benchmarks/build_hash_compare.py [--layers 64]
[--repeat 5] [--dsl]` (about 20 s).
"""

from __future__ import annotations

import argparse
import runpy
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "examples"))
from decoder import EPS, WEIGHTS, _layer_prototype, _shapes, build_decoder  # noqa: E402

sys.path.insert(0, str(Path(__file__).parent))
from object_limit import Rebuilder  # noqa: E402

import tilefoundry as tf  # noqa: E402
from tilefoundry.api.hir import Function  # noqa: E402

D_MODEL, D_FF, MAX_SEQ = 64, 128, 512


def tf_fresh(num_layers: int, d_ff: int = D_FF) -> tf.Module:
    """The decoder with every layer built from scratch (no clone), as TVM builds it."""
    seq = tf.DimVar("seq", 1, MAX_SEQ + 1)
    x = tf.Var("x", tf.TensorType((seq, D_MODEL), "f32"))
    params, h = [x], x
    layers = {}
    for i in range(num_layers):
        name, ff = f"layer{i}", d_ff if i == num_layers - 1 else D_FF
        layers[name] = layer = _layer_prototype(seq, D_MODEL, ff)
        shapes = _shapes(D_MODEL, ff)
        ws = [
            tf.Var(f"{name}.{w}", tf.TensorType(shapes[w], "f32"), is_const=True) for w in WEIGHTS
        ]
        params += ws
        h = tf.Call(layer.lookup("block"), [h, *ws], metadata=[tf.BindingMetadata(name)])
    return tf.Module(
        name="decoder",
        functions=[Function(name="step", params=params, body=h)],
        modules=layers,
        target="h100",
        topologies=(tf.Topology("cluster", 2), tf.Topology("cta", 4), tf.Topology("warp", 4)),
        entry="step",
        metadata={"opt_level": 2},
    )


def tvm_fresh(num_layers: int, d_ff: int = D_FF) -> Any:
    """The same decoder through Relax's BlockBuilder: one IRModule of 3N + 1 functions."""
    import numpy as np
    import tvm
    from tvm import relax, tirx

    op = relax.op
    seq = tirx.Var("seq", "int64")
    bb = relax.BlockBuilder()

    def tensor(name: str, shape: tuple[Any, ...]) -> Any:
        return relax.Var(name, relax.TensorType(shape, "float32"))

    def const(value: float) -> Any:
        return relax.const(np.array([value], dtype="float32"))

    def rms_norm(x: Any, gain: Any, d_model: int) -> Any:
        inv_d = bb.emit(op.divide(const(1.0), const(float(d_model))))
        square = bb.emit(op.multiply(x, x))
        mean_square = bb.emit(op.multiply(bb.emit(op.sum(square, axis=-1, keepdims=True)), inv_d))
        scale = bb.emit(op.rsqrt(bb.emit(op.add(mean_square, const(EPS)))))
        return bb.emit(op.multiply(bb.emit(op.multiply(x, scale)), gain))

    def layer(prefix: str, ff: int) -> Any:
        shapes = _shapes(D_MODEL, ff)

        def weight(name: str) -> Any:
            return tensor(name, shapes[name])

        x = tensor("x", (seq, D_MODEL))
        norm1, wq, wk, wv, wo = (weight(n) for n in ("norm1", "wq", "wk", "wv", "wo"))
        with bb.function(f"{prefix}_attention", [x, norm1, wq, wk, wv, wo]):
            with bb.dataflow():
                h = rms_norm(x, norm1, D_MODEL)
                q, k, v = (bb.emit(op.matmul(h, w)) for w in (wq, wk, wv))
                scale = bb.emit(op.rsqrt(const(float(D_MODEL))))
                kt = bb.emit(op.permute_dims(k, [1, 0]))
                scores = bb.emit(op.multiply(bb.emit(op.matmul(q, kt)), scale))
                peak = bb.emit(op.max(scores, axis=-1, keepdims=True))
                shifted = bb.emit(op.exp(bb.emit(op.subtract(scores, peak))))
                total = bb.emit(op.sum(shifted, axis=-1, keepdims=True))
                probs = bb.emit(op.divide(shifted, total))
                out = bb.emit(op.matmul(bb.emit(op.matmul(probs, v)), wo))
                result = bb.emit_output(op.add(x, out))
            bb.emit_func_output(result)
        attention = bb.get().get_global_var(f"{prefix}_attention")

        x = tensor("x", (seq, D_MODEL))
        norm2, w_up, w_down = (weight(n) for n in ("norm2", "w_up", "w_down"))
        with bb.function(f"{prefix}_mlp", [x, norm2, w_up, w_down]):
            with bb.dataflow():
                up = bb.emit(op.matmul(rms_norm(x, norm2, D_MODEL), w_up))
                gated = bb.emit(op.multiply(up, bb.emit(op.sigmoid(up))))
                result = bb.emit_output(op.add(x, bb.emit(op.matmul(gated, w_down))))
            bb.emit_func_output(result)
        mlp = bb.get().get_global_var(f"{prefix}_mlp")

        x = tensor("x", (seq, D_MODEL))
        ws = {name: weight(name) for name in WEIGHTS}
        with bb.function(f"{prefix}_block", [x, *ws.values()]):
            a = [ws[n] for n in ("norm1", "wq", "wk", "wv", "wo")]
            h = bb.emit(relax.Call(attention, [x, *a]))
            m = [ws[n] for n in ("norm2", "w_up", "w_down")]
            bb.emit_func_output(bb.emit(relax.Call(mlp, [h, *m])))
        return bb.get().get_global_var(f"{prefix}_block")

    blocks = [layer(f"layer{i}", d_ff if i == num_layers - 1 else D_FF) for i in range(num_layers)]
    x = tensor("x", (seq, D_MODEL))
    params, weights = [x], []
    for i in range(num_layers):
        shapes = _shapes(D_MODEL, d_ff if i == num_layers - 1 else D_FF)
        ws = [tensor(f"layer{i}.{w}", shapes[w]) for w in WEIGHTS]
        weights.append(ws)
        params += ws
    with bb.function("step", params):
        h = x
        for block, ws in zip(blocks, weights, strict=True):
            h = bb.emit(relax.Call(block, [h, *ws]))
        bb.emit_func_output(h)
    module = bb.get()
    assert isinstance(module, tvm.IRModule)
    return module


def side_by_side(
    ours: Callable[[], Any], theirs: Callable[[], Any] | None, repeat: int
) -> tuple[float, float | None, Any, Any]:
    """The best time of each over `repeat` rounds, the two run one after the other in each
    round (so that a load on the shared machine falls on both), and their last results."""
    mine: list[float] = []
    other: list[float] = []
    result = their_result = None
    for _ in range(repeat):
        started = time.process_time()
        result = ours()
        mine.append(time.process_time() - started)
        if theirs is not None:
            started = time.process_time()
            their_result = theirs()
            other.append(time.process_time() - started)
    return min(mine), (min(other) if other else None), result, their_result


def dsl_build(layers: int) -> tuple[Callable[[], Any], Any]:
    """The DSL reading the decoder's `print_script` source (what a user writes)."""
    script = tf.print_script(build_decoder(num_layers=layers))
    directory = tempfile.mkdtemp()
    path = Path(directory) / "decoder_dsl.py"
    path.write_text(script)
    return (lambda: runpy.run_path(str(path))["module"]), path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--dsl", action="store_true", help="also time the DSL (a few seconds)")
    args = parser.parse_args()
    n, repeat = args.layers, args.repeat
    try:
        import tvm
        import tvm_ffi  # TVM 0.27 moved structural_hash / structural_equal here
    except ImportError:
        tvm = tvm_ffi = None
        print("TVM is not installed (pip install -e '.[bench]'): TileFoundry only", file=sys.stderr)

    rows: list[tuple[str, float, float | None]] = []
    tvm_build = None if tvm is None else (lambda: tvm_fresh(n))
    build, theirs, a, tvm_a = side_by_side(lambda: tf_fresh(n), tvm_build, repeat)
    rows.append(("build, every layer fresh", build, theirs))
    example, theirs, _, _ = side_by_side(lambda: build_decoder(num_layers=n), tvm_build, repeat)
    rows.append(("build, the example (one prototype renamed)", example, theirs))
    limit, _, _, _ = side_by_side(lambda: Rebuilder().operation(a.module_op), None, repeat)
    rows.append(("the xDSL objects alone (the limit, `object_limit.py`)", limit, None))
    if args.dsl:
        work, _ = dsl_build(n)
        dsl, theirs, found, _ = side_by_side(work, tvm_build, max(1, repeat // 2))
        assert tf.structural_equal(found, build_decoder(num_layers=n))
        rows.append(("build, the DSL (runpy of print_script's source)", dsl, theirs))
    b, other = tf_fresh(n), tf_fresh(n, d_ff=D_FF * 2)  # `other`: the last layer differs
    ops = sum(1 for _ in a.module_op.walk())
    tvm_b = tvm_other = None
    if tvm is not None:
        tvm_b, tvm_other = tvm_fresh(n), tvm_fresh(n, d_ff=D_FF * 2)

    def theirs_or_none(work: Callable[[], Any]) -> Callable[[], Any] | None:
        return None if tvm is None else work

    hash_, theirs, h, th = side_by_side(
        lambda: tf.structural_hash(a),
        theirs_or_none(lambda: tvm_ffi.structural_hash(tvm_a)),
        repeat,
    )
    assert h == tf.structural_hash(b) and h != tf.structural_hash(other)
    if tvm is not None:
        assert th == tvm_ffi.structural_hash(tvm_b) and th != tvm_ffi.structural_hash(tvm_other)
    rows.append(("structural hash", hash_, theirs))

    cases = (("equal, built apart", b, tvm_b, True), ("equal, the same object", a, tvm_a, True))
    cases += (("unequal, the last layer differs", other, tvm_other, False),)
    for label, rhs, tvm_rhs, expected in cases:
        t, theirs, same, tvm_same = side_by_side(
            lambda rhs=rhs: tf.structural_equal(a, rhs),
            theirs_or_none(lambda tvm_rhs=tvm_rhs: tvm_ffi.structural_equal(tvm_a, tvm_rhs)),
            repeat,
        )
        assert same is expected, label
        assert tvm is None or bool(tvm_same) is expected, label
        rows.append((f"structural equal, {label}", t, theirs))

    version = f"TVM {tvm.__version__}" if tvm is not None else "no TVM"
    tvm_ops = ""
    if tvm is not None:
        bindings = sum(
            len(block.bindings)
            for func in tvm_a.functions.values()
            for block in func.body.blocks  # type: ignore[attr-defined]
        )
        tvm_ops = f"; Relax: {len(tvm_a.functions)} functions, {bindings} bindings"
    print(f"decoder, {n} layers: {ops:,} TileFoundry ops{tvm_ops}; {version}; best of {repeat}")
    print("| what | TileFoundry CPU ms | TVM Relax CPU ms | TileFoundry / TVM |\n|---|---|---|---|")
    for label, ours, theirs in rows:
        ratio = f"**{ours / theirs:.2f}**" if theirs else "-"
        shown = f"{theirs * 1e3:.2f}" if theirs is not None else "-"
        print(f"| {label} | {ours * 1e3:.2f} | {shown} | {ratio} |")
    print(f"build, every layer fresh / the objects alone: {build / limit:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
