"""The elementwise ATen rules: arithmetic and comparisons (with torch's type promotion), logic,
unary ops and activations, `where` / `masked_fill`, identities, casts."""

from __future__ import annotations

from typing import Any

from tilefoundry import ops
from tilefoundry.frontends.torch.emitter import (
    Emitter,
    Handler,
    arg,
    promote,
)
from tilefoundry.frontends.torch.errors import TorchImportError
from tilefoundry.ir.algebra.op_registry import Op

# -- elementwise ------------------------------------------------------------------------------


def arith(kind: ops.BinaryKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        lhs, rhs = args[0], args[1]
        if kwargs.get("rounding_mode") is not None:
            raise TorchImportError(f"div with rounding_mode={kwargs['rounding_mode']!r}")
        dtype = em.out_type(node).dtype
        alpha = kwargs.get("alpha", 1)
        b = em.tensor(rhs, dtype)
        if alpha != 1:
            b = em.call(ops.Binary(kind=ops.BinaryKind.MUL), b, em.literal(alpha, dtype))
        return em.call(ops.Binary(kind=kind), em.tensor(lhs, dtype), b)

    return handle


def compare(kind: ops.BinaryKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        lhs, rhs = args[0], args[1]
        dtype = promote(lhs, rhs)
        return em.call(ops.Binary(kind=kind), em.tensor(lhs, dtype), em.tensor(rhs, dtype))

    return handle


def rsub(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return arith(ops.BinaryKind.SUB)(em, node, [args[1], args[0]], kwargs)


def logical(kind: ops.LogicalKind) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if em.out_type(node).dtype != "i1":
            raise TorchImportError(f"bitwise {kind.value} of integers")
        return em.call(ops.Logical(kind=kind), em.tensor(args[0], "i1"), em.tensor(args[1], "i1"))

    return handle


def logical_not(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if em.out_type(node).dtype != "i1":
        raise TorchImportError("bitwise not of integers")
    return em.call(ops.LogicalNot(), em.tensor(args[0], "i1"))


def elementwise(op: Op) -> Handler:
    def handle(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        return em.call(op, em.tensor(args[0], em.out_type(node).dtype))

    return handle


def gelu(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    approximate = arg(args, kwargs, 1, "approximate", "none")
    kind = ops.ActivationKind.GELU_TANH if approximate == "tanh" else ops.ActivationKind.GELU
    return em.call(ops.Activation(kind=kind), args[0])


def where(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    cond, a, b = args
    dtype = em.out_type(node).dtype
    return em.call(ops.Where(), em.tensor(cond, "i1"), em.tensor(a, dtype), em.tensor(b, dtype))


def masked_fill(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    x, mask, value = args
    dtype = em.out_type(node).dtype
    return em.call(ops.Where(), em.tensor(mask, "i1"), em.tensor(value, dtype), em.tensor(x, dtype))


# -- identities and casts -------------------------------------------------------------------


def identity(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return args[0]


def dropout(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    if arg(args, kwargs, 2, "train", False):
        raise TorchImportError("dropout in training mode (import the model in eval mode)")
    return args[0]


def assertion(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return None


def to_dtype(em: Emitter, node: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    return em.cast(args[0], em.out_type(node).dtype)
