"""A small decoder, built with the core IR's Python surface.

One layer prototype (attention + MLP, each with RMSNorm and a residual) is cloned into N
renamed layers under a root module that declares an H100 target and a cluster/cta/warp
hierarchy. The root's entry function `step` calls the layers in turn; its const parameters are
every layer's weights (`layer0.wq`, ...). `python examples/decoder.py` builds it, selects a
kernel by path, runs `step` on numpy inputs and compares it with a numpy reference.
"""

from __future__ import annotations

import math
import sys
from typing import Any

import numpy as np

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function
from tilefoundry.dialects.tf.mesh import MeshOp as Mesh

__all__ = ["build_decoder", "random_weights", "reference"]

WEIGHTS = ("norm1", "wq", "wk", "wv", "wo", "norm2", "w_up", "w_down")
EPS = 1e-6


def _shapes(d_model: int, d_ff: int) -> dict[str, tuple[int, ...]]:
    return {
        "norm1": (d_model,),
        "wq": (d_model, d_model),
        "wk": (d_model, d_model),
        "wv": (d_model, d_model),
        "wo": (d_model, d_model),
        "norm2": (d_model,),
        "w_up": (d_model, d_ff),
        "w_down": (d_ff, d_model),
    }


def _rms_norm(x: tf.Expr, gain: tf.Expr, d_model: int) -> tf.Expr:
    # 1/d is written as a frontend emits it, an op on constants: tf-fold-constants folds it.
    inv_d = ops.div(tf.Constant([1.0]), tf.Constant([float(d_model)]))
    mean_square = ops.mul(ops.reduce_sum(ops.mul(x, x), axis=-1, keepdims=True), inv_d)
    scale = ops.rsqrt(ops.add(mean_square, tf.Constant([EPS])))
    return ops.mul(ops.mul(x, scale), gain)


def _layer_prototype(seq: tf.DimVar, d_model: int, d_ff: int) -> tf.Module:
    """The layer: `block(x, weights...) = mlp(attention(x))`, each a function of the module."""
    activation = tf.TensorType((seq, d_model), "f32")
    shapes = _shapes(d_model, d_ff)

    def weight(name: str) -> tf.Var:
        return tf.Var(name, tf.TensorType(shapes[name], "f32"), is_const=True)

    # attention(x) = x + softmax(q k^T / sqrt(d)) v wo, on normalized x, over the CTAs
    x = tf.Var("x", activation)
    norm1, wq, wk, wv, wo = (weight(n) for n in ("norm1", "wq", "wk", "wv", "wo"))

    def attention_body() -> tf.Expr:
        h = _rms_norm(x, norm1, d_model)
        q, k, v = ops.matmul(h, wq), ops.matmul(h, wk), ops.matmul(h, wv)
        scale = ops.rsqrt(tf.Constant([float(d_model)]))  # folded by tf-fold-constants
        scores = ops.mul(ops.matmul(q, ops.transpose(k, (1, 0))), scale)
        shifted = ops.exp(ops.sub(scores, ops.reduce_max(scores, axis=-1, keepdims=True)))
        probs = ops.div(shifted, ops.reduce_sum(shifted, axis=-1, keepdims=True))
        return ops.add(x, ops.matmul(ops.matmul(probs, v), wo))

    attention = Function(
        name="attention",
        params=[x, norm1, wq, wk, wv, wo],
        body=Mesh("cta", attention_body, metadata=[tf.BindingMetadata("attn")]),
    )

    # mlp(x) = x + silu(norm(x) w_up) w_down, over the warps
    x = tf.Var("x", activation)
    norm2, w_up, w_down = (weight(n) for n in ("norm2", "w_up", "w_down"))

    def mlp_body() -> tf.Expr:
        up = ops.matmul(_rms_norm(x, norm2, d_model), w_up)
        return ops.add(x, ops.matmul(ops.mul(up, ops.sigmoid(up)), w_down))

    mlp = Function(name="mlp", params=[x, norm2, w_up, w_down], body=Mesh("warp", mlp_body))

    # block(x, all weights) = mlp(attention(x))
    x = tf.Var("x", activation)
    ws = {name: weight(name) for name in WEIGHTS}
    after_attention = tf.Call(
        attention,
        [x, ws["norm1"], ws["wq"], ws["wk"], ws["wv"], ws["wo"]],
        metadata=[tf.BindingMetadata("h")],
    )
    out = tf.Call(mlp, [after_attention, ws["norm2"], ws["w_up"], ws["w_down"]])
    block = Function(name="block", params=[x, *ws.values()], body=out)
    return tf.Module(name="DecoderLayer", functions=[block, attention, mlp])


