"""The torch frontend's cost: importing a tiny-width Llama at 2, 8 and 32 layers
(`from_exported_program`, split into what it asks of torch and the IR build), against
`torch.export.export` itself, and one forward on the interpreter against PyTorch eager on CPU.

    python benchmarks/torch_import.py [--layers 2,8,32] [--tokens 8] [--repeat 3]

Prints a Markdown table. For information only: no test depends on these times.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings
from typing import Any

import numpy as np


def _llama(layers: int) -> Any:
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=256,
    )
    return LlamaForCausalLM(config).eval()


def _best(times: list[float]) -> str:
    return f"{min(times):.3f} (median {statistics.median(times):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", default="2,8,32")
    parser.add_argument("--tokens", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()

    import torch

    from tilefoundry.frontends.torch.importer import import_lowered, lower

    warnings.filterwarnings("ignore", category=FutureWarning)
    print(
        "| layers | ops | torch.export s | lower s (run_decompositions + unflatten) "
        "| IR build s | import / export | eager forward ms | interpreter forward ms "
        "| interpreter / eager |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for layers in (int(n) for n in options.layers.split(",")):
        model = _llama(layers)
        ids = torch.randint(0, 256, (1, options.tokens))
        kwargs = {"use_cache": False}
        export_s, torch_s, build_s = [], [], []
        loaded = None
        for _ in range(options.repeat):
            started = time.perf_counter()
            with torch.no_grad():
                ep = torch.export.export(model, (ids,), kwargs=kwargs)
            export_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            lowered, root = lower(ep)  # what the import asks of torch
            torch_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            loaded = import_lowered(lowered, root, name="LlamaForCausalLM")  # the IR build
            build_s.append(time.perf_counter() - started)
        assert loaded is not None
        ops = sum(1 for _ in loaded.module.module_op.walk())
        eager_s, interp_s = [], []
        array = ids.numpy()
        with torch.no_grad():
            model(ids, **kwargs)  # warm up eager (its first call sets up the kernels)
        for _ in range(max(options.repeat, 5)):
            started = time.perf_counter()
            with torch.no_grad():
                want = model(ids, **kwargs).logits.numpy()
            eager_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            got = loaded(array)
            interp_s.append(time.perf_counter() - started)
        assert float(np.max(np.abs(got - want))) < 1e-4
        e, t, b = min(export_s), min(torch_s), min(build_s)
        f, r = min(eager_s), min(interp_s)
        print(
            f"| {layers} | {ops:,} | {_best(export_s)} | {_best(torch_s)} | {_best(build_s)} "
            f"| {(t + b) / e:.2f} | {f * 1e3:.2f} | {r * 1e3:.2f} | {r / f:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
