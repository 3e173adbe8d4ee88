"""Checkpoint names exactly: the imported module's weights are the `state_dict` keys, every one
(`0.weight` inside an `nn.Sequential`; a tied weight one weight, its other key bound too), so
`LoadedModule(imported.module, model.state_dict())` binds with no mapping."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import torch, upstream_accepts  # noqa: E402

import tilefoundry as tf  # noqa: E402


def _state(model: Any) -> dict[str, Any]:
    return {k: v.detach().numpy() for k, v in model.state_dict().items()}


class _Blocks(torch.nn.Module):  # type: ignore[misc]
    """Sequentials inside a ModuleList: keys like `blocks.1.0.weight` and `head.0.bias`."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList(
            torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh()) for _ in range(2)
        )
        self.head = torch.nn.Sequential(torch.nn.LayerNorm(8), torch.nn.Linear(8, 3))

    def forward(self, x: Any) -> Any:
        for block in self.blocks:
            x = block(x)
        return self.head(x)


@pytest.mark.parametrize(
    "model",
    [
        torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2)),
        _Blocks(),
    ],
    ids=["sequential", "nested"],
)
def test_the_weights_are_the_state_dict_keys(model: Any) -> None:
    torch.manual_seed(0)
    x = torch.randn(3, model[0].in_features if isinstance(model, torch.nn.Sequential) else 8)
    loaded = tf.from_torch(model, (x,))
    assert set(loaded.bindings) == set(model.state_dict())
    rebound = tf.LoadedModule(loaded.module, _state(model))
    with torch.no_grad():
        want = model(x).numpy()
    np.testing.assert_allclose(rebound(x.numpy()), want, rtol=1e-6, atol=1e-6)


def test_a_key_that_is_no_ssa_name_is_escaped_and_parses_back() -> None:
    model = torch.nn.Sequential(torch.nn.Linear(4, 2))
    loaded = tf.from_torch(model, (torch.randn(1, 4),))
    text = tf.print_module(loaded.module)
    assert "%$0.weight: tensor<2x4xf32> {const}" in text
    again = tf.parse_module(text)
    assert list(again.weights) == ["0.weight", "0.bias"]
    tf.LoadedModule(again, _state(model))  # the parsed module binds the checkpoint too
    generic = tf.print_module(loaded.module, generic=True)
    assert 'param_names = ["input_1", "0.weight", "0.bias"]' in generic
    assert upstream_accepts(generic).returncode == 0


def test_a_checkpoint_saved_by_pytorch_binds(tmp_path: Path) -> None:
    model = _Blocks()
    loaded = tf.from_torch(model, (torch.randn(2, 8),))
    torch.save(model.state_dict(), tmp_path / "model.pt")
    saved = torch.load(tmp_path / "model.pt")
    rebound = tf.LoadedModule(loaded.module, {k: v.numpy() for k, v in saved.items()})
    np.testing.assert_array_equal(rebound.bindings["blocks.1.0.weight"], saved["blocks.1.0.weight"])


class _Tied(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(16, 8)
        self.head = torch.nn.Linear(8, 16, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids: Any) -> Any:
        return self.head(self.embed(ids))


def test_a_tied_weight_is_one_weight() -> None:
    torch.manual_seed(0)
    model = _Tied()
    ids = torch.tensor([[1, 5, 7]])
    loaded = tf.from_torch(model, (ids,))
    assert list(loaded.module.weights) == ["embed.weight"]
    assert loaded.module.metadata["tied_weights"] == (("head.weight", "embed.weight"),)
    # both keys of the checkpoint bind, and the two calls take the one weight
    rebound = tf.LoadedModule(loaded.module, _state(model))
    with torch.no_grad():
        want = model(ids).numpy()
    np.testing.assert_allclose(rebound(ids.numpy()), want, rtol=1e-6, atol=1e-6)
    text = tf.print_module(loaded.module)
    assert "tf.call @head::@forward(%embed, %embed.weight)" in text
    other = _state(model)
    other["head.weight"] = other["head.weight"] + 1
    with pytest.raises(tf.VerifyError, match="'head.weight' is tied to weight 'embed.weight'"):
        tf.LoadedModule(loaded.module, other)
