"""Imported PyTorch models compiled by IREE against PyTorch: a tiny Llama (random weights,
nothing downloaded) and an encoder layer; an erf GELU (torch's default) is refused, as f64 erf
is (`test_limits.py`)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "frontends" / "torch"))
from torch_models import import_model  # noqa: E402

import tilefoundry as tf  # noqa: E402
from tilefoundry.backends.iree.build import IreeLimitError  # noqa: E402


@pytest.mark.parametrize("name", ["llama", "encoder_layer"])
def test_an_imported_model_matches_pytorch(name: str) -> None:
    imported = import_model(name)
    loaded = imported.loaded
    compiled = tf.compile(loaded.module, loaded.bindings, backend="iree")
    got = compiled(*imported.inputs)
    got = got[0] if isinstance(got, tuple) else got
    np.testing.assert_allclose(got, imported.want, rtol=1e-4, atol=1e-4)


def test_an_erf_gelu_is_refused() -> None:
    imported = import_model("mlp")
    with pytest.raises(IreeLimitError, match="cannot compile an f64 math.erf"):
        tf.compile(imported.loaded.module, imported.loaded.bindings, backend="iree")


@pytest.mark.parametrize("name", ["cnn", "topk_router"])
def test_a_zoo_model_matches_pytorch(name: str) -> None:
    """The zoo's convolutions, pooling (max, avg, adaptive) and top-k compiled by IREE."""
    from zoo_models import imported as zoo_imported

    m = zoo_imported(name)
    compiled = tf.compile(m.loaded.module, m.loaded.bindings, backend="iree")
    got = compiled(*m.inputs)
    got = got[0] if isinstance(got, tuple) else got
    scale = float(np.abs(m.want).max())
    assert got.shape == m.want.shape
    assert float(np.abs(got - m.want).max()) <= 1e-4 * scale
