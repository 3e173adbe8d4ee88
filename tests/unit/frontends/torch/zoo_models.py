"""The architectures of the zoo (`test_zoo.py`): each built from a tiny config with random
weights (nothing is downloaded), with its example inputs and the tolerance it is held to."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from torch_models import torch

import tilefoundry as tf

VOCAB = 128


@dataclass
class Arch:
    name: str
    family: str
    build: Callable[[], Any]  # the model (eval mode, random weights)
    inputs: Callable[[], tuple[Any, ...]]
    kwargs: dict[str, Any] = field(default_factory=dict)
    tolerance: float = 1e-5  # relative to the output's scale


def _ids(length: int = 8) -> tuple[Any, ...]:
    return (torch.randint(0, VOCAB, (1, length), generator=torch.Generator().manual_seed(1)),)


def _image(channels: int = 3, size: int = 16, batch: int = 2) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.randn(batch, channels, size, size),)


def _seq(batch: int, length: int, width: int) -> Callable[[], tuple[Any, ...]]:
    return lambda: (torch.randn(batch, length, width),)


# -- torch.nn ---------------------------------------------------------------------------------


class CNN(torch.nn.Module):  # type: ignore[misc]
    """Conv2d, BatchNorm2d (eval), ReLU, MaxPool2d, a strided grouped Conv2d, AvgPool2d,
    AdaptiveAvgPool2d, Linear."""

    def __init__(self) -> None:
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 8, 3, padding=1),
            torch.nn.BatchNorm2d(8),
            torch.nn.ReLU(),
            torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(8, 16, 3, stride=2, padding=1, groups=2, dilation=1),
            torch.nn.BatchNorm2d(16),
            torch.nn.ReLU(),
            torch.nn.AvgPool2d(2, stride=1, padding=1, count_include_pad=False),
            torch.nn.AdaptiveAvgPool2d((2, 2)),
        )
        self.head = torch.nn.Linear(64, 10)

    def forward(self, x: Any) -> Any:
        return self.head(torch.flatten(self.features(x), 1))


class Audio1d(torch.nn.Module):  # type: ignore[misc]
    """Conv1d with stride, dilation, 'same' padding and depthwise groups, BatchNorm1d,
    MaxPool1d, AvgPool1d, an AdaptiveAvgPool1d that does not divide evenly, GELU."""

    def __init__(self) -> None:
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Conv1d(4, 8, 5, stride=2, padding=2),
            torch.nn.BatchNorm1d(8),
            torch.nn.GELU(),
            torch.nn.Conv1d(8, 8, 3, dilation=2, padding="same", groups=8),
            torch.nn.MaxPool1d(3, stride=2, padding=1),
            torch.nn.Conv1d(8, 6, 1),
            torch.nn.AvgPool1d(2),
            torch.nn.AdaptiveAvgPool1d(3),
        )

    def forward(self, x: Any) -> Any:
        return self.net(x)


class GroupNormNet(torch.nn.Module):  # type: ignore[misc]
    """A diffusion-style block: GroupNorm, SiLU, Conv2d, a residual, a dilated MaxPool2d."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.GroupNorm(4, 8)
        self.conv = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(3, stride=2, dilation=2)

    def forward(self, x: Any) -> Any:
        return self.pool(x + self.conv(torch.nn.functional.silu(self.norm(x))))


class Recurrent(torch.nn.Module):  # type: ignore[misc]
    """An nn.LSTM / nn.GRU / nn.RNN (batch first; two layers, or one both ways) and a Linear on
    its outputs."""

    def __init__(self, cell: Any, **options: Any) -> None:
        super().__init__()
        self.rnn = cell(8, 16, batch_first=True, **options)
        width = 32 if options.get("bidirectional") else 16
        self.head = torch.nn.Linear(width, 4)

    def forward(self, x: Any) -> Any:
        return self.head(self.rnn(x)[0])


