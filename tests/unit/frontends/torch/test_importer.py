"""The torch frontend's rules: dynamic dims, refusals in one line, the lazy import."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
from torch_models import torch  # noqa: E402

import tilefoundry as tf  # noqa: E402
from tilefoundry.frontends.torch import TorchImportError  # noqa: E402


class _Gated(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 8)

    def forward(self, x: Any) -> Any:
        return self.down(torch.nn.functional.silu(self.up(x)))


def test_a_dynamic_dim_is_a_dimvar_with_its_envelope() -> None:
    torch.manual_seed(0)
    model = _Gated()
    seq = torch.export.Dim("seq", min=1, max=512)
    loaded = tf.from_torch(model, (torch.randn(4, 16),), dynamic_shapes=({0: seq},))
    (x, *_) = loaded.module.entry_function().params
    assert x.type == tf.TensorType((tf.DimVar("seq", 1, 513), 16), "f32")
    for rows in (1, 3, 37):
        data = torch.randn(rows, 16)
        with torch.no_grad():
            want = model(data).numpy()
        np.testing.assert_allclose(loaded(data.numpy()), want, rtol=1e-5, atol=1e-5)
    cost = tf.analyze(loaded.module, dims={"seq": 10})
    assert cost["up.forward"].flops == 2 * 10 * 16 * 32 + 10 * 32


def test_an_encoder_layer_imports_with_a_dynamic_length() -> None:
    torch.manual_seed(0)
    model = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True).eval()
    seq = torch.export.Dim("seq", min=2, max=256)
    loaded = tf.from_torch(model, (torch.randn(1, 8, 64),), dynamic_shapes=({1: seq},))
    (x,) = [p for p in loaded.module.entry_function().params if not p.is_const]
    assert x.type == tf.TensorType((1, tf.DimVar("seq", 2, 257), 64), "f32")
    for length in (2, 5, 19):
        data = torch.randn(1, length, 64)
        with torch.no_grad():
            want = model(data).numpy()
        np.testing.assert_allclose(loaded(data.numpy()), want, rtol=1e-4, atol=1e-4)
    costs = tf.analyze(loaded.module, dims={"seq": 16})
    assert costs["linear1.forward"].flops == 2 * 16 * 64 * 128 + 16 * 128


class _Inner(torch.nn.Module):  # type: ignore[misc]
    def forward(self, x: Any) -> Any:
        return torch.erfinv(x)  # no registered op maps aten.erfinv


class _Outer(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.inner = _Inner()

    def forward(self, x: Any) -> Any:
        return self.inner(x) + 1


def test_an_unsupported_op_is_refused_in_one_line_naming_it_and_its_submodule() -> None:
    with pytest.raises(TorchImportError) as caught:
        tf.from_torch(_Outer(), (torch.randn(4, 8),))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("unsupported op 'aten.erfinv.default' in submodule 'inner'")
    line = _Inner.forward.__code__.co_firstlineno + 1
    assert message.endswith(f"(test_importer.py:{line})")


def test_the_root_takes_only_the_tensor_inputs_and_binds_every_weight() -> None:
    torch.manual_seed(0)
    model = _Gated()
    loaded = tf.from_torch(model, (torch.randn(4, 16),))
    assert sorted(loaded.bindings) == sorted(model.state_dict())
    assert [p.name for p in loaded.module.entry_function().params if not p.is_const] == ["x"]
    child = tf.select(loaded.module, "up")
    assert child.name == "Linear" and child.attached_name == "up"
    assert [p.name for p in child.entry_function().params] == ["x", "weight", "bias"]


def test_importing_tilefoundry_does_not_import_torch() -> None:
    code = "import sys, tilefoundry, tilefoundry.ops; tilefoundry.from_torch; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


class _Several(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.inner = _Inner()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: Any) -> Any:
        y = torch.roll(self.inner(x), 1)  # aten.roll
        return torch.atan(self.proj(y)) + torch.erfinv(y)  # aten.atan, a second aten.erfinv


def test_every_missing_op_is_refused_at_once_with_its_count_submodule_and_line() -> None:
    with pytest.raises(TorchImportError) as caught:
        tf.from_torch(_Several(), (torch.randn(4, 8),))
    message = str(caught.value)
    assert "\n" not in message
    inner = _Inner.forward.__code__.co_firstlineno + 1
    here = _Several.forward.__code__.co_firstlineno
    assert message == (
        "3 unsupported ops: "
        f"'aten.erfinv.default' (2 calls, the first in submodule 'inner' (test_importer.py:{inner})); "
        f"'aten.roll.default' (1 call, in submodule '<root>' (test_importer.py:{here + 1})); "
        f"'aten.atan.default' (1 call, in submodule '<root>' (test_importer.py:{here + 2}))"
    )


class _InsideTorch(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.pool = torch.nn.FractionalMaxPool2d(2, output_size=(2, 2))

    def forward(self, x: Any) -> Any:
        return self.pool(x)


def test_the_source_line_is_the_users_not_torchs() -> None:
    with pytest.raises(TorchImportError) as caught:
        tf.from_torch(_InsideTorch(), (torch.randn(1, 1, 4, 4),))
    line = _InsideTorch.forward.__code__.co_firstlineno + 1
    assert (
        "'aten.fractional_max_pool2d.default' (1 call, in submodule 'pool' "
        f"(test_importer.py:{line}))"
    ) in str(caught.value)


class _Norm2d(torch.nn.Module):  # type: ignore[misc]
    def forward(self, x: Any) -> Any:
        return torch.nn.functional.layer_norm(x, (4, 8))


def test_a_refused_use_of_a_supported_op_names_the_op_and_why() -> None:
    with pytest.raises(TorchImportError) as caught:
        tf.from_torch(_Norm2d(), (torch.randn(2, 4, 8),))
    line = _Norm2d.forward.__code__.co_firstlineno + 1
    assert str(caught.value) == (
        "op 'aten.layer_norm.default': layer_norm over more than the last dim "
        f"in submodule '<root>' (test_importer.py:{line})"
    )


@pytest.mark.parametrize(
    ("name", "masked"), [("llama", False), ("llama", True), ("qwen2", False), ("gpt2", True)]
)
def test_a_decoder_runs_at_several_lengths_through_one_import(name: str, masked: bool) -> None:
    """A dynamic `seq`: the causal mask and the position ids are built from `arange(seq)`
    (which the import builds from the input), and without an attention mask transformers'
    packed-sequence check takes a `diff` of the position ids along `seq`."""
    from torch_models import _hf, ids

    model, kwargs, _ = _hf(name)
    model.eval()
    seq = torch.export.Dim("seq", min=2, max=64)
    shapes: dict[str, Any] = {"input_ids": {1: seq}, "use_cache": None}
    example = dict(kwargs)
    if masked:
        shapes["attention_mask"] = {1: seq}
        example["attention_mask"] = torch.ones(1, 8, dtype=torch.int64)
    loaded = tf.from_torch(model, (ids(),), example, dynamic_shapes=shapes)
    dim = tf.DimVar("seq", 2, 65)
    free = [p.type for p in loaded.module.entry_function().params if not p.is_const]
    assert free == [tf.TensorType((1, dim), "i64")] * (2 if masked else 1)
    for length in (3, 8, 13):
        tokens = torch.randint(0, 256, (1, length), generator=torch.Generator().manual_seed(length))
        extra = {"attention_mask": torch.ones_like(tokens)} if masked else {}
        with torch.no_grad():
            want = model(tokens, **extra, **kwargs).logits.numpy()
        got = loaded(tokens.numpy(), *(m.numpy() for m in extra.values()))
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["llama", "qwen2"])
def test_a_decoder_with_a_dynamic_batch_and_length_runs_at_several_sizes(name: str) -> None:
    """A dynamic batch too: attention's head split reshapes `[batch, seq, heads * dim]` (two
    DimVars, kept by `dims`), the position ids expand from 1 to `batch`."""
    from torch_models import _hf, ids

    model, kwargs, _ = _hf(name)
    model.eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    seq = torch.export.Dim("seq", min=2, max=64)
    shapes = {"input_ids": {0: batch, 1: seq}, "use_cache": None}
    example = (ids().expand(2, -1).contiguous(),)
    loaded = tf.from_torch(model, example, kwargs, dynamic_shapes=shapes)
    (free,) = [p.type for p in loaded.module.entry_function().params if not p.is_const]
    assert free == tf.TensorType((tf.DimVar("batch", 1, 9), tf.DimVar("seq", 2, 65)), "i64")
    for rows, length in ((1, 3), (3, 8), (2, 13)):
        tokens = torch.randint(0, 256, (rows, length), generator=torch.Generator().manual_seed(3))
        with torch.no_grad():
            want = model(tokens, **kwargs).logits.numpy()
        np.testing.assert_allclose(loaded(tokens.numpy()), want, rtol=1e-4, atol=1e-4)


def test_a_gpt2_with_a_dynamic_batch_and_length_runs_at_several_sizes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """GPT-2's Conv1D flattens `[batch, seq, d]` to `[batch * seq, d]` for an `addmm` and views
    the result back: the product of two DimVars is no dim of the IR, so the import keeps the
    value unflattened (a batched matmul) and the view back is the value itself. One import runs
    at three sizes, interpreted and compiled."""
    from torch_models import _hf, ids

    model, kwargs, _ = _hf("gpt2")
    model.eval()
    batch = torch.export.Dim("batch", min=1, max=8)
    seq = torch.export.Dim("seq", min=2, max=64)
    shapes = {"input_ids": {0: batch, 1: seq}, "use_cache": None}
    loaded = tf.from_torch(
        model, (ids().expand(2, -1).contiguous(),), kwargs, dynamic_shapes=shapes
    )
    (free,) = [p.type for p in loaded.module.entry_function().params if not p.is_const]
    assert free == tf.TensorType((tf.DimVar("batch", 1, 9), tf.DimVar("seq", 2, 65)), "i64")
    assert "tf.linalg.matmul" in tf.print_module(loaded.module)
    monkeypatch.setenv("TF_CACHE_DIR", str(tmp_path / "cache"))  # not the user's cache
    compiled = tf.compile(loaded.module, loaded.bindings)
    for rows, length in ((1, 3), (3, 8), (2, 13)):
        tokens = torch.randint(0, 256, (rows, length), generator=torch.Generator().manual_seed(3))
        with torch.no_grad():
            want = model(tokens, **kwargs).logits.numpy()
        np.testing.assert_allclose(loaded(tokens.numpy()), want, rtol=1e-4, atol=1e-4)
        got = compiled(tokens.numpy())
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


class _RowsThenSum(torch.nn.Module):
    """Merges `[batch, seq, d]` into rows, then reduces over the rows: not a row-wise op."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.reshape(-1, x.size(-1)).sum(0)


def test_a_product_of_dynamic_dims_reaching_another_op_is_refused_in_one_line() -> None:
    """A merged `batch * seq` dim is taken by `view`, `addmm` and `mm` only: a reduction over
    it is refused where it happens, naming the product by the Dims' names."""
    batch = torch.export.Dim("batch", min=1, max=8)
    seq = torch.export.Dim("seq", min=2, max=64)
    with pytest.raises(TorchImportError) as caught:
        tf.from_torch(
            _RowsThenSum(), (torch.randn(2, 5, 4),), dynamic_shapes={"x": {0: batch, 1: seq}}
        )
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("op 'aten.sum.dim_IntList': the size batch*seq is not a dynamic ")
    assert "a product of leading dims is taken by view, addmm and mm only" in message
