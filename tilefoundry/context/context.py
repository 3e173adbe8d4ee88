"""The xDSL context for TileFoundry IR: builtin, `tf`, `hir` and `tir`, and xDSL's standard
dialects (`func`, `arith`, `llvm`, ...) as `xdsl-opt` knows them, each loaded on first use.

This module also wires the layers together, lazily, when the package is imported: the op
library (`tilefoundry.ops`) is imported the first time text names one of its ops
(`#tf.op<...>`), and the canonicalization patterns (`tilefoundry.transforms.canonicalization`)
the first time a pass asks an op for them. Further libraries are imported with `load_plugin`
(`tf-opt --plugin MODULE`).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.context import Context
from xdsl.ir import Dialect

from tilefoundry.dialects.canonicalization_trait import add_pattern_source
from tilefoundry.ir.algebra.op_registry import add_library_loader

__all__ = ["DIALECT_LOADERS", "PluginError", "load_plugin", "make_context", "register_dialects"]


def _tf() -> Dialect:
    from tilefoundry.dialects.tf.ops import TF

    return TF


def _hir() -> Dialect:
    from tilefoundry.dialects.hir import HIR

    return HIR


def _tir() -> Dialect:
    from tilefoundry.dialects.tir import TIR

    return TIR


def _builtin() -> Dialect:
    from xdsl.dialects.builtin import Builtin

    return Builtin


DIALECT_LOADERS: dict[str, Callable[[], Dialect]] = {
    "builtin": _builtin,
    "tf": _tf,
    "hir": _hir,
    "tir": _tir,
}


add_library_loader(lambda: importlib.import_module("tilefoundry.ops"))
add_pattern_source(
    lambda: importlib.import_module(
        "tilefoundry.transforms.canonicalization"
    ).canonicalization_patterns()
)


def register_dialects(ctx: Context) -> None:
    """Register TileFoundry's dialects and xDSL's standard ones, lazily: a dialect is loaded
    when text first names it (xDSL's own registry costs nothing once `xdsl.dialects` is
    imported, as the tools have it)."""
    from xdsl.dialects import get_all_dialects  # xDSL's registry, for the parsing tools only

    for name, loader in get_all_dialects().items():
        if name not in DIALECT_LOADERS:
            ctx.register_dialect(name, loader)
    for name, loader in DIALECT_LOADERS.items():
        ctx.register_dialect(name, loader)


def make_context(*, allow_unregistered: bool = False) -> Context:
    ctx = Context(allow_unregistered=allow_unregistered)
    register_dialects(ctx)
    return ctx


class PluginError(ImportError):
    """A plugin that cannot be loaded: one line, `cannot load plugin 'name': why`."""


def load_plugin(module_name: str) -> None:
    """Import a module that registers ops (`@register_op`), metadata classes (`IRMetadata`
    subclasses) or passes (entries of `tilefoundry.transforms.PASSES`). Refused with a
    `PluginError`: an empty or relative name, a module that is not found, or whose import
    raises (its exception's type and first line are named)."""
    if not isinstance(module_name, str) or not module_name.strip():
        raise PluginError(
            f"cannot load plugin '{module_name}': a plugin is the name of a Python module "
            "(e.g. --plugin my_ops)"
        )
    if module_name.startswith("."):
        raise PluginError(
            f"cannot load plugin '{module_name}': a plugin is an absolute module name, not a "
            "relative one"
        )
    try:
        importlib.import_module(module_name)
    except ImportError as err:
        raise PluginError(f"cannot load plugin '{module_name}': {_first_line(err)}") from None
    except Exception as err:  # the plugin's own code failed while it was imported
        raise PluginError(
            f"cannot load plugin '{module_name}': its import raised {type(err).__name__}: "
            f"{_first_line(err)}"
        ) from err


def _first_line(err: BaseException) -> str:
    lines = [line.strip() for line in str(err).splitlines() if line.strip()]
    return lines[0] if lines else type(err).__name__
