"""TileFoundry core IR: the shared node algebra (Module, Expr, IRMetadata, Op, Call, Var,
Constant, Tuple, Patterns, Target, Topology), hosted as xDSL dialects.

The public names are imported on first use, so that `import tilefoundry` (and `tf-opt`) costs
nothing beyond what is used; importing the package only wires its layers (`tilefoundry.context`).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import tilefoundry.context  # noqa: F401 - wires the layers: the op library, the patterns

_EXPORTS: dict[str, tuple[str, str]] = {
    # module
    "Module": ("tilefoundry.module", "Module"),
    "select": ("tilefoundry.selection", "select"),
    "function_selectors": ("tilefoundry.selection", "function_selectors"),
    "LoadedModule": ("tilefoundry.runtime", "LoadedModule"),
    "run_passes": ("tilefoundry.pipeline", "run_passes"),
    "analyze": ("tilefoundry.analysis", "analyze"),
    "Cost": ("tilefoundry.analysis", "Cost"),
    "parse_module": ("tilefoundry.text", "parse_module"),
    "print_module": ("tilefoundry.text", "print_module"),
    "TextError": ("tilefoundry.text", "TextError"),
    # expressions
    "Expr": ("tilefoundry.ir.expr", "Expr"),
    "Var": ("tilefoundry.ir.expr", "Var"),
    "Call": ("tilefoundry.dialects.tf", "CallOp"),
    "Constant": ("tilefoundry.dialects.tf", "ConstantOp"),
    "Tuple": ("tilefoundry.dialects.tf", "TupleOp"),
    # metadata
    "IRMetadata": ("tilefoundry.ir.metadata", "IRMetadata"),
    "BindingMetadata": ("tilefoundry.ir.metadata", "BindingMetadata"),
    "SourceSpanMetadata": ("tilefoundry.ir.metadata", "SourceSpanMetadata"),
    "get_metadata": ("tilefoundry.ir.expr", "get_metadata"),
    "replace_metadata": ("tilefoundry.ir.expr", "replace_metadata"),
    "remove_metadata": ("tilefoundry.ir.expr", "remove_metadata"),
    "binding_name": ("tilefoundry.ir.expr", "binding_name"),
    "diagnostic_location": ("tilefoundry.ir.expr", "diagnostic_location"),
    "source_metadata": ("tilefoundry.ir.expr", "source_metadata"),
    # ops
    "Op": ("tilefoundry.ir.op_registry", "Op"),
    "ParamDef": ("tilefoundry.ir.op_registry", "ParamDef"),
    "register_op": ("tilefoundry.ir.op_registry", "register_op"),
    "register_alias": ("tilefoundry.ir.op_registry", "register_alias"),
    "OpSchema": ("tilefoundry.ir.op_registry", "OpSchema"),
    "op_schemas": ("tilefoundry.ir.op_registry", "op_schemas"),
    "typeinfer": ("tilefoundry.ir.op_registry", "typeinfer"),
    # patterns
    "Pattern": ("tilefoundry.ir.patterns", "Pattern"),
    "ScalarPat": ("tilefoundry.ir.patterns", "ScalarPat"),
    "TensorPat": ("tilefoundry.ir.patterns", "TensorPat"),
    "AndPat": ("tilefoundry.ir.patterns", "AndPat"),
    "Scalar": ("tilefoundry.ir.patterns", "Scalar"),
    "Tensor": ("tilefoundry.ir.patterns", "Tensor"),
    "DimVarRangePat": ("tilefoundry.ir.patterns", "DimVarRangePat"),
    # checking and comparing
    "VerifyError": ("tilefoundry.diagnostics", "VerifyError"),
    "structural_equal": ("tilefoundry.ir.structural", "structural_equal"),
    "structural_hash": ("tilefoundry.ir.structural", "structural_hash"),
    # types
    "TensorType": ("tilefoundry.types", "TensorType"),
    "BufferType": ("tilefoundry.types", "BufferType"),
    "TupleType": ("tilefoundry.types", "TupleType"),
    "UnitType": ("tilefoundry.types", "UnitType"),
    "DimVar": ("tilefoundry.types", "DimVar"),
    # execution domain
    "Target": ("tilefoundry.target", "Target"),
    "Topology": ("tilefoundry.target", "Topology"),
    "Mesh": ("tilefoundry.dialects.tf_mesh", "MeshOp"),
}

__all__ = [
    "AndPat",
    "Cost",
    "analyze",
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
    "diagnostic_location",
    "function_selectors",
    "get_metadata",
    "op_schemas",
    "parse_module",
    "print_module",
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


def __getattr__(name: str) -> Any:
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
    from tilefoundry.analysis import Cost, analyze
    from tilefoundry.diagnostics import VerifyError
    from tilefoundry.dialects.tf import CallOp as Call
    from tilefoundry.dialects.tf import ConstantOp as Constant
    from tilefoundry.dialects.tf import TupleOp as Tuple
    from tilefoundry.ir.expr import (
        Expr,
        Var,
        binding_name,
        diagnostic_location,
        get_metadata,
        remove_metadata,
        replace_metadata,
        source_metadata,
    )
    from tilefoundry.ir.metadata import BindingMetadata, IRMetadata, SourceSpanMetadata
    from tilefoundry.ir.op_registry import (
        Op,
        OpSchema,
        ParamDef,
        op_schemas,
        register_alias,
        register_op,
        typeinfer,
    )
    from tilefoundry.ir.patterns import (
        AndPat,
        DimVarRangePat,
        Pattern,
        Scalar,
        ScalarPat,
        Tensor,
        TensorPat,
    )
    from tilefoundry.ir.structural import structural_equal, structural_hash
    from tilefoundry.module import Module
    from tilefoundry.pipeline import run_passes
    from tilefoundry.text import TextError, parse_module, print_module
    from tilefoundry.types import BufferType, DimVar, TensorType, TupleType, UnitType
