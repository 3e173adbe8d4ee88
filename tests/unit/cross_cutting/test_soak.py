"""A long-lived process stays bounded (issue 25): one process parses, verifies, runs a pipeline,
prints, interprets, lowers and compiles the same modules over and over, and after a warm-up the
live objects (`gc.get_objects()`) and the traced memory (`tracemalloc`) stop growing, and no
cache of the library (`CACHES.sizes()`) holds more entries than it did after the first round.

Counts, not timings (the time per call is `benchmarks/soak.py`'s). The modules: the lit inputs
of tests/filecheck/transforms (every other chunk that verifies), programs of the translation
validation's generator (`tilefoundry.testing.program_generator`), a DSL `@tf.func` module built
anew each time, `examples/kernel.mlir` compiled by the native backend (few times: the first
build runs the upstream tools, the others are hits of the library cache, which stays at one
library), and a tiny torch model imported 50 times.

Before the fix (identity memos that kept every parsed module's attributes) every round kept
what it made, for good (c9ab868): the text round +4,325 live objects and +744 kB traced, the
DSL round (20 builds) +540 objects and +86 kB, the compile round (4 compiles) +700 objects and
+108 kB, the torch round (12 imports) +2,537 objects (about 69 an import of them torch.fx's
cached sources, `frontends/torch/fx_sources.py`). Now each stays flat.
"""

from __future__ import annotations

import gc
import logging
import os
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import ConstTensor, Tensor, f32
from tilefoundry.support.caches import CACHES
from tilefoundry.testing.program_generator import generate_program
from tilefoundry.testing.validation import observe

ROOT = Path(__file__).parents[3]

OBJECT_SLACK = 300
"""Live objects a soak may gain from its first measured round to its last (interned strings,
a dict that grows its table, numpy's scratch): a growth per call shows up as thousands."""

BYTES_SLACK = 256 * 1024
"""Traced bytes it may gain in the same span."""


def lit_inputs() -> list[str]:
    """Each chunk of tests/filecheck/transforms/*.mlir that parses and verifies."""
    chunks = []
    for path in sorted((ROOT / "tests" / "filecheck" / "transforms").glob("*.mlir")):
        text = path.read_text()
        if "expected-error" in text:
            continue
        for chunk in text.split("// -----"):
            try:
                tf.parse_module(chunk, path.name).verify()
            except Exception:  # noqa: BLE001 - a chunk for a tool's flags, not a valid module
                continue
            chunks.append(chunk)
    return chunks


def soak(
    step: Callable[[], object],
    *,
    rounds: int,
    traced_rounds: int = 2,
    traced_step: Callable[[], object] | None = None,
) -> tuple[list[int], list[int]]:
    """Run `step` `rounds` times counting the live objects after each (a full collection
    first), then `traced_step` (`step` by default) `traced_rounds` times under `tracemalloc`
    (which makes a call several times slower) with the traced bytes after each."""
    objects, traced = [], []
    for _ in range(rounds):
        step()
        gc.collect()
        objects.append(len(gc.get_objects()))
    tracemalloc.start()
    try:
        for _ in range(traced_rounds):
            (traced_step or step)()
            gc.collect()
            traced.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    return objects, traced


def assert_plateau(what: str, objects: list[int], traced: list[int]) -> None:
    shown = f"{what}: live objects by round {objects}, traced bytes {traced}"
    assert objects[-1] - objects[0] <= OBJECT_SLACK, shown
    assert traced[-1] - traced[0] <= BYTES_SLACK, shown


def assert_caches_bounded(first: dict[str, int]) -> None:
    grown = {
        name: (first.get(name, 0), count)
        for name, count in CACHES.sizes().items()
        if count > first.get(name, 0)
    }
    assert not grown, f"caches grew (entries after the first round, now): {grown}"


