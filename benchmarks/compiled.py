"""Compiled code against the references, one thread, side by side in one run: a 512x512 f32
matmul (static and dynamic rows) against numpy's BLAS, and an MLP and the tiny decoders of the
test suite (`tests/unit/frontends/torch/torch_models.py`: Llama and GPT-2, 2 layers, width 64, 8
tokens) compiled by each backend against PyTorch eager, the interpreter and TVM Relax (built
for `llvm`, when `import tvm` works); the compile time of each model (an empty artifact cache).

    python benchmarks/compiled.py [--repeat 20] [--models mlp,llama,gpt2]

Times are CPU seconds of the process (`time.process_time`: the machine is shared, and a
process that waits for a core is not charged), the best of `--repeat` calls after one warm-up
call; compile times are wall seconds and CPU seconds (the process and the tools it ran).
Prints Markdown. It measures the checkout it is in (a worktree's code, not the venv's
editable install). For information only: no test depends
on these times.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # before numpy / torch load their thread pools

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's tilefoundry, not the one the venv installed
BACKENDS = ("native", "iree")


def best(call: Callable[[], Any], repeat: int) -> float:
    """The fastest of `repeat` calls after a warm-up, in CPU milliseconds."""
    call()
    times = []
    for _ in range(repeat):
        start = time.process_time()
        call()
        times.append(time.process_time() - start)
    return min(times) * 1e3


def _cpu() -> float:
    """CPU seconds of this process and of the tools it ran (they ran one after the other)."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


def compiled(module: Any, bindings: Any, backend: str) -> tuple[Any, str] | str:
    """The compiled module and its compile time (wall s / CPU s), or why there is none."""
    import tilefoundry as tf

    start, cpu = time.perf_counter(), _cpu()
    try:
        result = tf.compile(module, bindings, backend=backend)
    except Exception as error:  # noqa: BLE001 - a missing backend is reported, not raised
        first = str(error).splitlines()[0] if str(error) else type(error).__name__
        if backend != "native" and ("unknown backend" in first or "No module" in first):
            return f"{backend}: not installed"
        return f"{backend}: {first[:120]}"
    return result, f"{time.perf_counter() - start:.2f} / {_cpu() - cpu:.2f}"


MATMUL = """
tf.module @m entry @mm {{
  hir.func @mm(%a: {t}, %b: tensor<512x512xf32>) -> {t} {{
    %y = tf.call tf.linalg.matmul(%a, %b) : ({t}, tensor<512x512xf32>) -> {t}
    hir.return %y : {t}
  }}
}}
"""


def matmul_rows(repeat: int) -> list[str]:
    import tilefoundry as tf

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((512, 512)).astype(np.float32) for _ in range(2))
    numpy_ms = best(lambda: a @ b, repeat)
    rows = []
    for label, type in (
        ("static", "tensor<512x512xf32>"),
        ("dynamic rows", "tensor<?x512xf32, #tf.dims<n: 1 to 4097>>"),
    ):
        module = tf.parse_module(MATMUL.format(t=type), "matmul.mlir")
        for backend in BACKENDS:
            made = compiled(module, None, backend)
            if isinstance(made, str):
                rows.append(f"| 512x512 f32 matmul, {label} | {made} | | {numpy_ms:.2f} | |")
                continue
            program, seconds = made
            ms = best(lambda: program.mm(a, b), repeat)  # noqa: B023 - called at once
            rows.append(
                f"| 512x512 f32 matmul, {label} | {backend} | {ms:.2f} | {numpy_ms:.2f} "
                f"| **{ms / numpy_ms:.2f}** (compile {seconds} s) |"
            )
            if backend == "iree":
                kernel = best(_iree_kernel(program.program.function("mm"), a, b), repeat)
                rows.append(
                    f"| 512x512 f32 matmul, {label} | iree kernel (invoke alone) | {kernel:.2f} "
                    f"| {numpy_ms:.2f} | {kernel / numpy_ms:.2f} |"
                )
    return rows


