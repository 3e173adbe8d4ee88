"""The pass registry: kebab-case name -> lazy loader, one pass per file (`tf_fold_constants.py`
is `tf-fold-constants`). xDSL's generic `canonicalize`, `cse` and `dce` are available too."""

from __future__ import annotations

from collections.abc import Callable

from xdsl.passes import ModulePass

__all__ = ["PASSES"]


def _fold_constants() -> type[ModulePass]:
    from tilefoundry.transforms.tf_fold_constants import TfFoldConstants

    return TfFoldConstants


def _simplify() -> type[ModulePass]:
    from tilefoundry.transforms.tf_simplify import TfSimplify

    return TfSimplify


def _strip_debuginfo() -> type[ModulePass]:
    from tilefoundry.transforms.tf_strip_debuginfo import TfStripDebuginfo

    return TfStripDebuginfo


def _canonicalize() -> type[ModulePass]:
    from xdsl.transforms.canonicalize import CanonicalizePass

    return CanonicalizePass


def _cse() -> type[ModulePass]:
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination

    return CommonSubexpressionElimination


def _dce() -> type[ModulePass]:
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return DeadCodeElimination


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "tf-fold-constants": _fold_constants,
    "tf-simplify": _simplify,
    "tf-strip-debuginfo": _strip_debuginfo,
    "canonicalize": _canonicalize,
    "cse": _cse,
    "dce": _dce,
}
