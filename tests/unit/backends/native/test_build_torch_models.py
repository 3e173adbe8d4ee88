"""The PyTorch models of the suite compiled natively: every family the frontend tests import
(`tests/unit/frontends/torch/torch_models.py`: tiny configs, random weights), compiled with its
weights bound (`tilefoundry.compile(module, bindings)`), runs as PyTorch eager runs it within
1e-4, and as the interpreter runs it within the float bounds of docs/compile.md (libm's
transcendentals, BLAS-order matmuls: far below 1e-5 at these sizes)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "frontends" / "torch"))
from torch_models import MORE_FAMILIES, VOCAB, Imported, first, import_model  # noqa: E402
from zoo_models import imported as zoo_imported  # noqa: E402

import tilefoundry as tf  # noqa: E402

FAMILIES = ["mlp", "encoder_layer", "llama", "qwen2", "gpt2", "bert", *MORE_FAMILIES]


@pytest.fixture(scope="module", params=FAMILIES)
def model(request: pytest.FixtureRequest) -> tuple[Imported, tf.CompiledModule]:
    imported = import_model(request.param)
    return imported, tf.compile(imported.loaded.module, imported.loaded.bindings)


def _interpreted(m: Imported) -> Any:
    # T5's relative-position buckets take log(0) = -inf and cast it to an integer, in lanes a
    # `where` then discards, as torch does: numpy computes the same and would warn about it
    with np.errstate(divide="ignore", invalid="ignore"):
        return first(m.loaded(*m.inputs))


def test_the_compiled_model_runs_as_pytorch_and_the_interpreter_do(
    model: tuple[Imported, tf.CompiledModule],
) -> None:
    m, compiled = model
    got = first(compiled(*m.inputs))
    expected = _interpreted(m)
    assert got.dtype == expected.dtype and got.shape == expected.shape == m.want.shape
    np.testing.assert_allclose(got, m.want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_on_other_inputs_the_compiled_model_runs_as_the_interpreter_does(
    model: tuple[Imported, tf.CompiledModule],
) -> None:
    m, compiled = model
    rng = np.random.default_rng(7)
    other = tuple(
        rng.integers(0, VOCAB, x.shape).astype(x.dtype)
        if x.dtype.kind == "i"
        else rng.standard_normal(x.shape).astype(x.dtype)
        for x in m.inputs
    )
    got = first(compiled(*other))
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = first(m.loaded(*other))
    assert not np.array_equal(got, first(compiled(*m.inputs)))
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


ZOO_COMPILED = ["cnn", "audio_conv1d", "group_norm_block", "resnet", "vit", "topk_router"]
"""Models of the zoo (`tests/unit/frontends/torch/zoo_models.py`) on the ops it added: convolutions
(strided, dilated, grouped, depthwise), max / avg / adaptive pooling, a ViT's patch embedding,
a top-k router."""


@pytest.mark.parametrize("name", ZOO_COMPILED)
def test_a_zoo_model_compiled_runs_as_pytorch_and_the_interpreter_do(name: str) -> None:
    m = zoo_imported(name)
    compiled = tf.compile(m.loaded.module, m.loaded.bindings)
    got = first(compiled(*m.inputs))
    expected = first(m.loaded(*m.inputs))
    assert got.dtype == expected.dtype and got.shape == expected.shape == m.want.shape
    scale = float(np.abs(m.want).max())
    assert float(np.abs(got - m.want).max()) <= 1e-4 * scale
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * scale)
