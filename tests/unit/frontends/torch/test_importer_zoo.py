"""The zoo: architectures the frontend was not built on (`zoo_models.py`: CNNs, recurrent
layers, norms, attention, vision transformers, mixture of experts, decoders, encoders and the
encoder sides of encoder-decoders), each from a tiny config with random weights. Each imports,
runs on numpy as PyTorch does (within its tolerance, relative to the output's scale) after the
import and after `tf-inline,canonicalize,cse`, mirrors the module tree by its checkpoint names,
and binds the model's own `state_dict` with no mapping."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from zoo_models import ARCHS, BY_NAME, Imported, imported  # noqa: E402

import tilefoundry as tf  # noqa: E402


def _close(m: Imported, got: Any) -> None:
    got = got[0] if isinstance(got, tuple) else got
    assert got.shape == m.want.shape and got.dtype == m.want.dtype
    scale = float(np.abs(m.want).max())
    error = float(np.abs(got - m.want).max())
    assert error <= m.arch.tolerance * scale, f"{error:.3g} past {m.arch.tolerance} x {scale:.3g}"


def test_the_zoo_spans_the_families() -> None:
    assert len(ARCHS) >= 25
    families = {a.family for a in ARCHS}
    assert {
        "cnn",
        "recurrent",
        "vision transformer",
        "decoder",
        "encoder",
        "moe decoder",
    } <= families


@pytest.mark.parametrize("name", list(BY_NAME))
def test_runs_as_pytorch_does(name: str) -> None:
    m = imported(name)
    _close(m, m.loaded(*m.inputs))


@pytest.mark.parametrize("name", list(BY_NAME))
def test_runs_as_pytorch_does_after_the_pipeline(name: str) -> None:
    m = imported(name)
    after = tf.run_passes(m.loaded.module, "tf-inline,canonicalize,cse")
    _close(m, tf.LoadedModule(after, m.loaded.bindings)(*m.inputs))


@pytest.mark.parametrize("name", list(BY_NAME))
def test_the_state_dict_binds_and_the_tree_has_its_names(name: str) -> None:
    m = imported(name)
    state = {k: v.detach().numpy() for k, v in m.model.state_dict().items()}
    rebound = tf.LoadedModule(m.loaded.module, state)  # the checkpoint's own names
    _close(m, rebound(*m.inputs))
    assert set(m.loaded.bindings) <= set(state)
    # each function is the forward of the submodule at its path, named by its class
    for path, _ in tf.function_selectors(m.loaded.module):
        sub_path = path.removesuffix("forward").rstrip(".")
        sub = m.model.get_submodule(sub_path)
        node = tf.select(m.loaded.module, sub_path) if sub_path else m.loaded.module
        assert node.name in (type(sub).__name__, node.attached_name)
