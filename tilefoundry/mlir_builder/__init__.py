"""A library for writing upstream MLIR text (func / linalg / tensor / arith / math / scf /
memref / bufferization): SSA names, type spelling, `linalg.generic` and elementwise helpers,
the interpreter's scalar numerics, reductions in numpy's orders, run-time checks.

It sits below `tilefoundry.ops` (tests/unit/cross_cutting/test_layering.py): each op class's emission rule
(`emit`, docs/compile.md) writes its op with it.
"""

from __future__ import annotations

from tilefoundry.mlir_builder.builder import (
    STATUS_TENSOR,
    STATUS_TYPE,
    EmitError,
    Emitted,
    ErrorSite,
    MlirBuilder,
    ModuleState,
    MValue,
    values,
)

__all__ = [
    "STATUS_TENSOR",
    "STATUS_TYPE",
    "EmitError",
    "Emitted",
    "ErrorSite",
    "MValue",
    "MlirBuilder",
    "ModuleState",
    "values",
]
