"""The decoder of `examples/decoder.py`, written in the DSL (docs/dsl.md).

A layer is a class-body module (`DecoderLayer`: `attention` over the CTAs, with a variant for a
one-token sequence, `mlp` over the warps, and `block` calling both); the root `Decoder` attaches
two layers in its `__init__` and declares the H100 target and the cluster/cta/warp hierarchy;
its entry `step` takes every layer's weights as const parameters (`layer0.wq`, ...).
`python examples/dsl_decoder.py` builds it, prints one layer as DSL source, runs `step` on numpy
inputs and compares it with the numpy reference of `examples/decoder.py`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.dsl import ConstTensor, Mesh, Tensor, f32

sys.path.insert(0, str(Path(__file__).parent))
from decoder import EPS, random_weights, reference  # noqa: E402

__all__ = ["build_decoder"]

LEVELS = (tf.Topology("cluster", 2), tf.Topology("cta", 4), tf.Topology("warp", 4))


def build_decoder(d_model: int = 64, d_ff: int = 128, max_seq: int = 512) -> tf.Module:
    """A two-layer decoder (the names below are read by the DSL from this function's scope)."""
    seq = tf.DimVar("seq", 1, max_seq + 1)
    inv_d = 1.0 / d_model

    class DecoderLayer(tf.Module, entry="block"):
        @tf.func
        def block(
            self,
            x: Tensor[(seq, d_model), f32],
            norm1: ConstTensor[(d_model,), f32],
            wq: ConstTensor[(d_model, d_model), f32],
            wk: ConstTensor[(d_model, d_model), f32],
            wv: ConstTensor[(d_model, d_model), f32],
            wo: ConstTensor[(d_model, d_model), f32],
            norm2: ConstTensor[(d_model,), f32],
            w_up: ConstTensor[(d_model, d_ff), f32],
            w_down: ConstTensor[(d_ff, d_model), f32],
        ):
            h = self.attention(x, norm1, wq, wk, wv, wo)
            return self.mlp(h, norm2, w_up, w_down)

        @tf.func
        def attention(
            x: Tensor[(seq, d_model), f32],
            norm1: ConstTensor[(d_model,), f32],
            wq: ConstTensor[(d_model, d_model), f32],
            wk: ConstTensor[(d_model, d_model), f32],
            wv: ConstTensor[(d_model, d_model), f32],
            wo: ConstTensor[(d_model, d_model), f32],
        ):
            with Mesh("cta", loc="attn"):
                mean_square = ops.reduce_sum(x * x, axis=-1, keepdims=True) * inv_d
                n = x * ops.rsqrt(mean_square + EPS) * norm1
                q, k, v = n @ wq, n @ wk, n @ wv
                scores = q @ ops.transpose(k, (1, 0)) * (inv_d**0.5)
                shifted = ops.exp(scores - ops.reduce_max(scores, axis=-1, keepdims=True))
                probs = shifted / ops.reduce_sum(shifted, axis=-1, keepdims=True)
                return x + probs @ v @ wo

        @attention.variant(seq=(1, 2))
        def attention_one_token(x, norm1, wq, wk, wv, wo):
            # one token attends to itself only: the softmax is 1, the output x + v wo
            with Mesh("cta"):
                mean_square = ops.reduce_sum(x * x, axis=-1, keepdims=True) * inv_d
                n = x * ops.rsqrt(mean_square + EPS) * norm1
                return x + n @ wv @ wo

        @tf.func
        def mlp(
            x: Tensor[(seq, d_model), f32],
            norm2: ConstTensor[(d_model,), f32],
            w_up: ConstTensor[(d_model, d_ff), f32],
            w_down: ConstTensor[(d_ff, d_model), f32],
        ):
            with Mesh("warp"):
                mean_square = ops.reduce_sum(x * x, axis=-1, keepdims=True) * inv_d
                up = x * ops.rsqrt(mean_square + EPS) * norm2 @ w_up
                return x + up * ops.sigmoid(up) @ w_down

    def weight(layer: int, name: str, *shape: int) -> Any:
        return ConstTensor[shape, f32].named(f"layer{layer}.{name}")

    class Decoder(
        tf.Module,
        name="decoder",
        entry="step",
        target="h100",
        topologies=LEVELS,
        metadata={"opt_level": 2},
    ):
        def __init__(self) -> None:
            self.layer0 = DecoderLayer()
            self.layer1 = DecoderLayer()

        @tf.func
        def step(
            self,
            x: Tensor[(seq, d_model), f32],
            l0_norm1: weight(0, "norm1", d_model),
            l0_wq: weight(0, "wq", d_model, d_model),
            l0_wk: weight(0, "wk", d_model, d_model),
            l0_wv: weight(0, "wv", d_model, d_model),
            l0_wo: weight(0, "wo", d_model, d_model),
            l0_norm2: weight(0, "norm2", d_model),
            l0_w_up: weight(0, "w_up", d_model, d_ff),
            l0_w_down: weight(0, "w_down", d_ff, d_model),
            l1_norm1: weight(1, "norm1", d_model),
            l1_wq: weight(1, "wq", d_model, d_model),
            l1_wk: weight(1, "wk", d_model, d_model),
            l1_wv: weight(1, "wv", d_model, d_model),
            l1_wo: weight(1, "wo", d_model, d_model),
            l1_norm2: weight(1, "norm2", d_model),
            l1_w_up: weight(1, "w_up", d_model, d_ff),
            l1_w_down: weight(1, "w_down", d_ff, d_model),
        ):
            h = self.layer0.block(
                x, l0_norm1, l0_wq, l0_wk, l0_wv, l0_wo, l0_norm2, l0_w_up, l0_w_down
            )
            return self.layer1.block(
                h, l1_norm1, l1_wq, l1_wk, l1_wv, l1_wo, l1_norm2, l1_w_up, l1_w_down
            )

        def forward(self, x: Any, weights: dict[str, Any]) -> Any:
            """Run `step` with the weights bound by name."""
            return tf.LoadedModule(self, weights).step(x)

    return Decoder()


def main() -> int:
    root = build_decoder(d_model=64, d_ff=128)
    print(f"built {root!r}: {', '.join(path for path, _ in tf.function_selectors(root))}")
    print(tf.print_script(tf.select(root, "layer0.mlp")))
    weights = random_weights(root)
    worst = 0.0
    for tokens in (1, 16):  # one token takes the attention variant
        x = np.random.default_rng(tokens).standard_normal((tokens, 64)).astype(np.float32)
        got = root.forward(x, weights)
        error = float(np.max(np.abs(got - reference(x, weights, 2))))
        print(f"step(x[{tokens}x64]) vs numpy reference: max abs error {error:.2e}")
        worst = max(worst, error)
    return 0 if worst < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