def test_text_passes_interpreter_and_lowering_stay_bounded() -> None:
    chunks = lit_inputs()[::2]  # every other one: the soak's time is the traced rounds'
    assert len(chunks) > 15
    programs = [generate_program(seed) for seed in range(4)]

    def step() -> None:
        for chunk in chunks:
            module = tf.parse_module(chunk, "chunk.mlir")
            module.verify()
            tf.print_module(module, debuginfo=True)
            tf.print_module(tf.run_passes(module, "canonicalize,cse,dce"))
        for program in programs:
            module = tf.parse_module(program.text, f"seed{program.seed}")
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                observe(module, program.runs)
                observe(tf.lower(module), [r for r in program.runs if r.path == "main"])
            tf.print_module(tf.run_passes(module, "tf-simplify,tf-fold-constants,cse"))

    step()
    first = CACHES.sizes()
    objects, traced = soak(step, rounds=4)
    assert_plateau("parse/verify/pipeline/print/interpret/lower", objects, traced)
    assert_caches_bounded(first)


N = tf.DimVar("n", 1, 65)


def test_the_dsl_stays_bounded() -> None:
    x = np.ones((4, 8), np.float32)
    w = np.eye(8, dtype=np.float32)

    def build() -> tf.Module:
        @tf.func
        def mlp(x: Tensor[(N, 8), f32], w: ConstTensor[(8, 8), f32]):  # type: ignore[no-untyped-def]
            h = x @ w
            return ops.relu(h + 1.0)

        assert isinstance(mlp, tf.Module)
        return mlp

    def step() -> None:
        for _ in range(20):
            module = build()
            module.verify()
            tf.print_module(module, debuginfo=True)
            assert (module(x, w) == 2.0).all()

    step()
    first = CACHES.sizes()
    objects, traced = soak(step, rounds=4)
    assert_plateau("the DSL", objects, traced)
    assert_caches_bounded(first)


def test_compiling_again_stays_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path / "cache"))
    text = (ROOT / "examples" / "kernel.mlir").read_text()
    rng = np.random.default_rng(0)
    x, gain = rng.standard_normal((4, 8)).astype(np.float32), np.ones(8, np.float32)

    def step() -> None:
        for _ in range(4):
            compiled = tf.compile(tf.parse_module(text, "kernel.mlir"))
            out = np.zeros((4, 8), np.float32)
            compiled(x, gain, out)
            assert out.tobytes() == (x * gain).tobytes()

    step()  # the one build: the upstream tools run once
    first = CACHES.sizes()
    objects, traced = soak(step, rounds=3)
    assert_plateau("compile", objects, traced)
    assert_caches_bounded(first)
    assert len(list((tmp_path / "cache").glob("*.so"))) == 1  # every later compile was a hit


def _torch() -> Any:
    if os.environ.get("TF_REQUIRE_TORCH"):
        import torch

        return torch
    return pytest.importorskip("torch")


def test_importing_a_torch_model_again_stays_bounded() -> None:
    torch = _torch()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 4))
    model.eval()
    inputs = (torch.randn(2, 8),)
    with torch.no_grad():
        want = model(*inputs).numpy()

    def imports(count: int) -> None:
        for _ in range(count):
            loaded = tf.from_torch(model, inputs)
            got = loaded(inputs[0].numpy())
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)

    # torch's structured-trace logger (`torch.__trace`, always at DEBUG, deaf to
    # `logging.disable`) makes records on every export once anything enabled it, and pytest's
    # log capture keeps each for the test's report: the harness's memory, not the library's,
    # so the handlers drop what is below INFO here
    handlers = [h for name in ("", "torch.__trace") for h in logging.getLogger(name).handlers]
    levels = [h.level for h in handlers]
    for handler in handlers:
        handler.setLevel(max(handler.level, logging.INFO))
    try:
        imports(12)
        first = CACHES.sizes()
        # 50 in all: 12, 3 rounds of 12, 2 traced rounds of 1 (torch's run_decompositions
        # takes most of an import's 0.2 s, tracemalloc makes it 4x)
        objects, traced = soak(lambda: imports(12), rounds=3, traced_step=lambda: imports(1))
    finally:
        for handler, level in zip(handlers, levels, strict=True):
            handler.setLevel(level)
    assert_plateau("torch import (50 in all)", objects, traced)
    assert_caches_bounded(first)
