"""A Hugging Face Llama through the torch frontend. `make demo-torch` runs this.

1. import a tiny `LlamaForCausalLM` (random weights, nothing downloaded) with
   `tilefoundry.from_torch`: a Module tree that mirrors its `nn.Module` hierarchy;
2. print the tree: each submodule by its checkpoint name, its class, and its forward's FLOPs and
   roofline time on the H100 (`tilefoundry.analyze`);
3. select a decoder layer as a kernel: `tf-select`, `tf-inline`, `tf-prune-unreachable`,
   `canonicalize`, `cse`, and analyze it;
4. run the whole model, after `canonicalize,cse`, on numpy against PyTorch's logits.

    python examples/demo_torch.py [--layers 2] [--tokens 8] [--layer 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter

import numpy as np

import tilefoundry as tf


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
    options = parser.parse_args()

    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
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

    print("4. the model on numpy against PyTorch's logits")
    after = tf.run_passes(root, "canonicalize,cse")
    started = time.perf_counter()
    got = tf.LoadedModule(after, loaded.bindings)(ids.numpy())
    took = time.perf_counter() - started
    with torch.no_grad():
        want = model(ids, use_cache=False).logits.numpy()
    error = float(np.max(np.abs(got - want)))
    same = bool(np.array_equal(np.argmax(got, -1), np.argmax(want, -1)))
    print(
        f"      logits {list(got.shape)} in {took:.3f} s: max abs error {error:.2e}, "
        f"same next tokens: {same}"
    )
    return 0 if error < 1e-4 and same else 1


if __name__ == "__main__":
    sys.exit(main())