def _iree_kernel(function: Any, *arrays: Any) -> Callable[[], Any]:
    """IREE's call alone: `VmContext.invoke` on inputs imported once (no argument checks, no
    input copies, no result handling), to split a call's time into IREE's and ours."""
    from iree import runtime

    from tilefoundry.backends.iree.abi import _aligned

    kept = [_aligned(array) for array in arrays]
    inputs = runtime.VmVariantList(len(kept))
    for data in kept:
        inputs.push_ref(function._view(data))

    def call() -> Any:
        outputs = runtime.VmVariantList(2)
        function._context.invoke(function._function, inputs, outputs)
        return kept, outputs

    return call


def _tvm_forward(
    model: Any, inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> tuple[Callable[[], Any], float] | str:
    """TVM Relax's forward of the exported model, built for `llvm`, and its build time."""
    try:
        import tvm
        from tvm import relax
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError:
        return "TVM: not installed (skipped)"
    import torch

    class Forward(torch.nn.Module):
        """The model's first output as one tensor (what `from_exported_program` takes)."""

        def __init__(self) -> None:
            super().__init__()
            self.model = model

        def forward(self, *args: Any) -> Any:
            out = self.model(*args, **kwargs)
            return out.logits if hasattr(out, "logits") else out

    try:
        start = time.perf_counter()
        exported = torch.export.export(Forward(), tuple(torch.from_numpy(i) for i in inputs))
        mod = from_exported_program(exported, keep_params_as_input=False)
        built = relax.build(mod, target="llvm")
        machine = relax.VirtualMachine(built, tvm.cpu())
        seconds = time.perf_counter() - start
        array = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
        args = [array(i) for i in inputs]
        return (lambda: machine["main"](*args)), seconds
    except Exception as error:  # noqa: BLE001 - reported in the table
        return f"TVM: {str(error).splitlines()[0][:100]}"


def model_rows(names: list[str], repeat: int) -> list[str]:
    import torch

    sys.path.insert(0, str(ROOT / "tests" / "unit" / "frontends"))
    torch.set_num_threads(1)
    return [row for name in names for row in _one_model(name, repeat)]


def _one_model(name: str, repeat: int) -> list[str]:
    import torch
    import torch_models

    imported = torch_models.import_model(name)
    loaded, inputs = imported.loaded, imported.inputs
    tensors = tuple(torch.from_numpy(i) for i in inputs)
    kwargs = {"use_cache": False} if name in ("llama", "gpt2") else {}
    with torch.no_grad():
        eager = best(lambda: imported.model(*tensors, **kwargs), repeat)
    interpreted = best(lambda: loaded(*inputs), max(3, repeat // 5))
    rows = [
        f"| {name} | PyTorch eager | {eager:.3f} | 1.00 | |",
        f"| {name} | interpreter | {interpreted:.3f} | {interpreted / eager:.2f} | |",
    ]
    for backend in BACKENDS:
        made = compiled(loaded.module, dict(loaded.bindings), backend)
        if isinstance(made, str):
            rows.append(f"| {name} | {made} | | | |")
            continue
        program, seconds = made
        out = torch_models.first(program(*inputs))
        error = float(np.max(np.abs(out - imported.want)))
        ms = best(lambda: program(*inputs), repeat)  # noqa: B023 - called at once
        rows.append(
            f"| {name} | {backend} | {ms:.3f} | **{ms / eager:.2f}** "
            f"| {seconds} (max abs error {error:.1e}) |"
        )
    tvm = _tvm_forward(imported.model, inputs, kwargs)
    if isinstance(tvm, str):
        rows.append(f"| {name} | {tvm} | | | |")
    else:
        forward, built = tvm
        ms = best(forward, repeat)
        rows.append(f"| {name} | TVM Relax (llvm) | {ms:.3f} | {ms / eager:.2f} | {built:.2f} |")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--models", default="mlp,llama,gpt2")
    options = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.environ["TF_CACHE_DIR"] = tempfile.mkdtemp(prefix="tf-bench-cache-")  # compile anew

    print("| case | backend | ms | numpy ms | backend / numpy |")
    print("|---|---|---|---|---|")
    for row in matmul_rows(options.repeat):
        print(row, flush=True)
    print()
    print("| model | run by | forward ms | / PyTorch eager | compile s (wall / CPU) |")
    print("|---|---|---|---|---|")
    for row in model_rows([n for n in options.models.split(",") if n], options.repeat):
        print(row, flush=True)


if __name__ == "__main__":
    main()
