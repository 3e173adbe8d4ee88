"""The ATen rules of the activations of `torch.nn` that are formulas of registered ops:
`leaky_relu`, `hardtanh` (`ReLU6`), `elu`, `softplus`, `hardsigmoid`, `hardswish`, `mish`,
`log_sigmoid`, and `flip` (what a bidirectional recurrent layer runs backwards with)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tilefoundry import ops
from tilefoundry.builtin.types import TensorType
from tilefoundry.dialects.tf.ops import ConstantOp, TupleOp
from tilefoundry.frontends.torch.emitter import Emitter, arg
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.ir.algebra.expr import Expr

K = ops.BinaryKind


class _Formula:
    """Builds a formula on one dtype: `f.bin(K.MUL, x, 0.5)` takes tensors and numbers."""

    def __init__(self, em: Emitter, dtype: str) -> None:
        self.em, self.dtype = em, dtype

    def bin(self, kind: K, a: Any, b: Any) -> Expr:
        return self.em.call(
            ops.Binary(kind=kind), self.em.tensor(a, self.dtype), self.em.tensor(b, self.dtype)
        )

    def un(self, kind: ops.UnaryKind, a: Expr) -> Expr:
        return self.em.call(ops.Unary(kind=kind), a)

    def where(self, cond: Expr, a: Any, b: Any) -> Expr:
        em = self.em
        return em.call(ops.Where(), cond, em.tensor(a, self.dtype), em.tensor(b, self.dtype))

    def clamp(self, x: Expr, low: float, high: float) -> Expr:
        return self.bin(K.MIN, self.bin(K.MAX, x, low), high)

    def softplus(self, x: Expr) -> Expr:
        """`log(1 + exp(x))`, as `max(x, 0) + log(1 + exp(-|x|))` (no overflow)."""
        tail = self.un(
            ops.UnaryKind.LOG,
            self.bin(
                K.ADD,
                1.0,
                self.un(
                    ops.UnaryKind.EXP, self.un(ops.UnaryKind.NEG, self.un(ops.UnaryKind.ABS, x))
                ),
            ),
        )
        return self.bin(K.ADD, self.bin(K.MAX, x, 0.0), tail)


def _input(em: Emitter, node: Any, args: list[Any]) -> tuple[_Formula, Expr]:
    dtype = em.out_type(node).dtype
    return _Formula(em, dtype), em.tensor(args[0], dtype)


def leaky_relu(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    f, x = _input(em, node, args)
    slope = arg(args, kwargs, 1, "negative_slope", 0.01)
    return f.where(f.bin(K.CMP_GT, x, 0.0), x, f.bin(K.MUL, x, slope))


def hardtanh(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    f, x = _input(em, node, args)
    return f.clamp(x, arg(args, kwargs, 1, "min_val", -1.0), arg(args, kwargs, 2, "max_val", 1.0))


def elu(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`scale * x` where positive, else `alpha * scale * (exp(input_scale * x) - 1)`."""
    f, x = _input(em, node, args)
    alpha = arg(args, kwargs, 1, "alpha", 1.0)
    scale = arg(args, kwargs, 2, "scale", 1.0)
    input_scale = arg(args, kwargs, 3, "input_scale", 1.0)
    grown = f.bin(K.SUB, f.un(ops.UnaryKind.EXP, f.bin(K.MUL, x, input_scale)), 1.0)
    negative = f.bin(K.MUL, grown, alpha * scale)
    return f.where(f.bin(K.CMP_GT, x, 0.0), f.bin(K.MUL, x, scale), negative)


def softplus(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`log(1 + exp(beta * x)) / beta`, and `x` itself where `beta * x > threshold`."""
    f, x = _input(em, node, args)
    beta = arg(args, kwargs, 1, "beta", 1.0)
    threshold = arg(args, kwargs, 2, "threshold", 20.0)
    scaled = f.bin(K.MUL, x, beta)
    smooth = f.bin(K.DIV, f.softplus(scaled), beta)
    return f.where(f.bin(K.CMP_GT, scaled, threshold), x, smooth)


def hardsigmoid(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    f, x = _input(em, node, args)
    return f.bin(K.DIV, f.clamp(f.bin(K.ADD, x, 3.0), 0.0, 6.0), 6.0)


def hardswish(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    f, x = _input(em, node, args)
    return f.bin(K.DIV, f.bin(K.MUL, x, f.clamp(f.bin(K.ADD, x, 3.0), 0.0, 6.0)), 6.0)


def mish(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    f, x = _input(em, node, args)
    return f.bin(K.MUL, x, f.un(ops.UnaryKind.TANH, f.softplus(x)))


def log_sigmoid(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`-softplus(-x)`; `log_sigmoid_forward` gives a tuple (the buffer is not computed)."""
    f, x = _input(em, node, args)
    value = f.un(ops.UnaryKind.NEG, f.softplus(f.un(ops.UnaryKind.NEG, x)))
    return [value, None] if "forward" in str(node.target) else value


def flip(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """`flip` along each of `dims`: the dim moved to the front, indexed by its positions
    reversed, moved back."""
    value: Expr = args[0]
    t = value.type
    assert isinstance(t, TensorType)
    for dim in args[1]:
        axis = dim % t.rank
        size = t.shape[axis]
        if not isinstance(size, int):
            raise TorchImportError("flip of a dynamic dim")
        perm = (axis, *(i for i in range(t.rank) if i != axis))
        moved = value if axis == 0 else em.call(ops.Transpose(perm=perm), value)
        reverse = ConstantOp(np.arange(size - 1, -1, -1, dtype=np.int64))
        value = em.call(ops.Index(), moved, TupleOp([reverse]))
        if axis:
            back = tuple(int(i) for i in np.argsort(perm))
            value = em.call(ops.Transpose(perm=back), value)
    return value
