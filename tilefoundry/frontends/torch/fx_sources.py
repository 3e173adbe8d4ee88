"""torch.fx keeps the source text of every GraphModule it generates for good: an entry in its
loader's `eval_cache` and a lazy `linecache` entry each (what a traceback into generated code
shows). An import makes several graph modules (the export, `run_decompositions`, `unflatten`)
and drops them all when it returns, so a process that imports a model again and again grew by
each import's sources. `forgetting_fx_sources` forgets, when the import ends, the sources torch
cached during it (those of graph modules made before it, the caller's, stay)."""

from __future__ import annotations

import linecache
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["forgetting_fx_sources"]


@contextmanager
def forgetting_fx_sources() -> Iterator[None]:
    """Forget, on exit, the graph module sources torch.fx cached inside the block."""
    from torch.fx import graph_module

    loader = getattr(graph_module, "_loader", None)
    cache = getattr(loader, "eval_cache", None)
    if not isinstance(cache, dict):  # another torch: nothing known to forget
        yield
        return
    before = set(cache)
    try:
        yield
    finally:
        for key in [key for key in cache if key not in before]:
            cache.pop(key, None)
            linecache.cache.pop(key, None)
