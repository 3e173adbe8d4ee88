"""The models the torch frontend tests import, tiny and with random weights (nothing is
downloaded). torch is required where `TF_REQUIRE_TORCH` is set (CI): there a missing torch
fails the tests instead of skipping them."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

if os.environ.get("TF_REQUIRE_TORCH"):
    import torch
else:
    torch = pytest.importorskip("torch")

import tilefoundry as tf  # noqa: E402

TOKENS = 8
VOCAB = 256
MORE_FAMILIES = ("mistral", "gemma", "phi", "gpt_neox", "opt", "t5_encoder")
"""Further Hugging Face families, checked more lightly (output and attention selection)."""


@dataclass
class Imported:
    model: Any
    loaded: tf.LoadedModule
    inputs: tuple[Any, ...]
    want: np.ndarray[Any, Any]
    attention: str  # the path of layer 1's attention submodule


def ids() -> Any:
    return torch.randint(0, VOCAB, (1, TOKENS), generator=torch.Generator().manual_seed(1))


def _hf(name: str) -> tuple[Any, dict[str, Any], str]:
    import transformers as hf

    if name == "llama":
        config = hf.LlamaConfig(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=VOCAB,
        )
        return hf.LlamaForCausalLM(config), {"use_cache": False}, "model.layers.1.self_attn"
    if name == "qwen2":
        config = hf.Qwen2Config(
            hidden_size=64,
            intermediate_size=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            num_key_value_heads=2,
            vocab_size=VOCAB,
        )
        return hf.Qwen2ForCausalLM(config), {"use_cache": False}, "model.layers.1.self_attn"
    if name == "gpt2":
        config = hf.GPT2Config(
            n_embd=64,
            n_layer=2,
            n_head=4,
            vocab_size=VOCAB,
            n_positions=64,
            bos_token_id=0,
            eos_token_id=0,
        )
        return hf.GPT2LMHeadModel(config), {"use_cache": False}, "transformer.h.1.attn"
    small = dict(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        vocab_size=VOCAB,
    )
    if name == "mistral":
        config = hf.MistralConfig(num_key_value_heads=2, **small)
        return hf.MistralForCausalLM(config), {"use_cache": False}, "model.layers.1.self_attn"
    if name == "gemma":
        config = hf.GemmaConfig(num_key_value_heads=2, head_dim=16, **small)
        return hf.GemmaForCausalLM(config), {"use_cache": False}, "model.layers.1.self_attn"
    if name == "phi":
        config = hf.PhiConfig(**small)
        return hf.PhiForCausalLM(config), {"use_cache": False}, "model.layers.1.self_attn"
    if name == "gpt_neox":
        config = hf.GPTNeoXConfig(**small)
        return hf.GPTNeoXForCausalLM(config), {"use_cache": False}, "gpt_neox.layers.1.attention"
    if name == "opt":
        config = hf.OPTConfig(
            hidden_size=64,
            ffn_dim=128,
            num_hidden_layers=2,
            num_attention_heads=4,
            vocab_size=VOCAB,
            word_embed_proj_dim=64,
        )
        return hf.OPTForCausalLM(config), {"use_cache": False}, "model.decoder.layers.1.self_attn"
    if name == "t5_encoder":
        config = hf.T5Config(
            d_model=64, d_ff=128, num_layers=2, num_heads=4, d_kv=16, vocab_size=VOCAB
        )
        return hf.T5EncoderModel(config), {}, "encoder.block.1.layer.0.SelfAttention"
    assert name == "bert"
    config = hf.BertConfig(
        hidden_size=64,
        intermediate_size=128,
        num_hidden_layers=2,
        num_attention_heads=4,
        vocab_size=VOCAB,
        max_position_embeddings=64,
    )
    return hf.BertModel(config), {}, "encoder.layer.1.attention"


@functools.cache
def import_model(name: str) -> Imported:
    """Import one of the test models and run it in PyTorch on the same inputs (once per test
    run: the files that import the same model share it; nothing changes an `Imported`)."""
    torch.manual_seed(0)
    if name in ("llama", "qwen2", "gpt2", "bert", *MORE_FAMILIES):
        model, kwargs, attention = _hf(name)
        inputs: tuple[Any, ...] = (ids(),)
    elif name == "encoder_layer":
        model = torch.nn.TransformerEncoderLayer(64, 4, 128, dropout=0.0, batch_first=True)
        kwargs, attention = {}, "self_attn"
        inputs = (torch.randn(2, TOKENS, 64),)
    else:
        assert name == "mlp"
        model, kwargs, attention = MLP(), {}, ""
        inputs = (torch.randn(TOKENS, 16),)
    model = model.eval().float()
    loaded = tf.from_torch(model, inputs, kwargs)
    with torch.no_grad():
        out = model(*inputs, **kwargs)
    if hasattr(out, "logits"):
        out = out.logits
    elif hasattr(out, "last_hidden_state"):
        out = out.last_hidden_state
    return Imported(model, loaded, tuple(i.numpy() for i in inputs), out.numpy(), attention)


class MLP(torch.nn.Module):  # type: ignore[misc]
    """A plain torch.nn MLP: Linear, GELU, Linear, ReLU under a Sequential."""

    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.Sequential(
            torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 8), torch.nn.ReLU()
        )

    def forward(self, x: Any) -> Any:
        return self.layers(x)


def first(value: Any) -> Any:
    return value[0] if isinstance(value, tuple) else value


def mlir_opt() -> str | None:
    found = shutil.which("mlir-opt-19") or shutil.which("mlir-opt-19", path="/usr/lib/llvm-19/bin")
    if found is None and os.environ.get("TF_REQUIRE_MLIR_OPT"):
        pytest.fail("mlir-opt-19 is required (TF_REQUIRE_MLIR_OPT is set) but not found")
    return found


def upstream_accepts(text: str) -> subprocess.CompletedProcess[str]:
    tool = mlir_opt()
    if tool is None:
        pytest.skip("mlir-opt-19 not found")
    return subprocess.run(
        [tool, "--allow-unregistered-dialect"], input=text, capture_output=True, text=True
    )
