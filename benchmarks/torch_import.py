"""The torch frontend's cost, per model of the test suite and a Llama at more layers: the IR
build after `torch.export` (`import_lowered`, ours) next to TVM Relax's translation of the same
exported program (`from_exported_program`, where TVM, the `[bench]` extra, is installed), and
both next to `torch.export.export` and what the import asks of torch (`lower`:
`run_decompositions` of the recurrent layers and `unflatten`). Then one forward on the
interpreter against PyTorch eager on CPU.

    python benchmarks/torch_import.py [--models llama,gpt2,...] [--repeat 5] [--no-forward]

TVM translates the very program our build reads (`lower`'s, `run_ep_decomposition=False`);
where it refuses one of its ops, it translates its own decomposition of the export instead
(`run_decompositions()`, not timed), and the `tvm on` column says which. Prints a Markdown
table. The first IR build of a model is timed apart from the repeats (best of `--repeat`):
a repeat meets the attributes the first one shared (`support/caches.py`, `shared`) and the
verifier's memo of them, as an import of a model alike (another size of one family) does.
"objects alone" is the limit of an xDSL-hosted IR for the imported module (`object_limit.py`'s
`Rebuilder`): creating the same xDSL objects from their parts (each distinct attribute once,
every op through `Operation.create`), nothing inferred, checked or verified; "build / objects"
is the build's ratio to it. Times are CPU seconds of the process (`time.process_time`, every thread's), best of
`--repeat` (median in brackets): on a machine shared with other jobs, wall time would count
their turns. For information only: no test depends on these times.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from object_limit import Rebuilder  # noqa: E402

MODELS = "llama,gpt2,bert,vit,resnet,cnn,llama8,llama32"
"""The suite's tiny Llama, GPT-2 and BERT (`tests/unit/frontends/torch/torch_models.py`), its ViT,
ResNet and CNN (`zoo_models.py`), and the Llama at 8 and 32 layers."""


def _suite() -> tuple[Any, Any]:
    sys.path.insert(
        0, str(Path(__file__).resolve().parents[1] / "tests" / "unit" / "frontends" / "torch")
    )
    import torch_models
    import zoo_models

    return torch_models, zoo_models


def _model(name: str) -> tuple[Any, tuple[Any, ...], dict[str, Any]]:
    """The model (eval mode), its example inputs and keyword arguments."""
    import torch

    torch_models, zoo_models = _suite()
    torch.manual_seed(0)
    if name.startswith("llama") and name != "llama":
        from transformers import LlamaConfig, LlamaForCausalLM

        config = LlamaConfig(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=int(name.removeprefix("llama")),
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=256,
        )
        return LlamaForCausalLM(config).eval(), (torch_models.ids(),), {"use_cache": False}
    if name in ("llama", "gpt2", "bert"):
        model, kwargs, _ = torch_models._hf(name)
        return model.eval().float(), (torch_models.ids(),), kwargs
    arch = next(a for a in zoo_models.ARCHS if a.name == name)
    return arch.build().eval().float(), arch.inputs(), dict(arch.kwargs)


def _timed(repeat: int, run: Callable[[], Any]) -> tuple[list[float], Any]:
    times: list[float] = []
    result = None
    for _ in range(repeat):
        started = time.process_time()
        result = run()
        times.append(time.process_time() - started)
    return times, result


def _ms(times: list[float]) -> str:
    return f"{min(times) * 1e3:.1f} ({statistics.median(times) * 1e3:.1f})"


def _tvm(program: Any, repeat: int) -> tuple[list[float], str] | None:
    """TVM's translation times of `program` (`lower`'s), and which program it translated (see
    the docstring); None without TVM."""
    try:
        from tvm.relax.frontend.torch import from_exported_program
    except ImportError:
        return None
    try:
        from_exported_program(program, run_ep_decomposition=False)
        on = "ours"
    except Exception:  # noqa: BLE001 - an op TVM's translator takes only decomposed
        program = program.run_decompositions()
        on = "its own"
    times, _ = _timed(repeat, lambda: from_exported_program(program, run_ep_decomposition=False))
    return times, on


class _Bound:
    """The model with its keyword arguments bound (`use_cache=False`): TVM's translator takes
    no non-tensor input, which a keyword argument is in the exported program."""

    def __new__(cls, model: Any, kwargs: dict[str, Any]) -> Any:
        import torch

        class Bound(torch.nn.Module):  # type: ignore[misc]
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, *args: Any) -> Any:
                out = self.model(*args, **kwargs)
                return out.logits if hasattr(out, "logits") else out

        return Bound()


def _row(name: str, repeat: int, *, forward: bool) -> str:
    """One model's row of the table."""
    import torch

    from tilefoundry.frontends.torch.importer import import_lowered, lower

    model, inputs, kwargs = _model(name)
    with torch.no_grad():
        export_s, ep = _timed(1, lambda: torch.export.export(model, inputs, kwargs=kwargs))
    lower_s, (lowered, root) = _timed(1, lambda: lower(ep))
    cls = type(model).__name__
    first_s, _ = _timed(1, lambda: import_lowered(lowered, root, name=cls))
    build_s, loaded = _timed(repeat, lambda: import_lowered(lowered, root, name=cls))
    module_op = loaded.module.module_op
    ops = sum(1 for _ in module_op.walk())
    limit_s, _ = _timed(repeat, lambda: Rebuilder().operation(module_op))
    tvm_program = lowered
    if kwargs:
        with torch.no_grad():
            tvm_program = lower(torch.export.export(_Bound(model, kwargs), inputs))[0]
    tvm = _tvm(tvm_program, repeat)
    tvm_cells = "- | - | -"
    if tvm is not None:
        tvm_s, on = tvm
        tvm_cells = f"{_ms(tvm_s)} | {on} | **{min(build_s) / min(tvm_s):.2f}**"
    timings = "- | -"
    if forward:
        arrays = tuple(i.numpy() for i in inputs)
        with torch.no_grad():
            model(*inputs, **kwargs)  # warm up eager (its first call sets up the kernels)
            eager_s, _ = _timed(5, lambda: model(*inputs, **kwargs))
        interp_s, _ = _timed(5, lambda: loaded(*arrays))
        timings = f"{min(eager_s) * 1e3:.2f} | {min(interp_s) * 1e3:.2f}"
    limit_cells = f"{_ms(limit_s)} | {min(build_s) / min(limit_s):.1f}"
    return (
        f"| {name} | {ops:,} | {export_s[0] * 1e3:.0f} | {lower_s[0] * 1e3:.0f} "
        f"| {first_s[0] * 1e3:.1f} | **{_ms(build_s)}** | {limit_cells} | {tvm_cells} "
        f"| {timings} |"
    )


def _warm_up() -> None:
    """Import a tiny model first: what the first import in a process loads once (the op
    libraries, torch.export's own set-up) is then not any model's time."""
    import torch

    from tilefoundry.frontends.torch.importer import from_torch

    from_torch(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU()), (torch.ones(2, 4),))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=MODELS)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--no-forward", action="store_true", help="skip the forward timings")
    options = parser.parse_args()

    warnings.filterwarnings("ignore", category=FutureWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    print(
        "| model | ops | torch.export ms | lower ms | first IR build ms | **IR build ms** "
        "| objects alone ms | build / objects | TVM translate ms | tvm on | **build / TVM** "
        "| eager forward ms | interpreter forward ms |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    _warm_up()
    for name in options.models.split(","):
        print(_row(name, options.repeat, forward=not options.no_forward), flush=True)


if __name__ == "__main__":
    main()
