"""TileFoundry core IR: the shared node algebra (Module, Expr, IRMetadata, Op, Call, Var,
Constant, Tuple, Patterns, Target, Topology), hosted as xDSL dialects.

The public names are imported on first use, so that `import tilefoundry` (and `tf-opt`) costs
nothing beyond what is used; importing the package only wires its layers (`tilefoundry.context.context`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import tilefoundry.context.context  # noqa: F401 - wires the layers: the op library, the patterns
from tilefoundry.api.class_body import set_class_body_loader as _set_class_body_loader

# A subclass of `Module` (the surface) is a class-body module of the DSL, a layer above it: the
# DSL's collection is wired in here, and imported on first use (docs/dsl.md).
_set_class_body_loader(lambda: importlib.import_module("tilefoundry.dsl.classes"))

_EXPORTS: dict[str, tuple[str, str]] = {
    # module
    "Module": ("tilefoundry.api.module", "Module"),
    "select": ("tilefoundry.api.selection", "select"),
    "function_selectors": ("tilefoundry.api.selection", "function_selectors"),
    "LoadedModule": ("tilefoundry.api.runtime", "LoadedModule"),
    "run_passes": ("tilefoundry.api.pipeline", "run_passes"),
    "compile": ("tilefoundry.api.compiler", "compile"),
    "emit_mlir": ("tilefoundry.api.compiler", "emit_mlir"),
    "CompiledModule": ("tilefoundry.api.compiled", "CompiledModule"),
    "analyze": ("tilefoundry.api.analysis", "analyze"),
    "lower": ("tilefoundry.api.compiler", "lower"),
    "from_torch": ("tilefoundry.frontends.torch", "from_torch"),
    "from_exported_program": ("tilefoundry.frontends.torch", "from_exported_program"),
    "Cost": ("tilefoundry.api.analysis", "Cost"),
    "parse_module": ("tilefoundry.api.text", "parse_module"),
    "clear_caches": ("tilefoundry.support.caches", "clear_caches"),
    "print_module": ("tilefoundry.api.text", "print_module"),
    "TextError": ("tilefoundry.api.text", "TextError"),
    # expressions
    "Expr": ("tilefoundry.ir.algebra.expr", "Expr"),
    "Var": ("tilefoundry.ir.algebra.expr", "Var"),
    "Call": ("tilefoundry.dialects.tf.ops", "CallOp"),
    "Constant": ("tilefoundry.dialects.tf.ops", "ConstantOp"),
    "Tuple": ("tilefoundry.dialects.tf.ops", "TupleOp"),
    # metadata
    "IRMetadata": ("tilefoundry.builtin.metadata", "IRMetadata"),
    "BindingMetadata": ("tilefoundry.builtin.metadata", "BindingMetadata"),
    "SourceSpanMetadata": ("tilefoundry.builtin.metadata", "SourceSpanMetadata"),
    "get_metadata": ("tilefoundry.ir.algebra.expr", "get_metadata"),
    "replace_metadata": ("tilefoundry.ir.algebra.expr", "replace_metadata"),
    "remove_metadata": ("tilefoundry.ir.algebra.expr", "remove_metadata"),
    "binding_name": ("tilefoundry.ir.algebra.expr", "binding_name"),
    "diagnostic_location": ("tilefoundry.ir.algebra.expr", "diagnostic_location"),
    "source_metadata": ("tilefoundry.ir.algebra.expr", "source_metadata"),
    # ops
    "Op": ("tilefoundry.ir.algebra.op_registry", "Op"),
    "ParamDef": ("tilefoundry.ir.algebra.op_registry", "ParamDef"),
    "register_op": ("tilefoundry.ir.algebra.op_registry", "register_op"),
    "register_alias": ("tilefoundry.ir.algebra.op_registry", "register_alias"),
    "OpSchema": ("tilefoundry.ir.algebra.op_registry", "OpSchema"),
    "op_schemas": ("tilefoundry.ir.algebra.op_registry", "op_schemas"),
    "typeinfer": ("tilefoundry.ir.algebra.op_registry", "typeinfer"),
    # patterns
    "Pattern": ("tilefoundry.ir.algebra.patterns", "Pattern"),
    "ScalarPat": ("tilefoundry.ir.algebra.patterns", "ScalarPat"),
    "TensorPat": ("tilefoundry.ir.algebra.patterns", "TensorPat"),
    "AndPat": ("tilefoundry.ir.algebra.patterns", "AndPat"),
    "Scalar": ("tilefoundry.ir.algebra.patterns", "Scalar"),
    "Tensor": ("tilefoundry.ir.algebra.patterns", "Tensor"),
    "DimVarRangePat": ("tilefoundry.ir.algebra.patterns", "DimVarRangePat"),
    # checking and comparing
    "VerifyError": ("tilefoundry.support.diagnostics", "VerifyError"),
    "structural_equal": ("tilefoundry.ir.algebra.structural", "structural_equal"),
    "structural_hash": ("tilefoundry.ir.algebra.structural", "structural_hash"),
    # types
    "TensorType": ("tilefoundry.builtin.types", "TensorType"),
    "BufferType": ("tilefoundry.builtin.types", "BufferType"),
    "TupleType": ("tilefoundry.builtin.types", "TupleType"),
    "UnitType": ("tilefoundry.builtin.types", "UnitType"),
    "DimVar": ("tilefoundry.builtin.types", "DimVar"),
    # execution domain
    "Target": ("tilefoundry.builtin.target", "Target"),
    "Topology": ("tilefoundry.builtin.target", "Topology"),
    "Mesh": ("tilefoundry.dialects.tf.mesh", "MeshOp"),
    # the DSL
    "func": ("tilefoundry.dsl.functions", "func"),
    "prim_func": ("tilefoundry.dsl.functions", "prim_func"),
    "ConstTensor": ("tilefoundry.dsl.annotations", "ConstTensor"),
    "DSLError": ("tilefoundry.dsl.errors", "DSLError"),
    "print_script": ("tilefoundry.dsl.script", "print_script"),
}

__all__ = [
    "AndPat",
    "CompiledModule",
    "compile",
    "emit_mlir",
    "ConstTensor",
    "Cost",
    "DSLError",
    "analyze",
    "from_exported_program",
    "from_torch",
    "run_passes",
    "BindingMetadata",
    "BufferType",
    "Call",
    "Constant",
    "DimVar",
    "DimVarRangePat",
    "Expr",
    "IRMetadata",
    "LoadedModule",
    "Mesh",
    "Module",
    "Op",
    "OpSchema",
    "ParamDef",
    "Pattern",
    "Scalar",
    "ScalarPat",
    "SourceSpanMetadata",
    "Target",
    "Tensor",
    "TensorPat",
    "TensorType",
    "TextError",
    "Topology",
    "Tuple",
    "TupleType",
    "UnitType",
    "Var",
    "VerifyError",
    "binding_name",
    "clear_caches",
    "diagnostic_location",
    "func",
    "function_selectors",
    "get_metadata",
    "lower",
    "op_schemas",
    "parse_module",
    "prim_func",
    "print_module",
    "print_script",
    "register_alias",
    "register_op",
    "remove_metadata",
    "replace_metadata",
    "select",
    "source_metadata",
    "structural_equal",
    "structural_hash",
    "typeinfer",
]
"""The public names (the keys of `_EXPORTS`, which says where each one lives)."""


_MODULES: dict[str, str] = {
    "hir": "tilefoundry.api.hir",
    "tir": "tilefoundry.api.tir",
}
"""The views' modules, as `tf.hir.Function` and `tf.tir.PrimFunction` name them (they were
attributes of the package while they lived in its root)."""


def __getattr__(name: str) -> Any:
    if name in _MODULES:
        module = importlib.import_module(_MODULES[name])
        globals()[name] = module
        return module
    try:
        module_name, attribute = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'tilefoundry' has no attribute '{name}'") from None
    value = getattr(importlib.import_module(module_name), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])


if TYPE_CHECKING:
    from tilefoundry.api.analysis import Cost, analyze
    from tilefoundry.api.compiled import CompiledModule
    from tilefoundry.api.compiler import compile, emit_mlir, lower
    from tilefoundry.api.module import Module
    from tilefoundry.api.pipeline import run_passes
    from tilefoundry.api.text import TextError, parse_module, print_module
    from tilefoundry.builtin.metadata import BindingMetadata, IRMetadata, SourceSpanMetadata
    from tilefoundry.builtin.types import BufferType, DimVar, TensorType, TupleType, UnitType
    from tilefoundry.dialects.tf.ops import CallOp as Call
    from tilefoundry.dialects.tf.ops import ConstantOp as Constant
    from tilefoundry.dialects.tf.ops import TupleOp as Tuple
    from tilefoundry.dsl.annotations import ConstTensor
    from tilefoundry.dsl.errors import DSLError
    from tilefoundry.dsl.functions import func, prim_func
    from tilefoundry.dsl.script import print_script
    from tilefoundry.frontends.torch import from_exported_program, from_torch
    from tilefoundry.ir.algebra.expr import (
        Expr,
        Var,
        binding_name,
        diagnostic_location,
        get_metadata,
        remove_metadata,
        replace_metadata,
        source_metadata,
    )
    from tilefoundry.ir.algebra.op_registry import (
        Op,
        OpSchema,
        ParamDef,
        op_schemas,
        register_alias,
        register_op,
        typeinfer,
    )
    from tilefoundry.ir.algebra.patterns import (
        AndPat,
        DimVarRangePat,
        Pattern,
        Scalar,
        ScalarPat,
        Tensor,
        TensorPat,
    )
    from tilefoundry.ir.algebra.structural import structural_equal, structural_hash
    from tilefoundry.support.diagnostics import VerifyError