class RMSNormMLP(torch.nn.Module):  # type: ignore[misc]
    """nn.RMSNorm (with and without eps, with and without a weight) around a SiLU MLP."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.RMSNorm(16)
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)
        self.final = torch.nn.RMSNorm([5, 16], eps=1e-6, elementwise_affine=False)

    def forward(self, x: Any) -> Any:
        return self.final(x + self.down(torch.nn.functional.silu(self.up(self.norm(x)))))


class Attention(torch.nn.Module):  # type: ignore[misc]
    """nn.MultiheadAttention (batch first, self attention) and a LayerNorm."""

    def __init__(self) -> None:
        super().__init__()
        self.attn = torch.nn.MultiheadAttention(16, 4, batch_first=True)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x: Any) -> Any:
        return self.norm(x + self.attn(x, x, x, need_weights=False)[0])


class Embedder(torch.nn.Module):  # type: ignore[misc]
    """nn.Embedding, a Transformer decoder layer over a memory, the activations of nn."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(VOCAB, 16)
        self.layer = torch.nn.TransformerDecoderLayer(16, 4, 32, dropout=0.0, batch_first=True)
        self.acts = torch.nn.ModuleList(
            [
                torch.nn.Tanh(),
                torch.nn.Sigmoid(),
                torch.nn.SiLU(),
                torch.nn.LeakyReLU(0.1),
                torch.nn.ReLU6(),
                torch.nn.ELU(0.5),
                torch.nn.Softplus(2.0),
                torch.nn.Hardswish(),
                torch.nn.Hardsigmoid(),
                torch.nn.Mish(),
                torch.nn.LogSigmoid(),
                torch.nn.Hardtanh(-0.5, 0.5),
            ]
        )

    def forward(self, ids: Any) -> Any:
        x = self.embed(ids)
        y = self.layer(x, x)
        for act in self.acts:
            y = y + act(x)
        return y


