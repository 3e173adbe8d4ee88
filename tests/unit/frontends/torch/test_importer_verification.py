"""The import verifies the tree it builds once: each op once, however deep its submodule sits
(not once more for every module above it, as each `Module(...)` verifying its own subtree
would)."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import torch  # noqa: E402

import tilefoundry as tf  # noqa: E402
from tilefoundry.ir.verify import verifier  # noqa: E402


class _Leaf(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: Any) -> Any:
        return torch.tanh(self.proj(x))


class _Block(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.first = _Leaf()
        self.second = _Leaf()

    def forward(self, x: Any) -> Any:
        return self.second(self.first(x)) + x


class _Nested(torch.nn.Module):  # type: ignore[misc]
    """Four levels: the root, two blocks, their leaves, each leaf's Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.blocks = torch.nn.ModuleList([_Block(), _Block()])

    def forward(self, x: Any) -> Any:
        for block in self.blocks:
            x = block(x)
        return x * 2


def test_each_op_of_a_nested_model_is_verified_once(monkeypatch: pytest.MonkeyPatch) -> None:
    torch.manual_seed(0)
    model = _Nested().eval()
    data = torch.randn(3, 8)
    with torch.no_grad():
        want = model(data).numpy()
    verified: Counter[int] = Counter()
    seen: list[object] = []  # keeps the counted ops alive, so that no id is reused
    verify_one = verifier.verify_op_itself

    def counting(op: Any) -> None:
        verified[id(op)] += 1
        seen.append(op)
        verify_one(op)

    monkeypatch.setattr(verifier, "verify_op_itself", counting)
    loaded = tf.from_torch(model, (data,))
    monkeypatch.undo()

    tree = list(loaded.module.module_op.walk())
    assert tf.select(loaded.module, "blocks.1.second.proj").name == "Linear"  # 4 levels deep
    assert {id(op) for op in tree} == set(verified)  # every op of the tree, nothing else
    again = {f"{op.name} x{verified[id(op)]}" for op in tree if verified[id(op)] != 1}
    assert not again, f"verified more than once: {sorted(again)}"
    np.testing.assert_allclose(loaded(data.numpy()), want, rtol=1e-5, atol=1e-6)


def test_an_op_that_does_not_verify_is_still_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Verifying once is still verifying: a fault the tree's verification finds is reported."""

    def refuse(op: Any) -> None:
        if op.name == "tf.module" and op.sym_name.data == "proj":
            raise tf.VerifyError("refused by the test")

    monkeypatch.setattr(verifier, "verify_op_itself", refuse)
    with pytest.raises(tf.VerifyError, match="refused by the test"):
        tf.from_torch(_Nested().eval(), (torch.randn(3, 8),))
