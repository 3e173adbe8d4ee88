"""`tilefoundry.lower` on models the torch frontend imports (`tests/unit/frontends/torch/torch_models.py`):
the lowered module holds TIR only and, bound to the same weights, gives the HIR's bits."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parents[2] / "frontends" / "torch"))
from torch_models import first, import_model  # noqa: E402

import tilefoundry as tf  # noqa: E402


@pytest.mark.parametrize("name", ["mlp", "encoder_layer"])
def test_an_imported_model_lowers_and_computes_the_same_bits(name: str) -> None:
    imported = import_model(name)
    module = imported.loaded.module
    lowered = tf.lower(module)
    assert not [op.name for op in lowered.module_op.walk() if op.name.startswith("hir.")]
    assert dict(lowered.weights) == dict(module.weights)
    before: Any = first(tf.LoadedModule(module, imported.loaded.bindings)(*imported.inputs))
    after: Any = first(tf.LoadedModule(lowered, imported.loaded.bindings)(*imported.inputs))
    assert np.asarray(after).tobytes() == np.asarray(before).tobytes()