class TopKRouter(torch.nn.Module):  # type: ignore[misc]
    """A mixture-of-experts router: softmax, topk, the chosen experts' outputs gathered."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = torch.nn.Linear(16, 4)
        self.experts = torch.nn.Linear(16, 4 * 16)

    def forward(self, x: Any) -> Any:
        weights, chosen = torch.topk(torch.softmax(self.gate(x), -1), 2, dim=-1)
        outs = self.experts(x).view(*x.shape[:-1], 4, 16)
        picked = torch.gather(outs, -2, chosen.unsqueeze(-1).expand(*chosen.shape, 16))
        return (picked * weights.unsqueeze(-1)).sum(-2)


# -- Hugging Face -----------------------------------------------------------------------------


def _hf(name: str) -> Any:
    import transformers as hf

    decoder = dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=VOCAB,
    )
    encoder = dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        vocab_size=VOCAB,
        max_position_embeddings=32,
    )
    vision = dict(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=1,
        num_attention_heads=4,
        image_size=16,
        patch_size=4,
    )
    if name == "vit":
        return hf.ViTModel(hf.ViTConfig(**vision))
    if name == "deit":
        return hf.DeiTModel(hf.DeiTConfig(**vision))
    if name == "resnet":
        config = hf.ResNetConfig(
            embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1], layer_type="basic"
        )
        return hf.ResNetModel(config)
    if name == "convnext":
        return hf.ConvNextModel(
            hf.ConvNextConfig(num_stages=2, hidden_sizes=[8, 16], depths=[1, 1])
        )
    if name == "mixtral":
        config = hf.MixtralConfig(num_local_experts=4, num_experts_per_tok=2, **decoder)
        config._experts_implementation = "batched_mm"  # dense: every token's chosen experts
        return hf.MixtralForCausalLM(config)
    if name == "gptj":
        config = hf.GPTJConfig(n_embd=32, n_layer=1, n_head=4, vocab_size=VOCAB, rotary_dim=4)
        return hf.GPTJForCausalLM(config)
    if name == "bloom":
        return hf.BloomForCausalLM(
            hf.BloomConfig(hidden_size=32, n_layer=1, n_head=4, vocab_size=VOCAB)
        )
    if name == "falcon":
        config = hf.FalconConfig(
            hidden_size=32, num_hidden_layers=1, num_attention_heads=4, vocab_size=VOCAB
        )
        return hf.FalconForCausalLM(config)
    if name == "qwen3":
        return hf.Qwen3ForCausalLM(hf.Qwen3Config(head_dim=8, **decoder))
    if name == "stablelm":
        return hf.StableLmForCausalLM(hf.StableLmConfig(**decoder))
    if name == "starcoder2":
        return hf.Starcoder2ForCausalLM(hf.Starcoder2Config(**decoder))
    if name == "gpt_bigcode":
        config = hf.GPTBigCodeConfig(n_embd=32, n_layer=1, n_head=4, vocab_size=VOCAB)
        return hf.GPTBigCodeForCausalLM(config)
    if name == "codegen":
        config = hf.CodeGenConfig(n_embd=32, n_layer=1, n_head=4, vocab_size=VOCAB, rotary_dim=4)
        return hf.CodeGenForCausalLM(config)
    if name == "roberta":
        return hf.RobertaModel(hf.RobertaConfig(pad_token_id=1, **encoder))
    if name == "distilbert":
        config = hf.DistilBertConfig(
            dim=32,
            hidden_dim=64,
            n_layers=2,
            n_heads=4,
            vocab_size=VOCAB,
            max_position_embeddings=32,
        )
        return hf.DistilBertModel(config)
    if name == "electra":
        return hf.ElectraModel(hf.ElectraConfig(embedding_size=16, **encoder))
    if name == "albert":
        return hf.AlbertModel(hf.AlbertConfig(embedding_size=16, **encoder))
    if name == "bart_encoder":
        config = hf.BartConfig(
            d_model=32,
            encoder_layers=1,
            decoder_layers=1,
            encoder_attention_heads=4,
            decoder_attention_heads=4,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            vocab_size=VOCAB,
            max_position_embeddings=32,
        )
        return hf.BartModel(config).get_encoder()
    if name == "whisper_encoder":
        config = hf.WhisperConfig(
            d_model=32,
            encoder_layers=1,
            decoder_layers=1,
            encoder_attention_heads=4,
            decoder_attention_heads=4,
            encoder_ffn_dim=64,
            decoder_ffn_dim=64,
            num_mel_bins=8,
            max_source_positions=8,
            vocab_size=VOCAB,
            pad_token_id=0,
            bos_token_id=0,
            eos_token_id=0,
            decoder_start_token_id=0,
        )
        return hf.WhisperModel(config).get_encoder()
    raise AssertionError(name)


def _hf_arch(name: str, family: str, inputs: Callable[[], tuple[Any, ...]], **kwargs: Any) -> Arch:
    return Arch(name, family, lambda: _hf(name), inputs, kwargs)


ARCHS = [
    Arch("cnn", "cnn", CNN, _image()),
    Arch("audio_conv1d", "cnn", Audio1d, lambda: (torch.randn(2, 4, 40),)),
    Arch("group_norm_block", "cnn", GroupNormNet, _image(8, 12)),
    Arch("lstm", "recurrent", lambda: Recurrent(torch.nn.LSTM, num_layers=2), _seq(2, 4, 8)),
    Arch("gru", "recurrent", lambda: Recurrent(torch.nn.GRU, bidirectional=True), _seq(2, 4, 8)),
    Arch("rnn", "recurrent", lambda: Recurrent(torch.nn.RNN, num_layers=2), _seq(2, 4, 8)),
    Arch("rms_norm_mlp", "mlp", RMSNormMLP, _seq(2, 5, 16)),
    Arch("multihead_attention", "encoder", Attention, _seq(2, 5, 16)),
    Arch("decoder_layer", "decoder", Embedder, lambda: _ids(6)),
    Arch("topk_router", "moe", TopKRouter, _seq(2, 5, 16)),
    _hf_arch("vit", "vision transformer", _image(3, 16, 1)),
    _hf_arch("deit", "vision transformer", _image(3, 16, 1)),
    _hf_arch("resnet", "cnn", _image(3, 32, 1)),
    _hf_arch("convnext", "cnn", _image(3, 32, 1)),
    _hf_arch("mixtral", "moe decoder", _ids, use_cache=False),
    _hf_arch("gptj", "decoder", _ids, use_cache=False),
    _hf_arch("bloom", "decoder", _ids, use_cache=False),
    _hf_arch("falcon", "decoder", _ids, use_cache=False),
    _hf_arch("qwen3", "decoder", _ids, use_cache=False),
    _hf_arch("stablelm", "decoder", _ids, use_cache=False),
    _hf_arch("starcoder2", "decoder", _ids, use_cache=False),
    _hf_arch("gpt_bigcode", "decoder", _ids, use_cache=False),
    _hf_arch("codegen", "decoder", _ids, use_cache=False),
    _hf_arch("roberta", "encoder", _ids),
    _hf_arch("distilbert", "encoder", _ids),
    _hf_arch("electra", "encoder", _ids),
    _hf_arch("albert", "encoder", _ids),
    _hf_arch("bart_encoder", "encoder-decoder (encoder)", _ids),
    _hf_arch("whisper_encoder", "encoder-decoder (encoder)", lambda: (torch.randn(1, 8, 16),)),
]
BY_NAME = {a.name: a for a in ARCHS}


@dataclass
class Imported:
    arch: Arch
    model: Any
    loaded: tf.LoadedModule
    inputs: tuple[Any, ...]
    want: Any


def _output(out: Any) -> Any:
    for field_name in ("logits", "last_hidden_state"):
        if hasattr(out, field_name):
            return getattr(out, field_name)
    return out[0] if isinstance(out, tuple) else out


@functools.cache
def imported(name: str) -> Imported:
    """An architecture of the zoo imported (once per process), with its inputs and PyTorch's
    output."""
    arch = BY_NAME[name]
    torch.manual_seed(0)
    model = arch.build().eval()
    inputs = arch.inputs()
    loaded = tf.from_torch(model, inputs, arch.kwargs)
    with torch.no_grad():
        want = _output(model(*inputs, **arch.kwargs)).numpy()
    return Imported(arch, model, loaded, tuple(i.numpy() for i in inputs), want)