def build_decoder(
    num_layers: int = 4, d_model: int = 64, d_ff: int = 128, max_seq: int = 512
) -> tf.Module:
    """The decoder: N layers cloned from one prototype under an H100 root (see the docstring)."""
    seq = tf.DimVar("seq", 1, max_seq + 1)
    prototype = _layer_prototype(seq, d_model, d_ff)
    layers = {f"layer{i}": prototype.renamed(f"layer{i}") for i in range(num_layers)}

    shapes = _shapes(d_model, d_ff)
    x = tf.Var("x", tf.TensorType((seq, d_model), "f32"))
    params = [x]
    h: tf.Expr = x
    for name, layer in layers.items():
        ws = [
            tf.Var(f"{name}.{w}", tf.TensorType(shapes[w], "f32"), is_const=True) for w in WEIGHTS
        ]
        params += ws
        h = tf.Call(layer.lookup("block"), [h, *ws], metadata=[tf.BindingMetadata(name)])
    step = Function(name="step", params=params, body=h)
    return tf.Module(
        name="decoder",
        functions=[step],
        modules=layers,
        target="h100",
        topologies=(tf.Topology("cluster", 2), tf.Topology("cta", 4), tf.Topology("warp", 4)),
        entry="step",
        metadata={"opt_level": 2},
    )


def random_weights(
    module: tf.Module, seed: int = 0
) -> dict[str, np.ndarray[Any, np.dtype[np.float32]]]:
    """Small random weights for every weight of the module (gains near 1)."""
    rng = np.random.default_rng(seed)
    weights = {}
    for name, type in module.weights.items():
        shape = tuple(d for d in type.shape if isinstance(d, int))
        scale = 1.0 / math.sqrt(shape[0])
        value = rng.standard_normal(shape).astype(np.float32) * scale
        if name.endswith(("norm1", "norm2")):
            value = (1.0 + 0.1 * value).astype(np.float32)
        weights[name] = value
    return weights


def reference(
    x: np.ndarray[Any, Any], weights: dict[str, np.ndarray[Any, Any]], num_layers: int
) -> Any:
    """The decoder in plain numpy."""

    def rms_norm(v: Any, gain: Any) -> Any:
        return v / np.sqrt(np.mean(v * v, axis=-1, keepdims=True) + EPS) * gain

    h = x.astype(np.float32)
    for i in range(num_layers):
        w = {name: weights[f"layer{i}.{name}"] for name in WEIGHTS}
        n = rms_norm(h, w["norm1"])
        q, k, v = n @ w["wq"], n @ w["wk"], n @ w["wv"]
        scores = q @ k.T / math.sqrt(q.shape[-1])
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        h = h + probs @ v @ w["wo"]
        up = rms_norm(h, w["norm2"]) @ w["w_up"]
        h = h + (up / (1 + np.exp(-up))) @ w["w_down"]
    return h


def main() -> int:
    num_layers = 4
    root = build_decoder(num_layers)
    print(
        f"built {root!r}: target {root.resolve_target()} ({root.resolve_target().arch}), "
        f"topologies {', '.join(map(str, root.effective_topologies()))}"
    )
    kernel = tf.select(root, "layer2.mlp")
    print(
        f"select('layer2.mlp') -> entry {kernel.entry}, target {kernel.target}, "
        f"topologies {', '.join(map(str, kernel.topologies or ()))}"
    )
    print("functions:", ", ".join(path for path, _ in tf.function_selectors(root)))

    weights = random_weights(root)
    x = np.random.default_rng(1).standard_normal((16, 64)).astype(np.float32)
    ordered = [weights[p.name] for p in root.entry_function().params if p.is_const]
    got = root.step(x, *ordered)
    want = reference(x, weights, num_layers)
    error = float(np.max(np.abs(got - want)))
    print(f"step(x[16x64]) vs numpy reference: max abs error {error:.2e}")
    loaded = tf.LoadedModule(root, weights)
    same = np.array_equal(loaded.step(x), got)
    print(f"LoadedModule(root, weights).step(x) gives the same result: {same}")
    return 0 if error < 1e-4 and same else 1


if __name__ == "__main__":
    sys.exit(main())
