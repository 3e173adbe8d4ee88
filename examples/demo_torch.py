"""A Hugging Face Llama through the torch frontend. `make demo-torch` runs this.

1. import a tiny `LlamaForCausalLM` (random weights, nothing downloaded) with
   `tilefoundry.from_torch`: a Module tree that mirrors its `nn.Module` hierarchy;
2. print the tree: each submodule by its checkpoint name, its class, and its forward's FLOPs and
   roofline time on the H100 (`tilefoundry.analyze`);
3. select a decoder layer as a kernel: `tf-select`, `tf-inline`, `tf-prune-unreachable`,
   `canonicalize`, `cse`, and analyze it;
4. compile the layer natively: `tilefoundry.lower`, `tilefoundry.emit_mlir`,
   `tilefoundry.compile` with its weights bound (every stage's file kept in
   `build/native-torch/`, docs/compile.md);
5. run the layer on the inputs PyTorch gives it, interpreted and native, against PyTorch's
   layer: the max abs errors and the time per call of each;
6. run the whole model, interpreted and compiled, against PyTorch's logits.

    python examples/demo_torch.py [--layers 2] [--tokens 8] [--layer 1] [--out build]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tilefoundry as tf
from tilefoundry.backends.native.toolchain import StageError, ToolchainError

BOUND = 1e-4
"""The largest max abs difference the demo accepts (against PyTorch, and native against the
interpreter)."""


def per_call(run: Callable[[], object], budget: float = 0.2) -> float:
    """The best time of one call of `run` (seconds), over repeats filling about `budget` s."""
    best, spent = float("inf"), 0.0
    while spent < budget or best == float("inf"):
        started = time.perf_counter()
        run()
        took = time.perf_counter() - started
        best, spent = min(best, took), spent + took
    return best


def _compared(what: str, got: Any, want: Any, against: str) -> bool:
    error = float(np.max(np.abs(np.asarray(got) - np.asarray(want))))
    verdict = "OK" if error < BOUND else f"MISMATCH (bound {BOUND:.0e})"
    print(f"      {what}: max abs error vs {against} {error:.2e}  {verdict}")
    return error < BOUND


def _times(what: str, times: dict[str, float]) -> None:
    shown = ", ".join(f"{name} {t * 1e3:.3f} ms" for name, t in times.items())
    ratio = times["PyTorch"] / times["native"]
    than = f"{ratio:.1f}x faster" if ratio >= 1 else f"{1 / ratio:.1f}x slower"
    print(f"      {what} time per call: {shown} (native {than} than PyTorch)")


def _layer_io(model: Any, ids: Any, path: str) -> tuple[list[Any], Any, Callable[[], Any]]:
    """What the layer at `path` takes and gives in PyTorch on `ids`: the tensors its imported
    function takes (the arguments of the layer's graph in `torch.export.unflatten` of the
    program `from_torch` imports), its eager output, and a call of the eager layer."""
    import torch

    taken: dict[str, Any] = {}
    with torch.no_grad(), warnings.catch_warnings():
        # torch 2.13 warns about its own pytree internals while copying the program
        warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
        program = torch.export.export(model, (ids,), {"use_cache": False})
        unflat = torch.export.unflatten(program.run_decompositions({}))
        hook = unflat.get_submodule(path).register_forward_pre_hook(
            lambda _, args: taken.setdefault("args", args)
        )
        unflat(ids, use_cache=False)
        hook.remove()
        layer = model.get_submodule(path)

        def seen(_: Any, args: Any, kwargs: Any, out: Any) -> None:
            taken.update(eager=(args, kwargs), out=out)

        hook = layer.register_forward_hook(seen, with_kwargs=True)
        model(ids, use_cache=False)
        hook.remove()
    args, kwargs = taken["eager"]
    out = taken["out"][0] if isinstance(taken["out"], tuple) else taken["out"]

    def call() -> Any:
        with torch.no_grad():
            return layer(*args, **kwargs)

    inputs = [a.numpy() for a in taken["args"] if isinstance(a, torch.Tensor)]
    return inputs, out.numpy(), call


def _tree(module: tf.Module, costs: dict[str, tf.Cost]) -> list[str]:
    """One line per module of the tree: checkpoint name, class, FLOPs and time of its forward."""
    rows: list[tuple[str, str, str, str]] = [("submodule", "class", "FLOPs", "h100 time")]

    def visit(node: tf.Module, prefix: str, depth: int) -> None:
        cost = costs.get(f"{prefix}forward")
        label = ("  " * depth) + (node.attached_name if depth else "<root>")
        flops = f"{cost.flops:,}" if cost else "-"
        took = f"{cost.time_s * 1e9:.2f} ns ({cost.bound})" if cost else "-"
        rows.append((label, node.name, flops, took))
        for child in node.modules:
            visit(child, f"{prefix}{child.attached_name}.", depth + 1)

    visit(module, "", 0)
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    lines = []
    for index, row in enumerate(rows):
        cells = [row[0].ljust(widths[0]), row[1].ljust(widths[1])]
        cells += [row[2].rjust(widths[2]), row[3].rjust(widths[3])]
        lines.append("      " + "  ".join(cells))
        if index == 0:
            lines.append("      " + "  ".join("-" * w for w in widths))
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--layer", type=int, default=1)
    parser.add_argument("--out", default="build")
    options = parser.parse_args()

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    torch.set_num_threads(1)  # timed as the native code runs: one thread
    config = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=options.layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
    )
    model = LlamaForCausalLM(config).eval()
    ids = torch.randint(0, config.vocab_size, (1, options.tokens))

    print(f"1. tf.from_torch(LlamaForCausalLM, {options.layers} layers, ids[1x{options.tokens}])")
    started = time.perf_counter()
    loaded = tf.from_torch(model, (ids,), {"use_cache": False})
    root = loaded.module
    calls = sum(1 for op in root.module_op.walk() if op.name == "tf.call")
    print(
        f"      imported in {time.perf_counter() - started:.2f} s: "
        f"{len(tf.function_selectors(root))} functions, {calls} calls, "
        f"{len(loaded.bindings)} weights bound by state_dict key"
    )

    print("2. the tree (tf.analyze on the h100)")
    costs = tf.analyze(root, dims={})
    for line in _tree(root, costs):
        print(line)

    path = f"model.layers.{options.layer}.forward"
    pipeline = f"tf-select{{path={path}}},tf-inline,tf-prune-unreachable,canonicalize,cse"
    print(f"3. a layer as a kernel: run_passes(m, '{pipeline}')")
    kernel = tf.run_passes(root, pipeline)
    counts = Counter(op.name for op in kernel.module_op.walk())
    cost = tf.analyze(kernel, dims={})["forward"]
    print(
        f"      {kernel.name} ({kernel.attached_name}): {counts['tf.call']} op calls, "
        f"{len(kernel.weights)} weights ({', '.join(list(kernel.weights)[:3])}, ...), "
        f"{cost.flops:,} FLOPs, {cost.time_s * 1e9:.2f} ns on {kernel.target} ({cost.bound})"
    )

    print("4. the layer compiled natively: tf.lower, tf.emit_mlir, tf.compile ...", flush=True)
    prefix = path.removesuffix("forward")
    own = {name: loaded.bindings[f"{prefix}{name}"] for name in kernel.weights}
    dump = Path(options.out) / "native-torch"
    started = time.perf_counter()
    lowered = tf.lower(kernel)
    text = tf.emit_mlir(lowered)
    try:
        compiled = tf.compile(lowered, own, dump=dump)
    except (ToolchainError, StageError) as err:  # a missing tool: the Debian package it is in
        print(f"demo-torch: {err}", file=sys.stderr)
        return 1
    files = sorted(dump.iterdir(), key=lambda f: f.stat().st_mtime)  # in the order of the stages
    print(
        f"      {len(text.splitlines())} lines of upstream MLIR, compiled in "
        f"{time.perf_counter() - started:.2f} s; {dump}/ keeps every stage:"
    )
    print(f"      {', '.join(f.name for f in files)}")

    print("5. the layer on the inputs PyTorch gives it, against PyTorch's layer ...", flush=True)
    inputs, want, torch_layer = _layer_io(model, ids, path.removesuffix(".forward"))
    interpreted = tf.LoadedModule(kernel, own)
    got = interpreted(*inputs)
    got_native = compiled(*inputs)
    ok = _compared("interpreter", got, want, "PyTorch")
    ok = _compared("native", got_native, want, "PyTorch") and ok
    ok = _compared("native", got_native, got, "the interpreter") and ok
    times = {
        "interpreter": per_call(lambda: interpreted(*inputs)),
        "native": per_call(lambda: compiled(*inputs)),
        "PyTorch": per_call(torch_layer),
    }
    _times(f"layer {options.layer}", times)

    print("6. the whole model against PyTorch's logits (compiling it natively ...)", flush=True)
    after = tf.run_passes(root, "canonicalize,cse")
    bound = tf.LoadedModule(after, loaded.bindings)
    started = time.perf_counter()
    whole = tf.compile(after, loaded.bindings)
    took = time.perf_counter() - started
    with torch.no_grad():
        want = model(ids, use_cache=False).logits.numpy()
    got, got_native = bound(ids.numpy()), whole(ids.numpy())
    same = bool(np.array_equal(np.argmax(got_native, -1), np.argmax(want, -1)))
    print(f"      logits {list(got.shape)}; compiled in {took:.2f} s; same next tokens: {same}")
    ok = _compared("interpreter", got, want, "PyTorch") and ok
    ok = _compared("native", got_native, want, "PyTorch") and ok

    def eager() -> Any:
        with torch.no_grad():
            return model(ids, use_cache=False)

    times = {
        "interpreter": per_call(lambda: bound(ids.numpy())),
        "native": per_call(lambda: whole(ids.numpy())),
        "PyTorch": per_call(eager),
    }
    _times("model", times)
    return 0 if ok and same else 1


if __name__ == "__main__":
    sys.exit(main())
