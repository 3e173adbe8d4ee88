"""The torch mapping is one literal table (`frontends/torch/table.py`): the ATen ops torch's own
decompositions replace are rows of it too (rule `decomposed`), and what the importer asks torch
to decompose is read from those rows."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import torch  # noqa: E402

from tilefoundry.frontends.torch import importer  # noqa: E402
from tilefoundry.frontends.torch.composites import decomposed  # noqa: E402
from tilefoundry.frontends.torch.errors import TorchImportError  # noqa: E402
from tilefoundry.frontends.torch.table import ATEN  # noqa: E402


def test_the_decomposed_ops_are_rows_of_the_table() -> None:
    assert importer.DECOMPOSED == (
        "aten.lstm.input",
        "aten.gru.input",
        "aten.rnn_tanh.input",
        "aten.rnn_relu.input",
    )
    assert all(ATEN[name] is decomposed for name in importer.DECOMPOSED)
    overloads = [importer._overload(torch, name) for name in importer.DECOMPOSED]
    assert overloads == [
        torch.ops.aten.lstm.input,
        torch.ops.aten.gru.input,
        torch.ops.aten.rnn_tanh.input,
        torch.ops.aten.rnn_relu.input,
    ]
    from torch._decomp import get_decompositions

    assert set(get_decompositions(overloads)) == set(overloads)  # torch has each one's


def test_a_decomposed_op_left_in_the_program_is_refused() -> None:
    with pytest.raises(TorchImportError, match="decomposition of it did not apply"):
        decomposed(None, None, [], {})  # type: ignore[arg-type]
