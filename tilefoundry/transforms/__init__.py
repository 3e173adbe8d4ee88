"""The pass registry: kebab-case name -> lazy loader, one pass per file (`tf_fold_constants.py`
is `tf-fold-constants`), and the pass manager that runs pipelines of them
(`tilefoundry.transforms.pass_manager`), with the instrumentations run around each pass
(`tilefoundry.transforms.instrumentation`). `canonicalize`, `cse` and `dce` run xDSL's rewrites
on any anchor op."""

from __future__ import annotations

import importlib
from collections.abc import Callable

from xdsl.passes import ModulePass

from tilefoundry.transforms.pass_manager import PassError, PassOutputError, describe_passes

__all__ = ["PASSES", "PassError", "PassOutputError", "describe_passes"]


def _loader(module: str, cls: str) -> Callable[[], type[ModulePass]]:
    def load() -> type[ModulePass]:
        pass_class: type[ModulePass] = getattr(
            importlib.import_module(f"tilefoundry.transforms.{module}"), cls
        )
        return pass_class

    return load


PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "canonicalize": _loader("canonicalize", "Canonicalize"),
    "cse": _loader("cse", "Cse"),
    "dce": _loader("dce", "Dce"),
    "tf-analyze": _loader("tf_analyze", "TfAnalyze"),
    "tf-fold-constants": _loader("tf_fold_constants", "TfFoldConstants"),
    "tf-inline": _loader("tf_inline", "TfInline"),
    "tf-lower": _loader("tf_lower", "TfLower"),
    "tf-prune-unreachable": _loader("tf_prune_unreachable", "TfPruneUnreachable"),
    "tf-select": _loader("tf_select", "TfSelect"),
    "tf-simplify": _loader("tf_simplify", "TfSimplify"),
    "tf-strip-debuginfo": _loader("tf_strip_debuginfo", "TfStripDebuginfo"),
    "tf-verify-published": _loader("tf_verify_published", "TfVerifyPublished"),
}
"""Every pass tf-opt knows; a plugin adds entries (`tf-opt --plugin MODULE`)."""
