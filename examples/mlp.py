"""A two-layer MLP whose root function calls one function of each child module:
`forward(x, w1, w2) = fc2.proj(relu(fc1.proj(x, w1)), w2)`, at seq = 512, d = 256, f = 1024.

It shows what `tf-analyze` counts: `forward` moves 3,145,728 bytes of its own (x, w1, w2 and
its result), while `fc1.proj` alone moves 3,670,016 (x, w1 and the 512x1024 hidden activation).
The inclusive figures add each callee's to its caller's, so `forward`'s bytes (10,485,760) are
never fewer than those of a function it calls. `python examples/mlp.py` prints the table.
"""

from __future__ import annotations

import sys

import tilefoundry as tf
from tilefoundry import ops
from tilefoundry.api.hir import Function

__all__ = ["build_mlp"]


def _proj(d_in: int, d_out: int, seq: tf.DimVar) -> tf.Module:
    x = tf.Var("x", tf.TensorType((seq, d_in), "f32"))
    w = tf.Var("w", tf.TensorType((d_in, d_out), "f32"), is_const=True)
    return tf.Module(
        name="Linear", functions=[Function(name="proj", params=[x, w], body=ops.matmul(x, w))]
    )


def build_mlp(d: int = 256, f: int = 1024, max_seq: int = 512) -> tf.Module:
    """The MLP (see the module docstring), under an H100 root."""
    seq = tf.DimVar("seq", 1, max_seq + 1)
    fc1, fc2 = _proj(d, f, seq), _proj(f, d, seq)
    x = tf.Var("x", tf.TensorType((seq, d), "f32"))
    w1 = tf.Var("w1", tf.TensorType((d, f), "f32"), is_const=True)
    w2 = tf.Var("w2", tf.TensorType((f, d), "f32"), is_const=True)
    hidden = ops.relu(tf.Call(fc1.lookup("proj"), [x, w1]))
    forward = Function(
        name="forward", params=[x, w1, w2], body=tf.Call(fc2.lookup("proj"), [hidden, w2])
    )
    return tf.Module(
        name="mlp",
        functions=[forward],
        modules={"fc1": fc1, "fc2": fc2},
        target="h100",
        topologies=(),
        entry="forward",
    )


def main() -> int:
    print(tf.analyze(build_mlp()).table(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
