"""`collection_paused()`: no cyclic garbage collection during a bulk allocation.

Reading a module, cloning a tree: each makes a great many objects (ops, values, uses, which
refer to each other in cycles) and frees almost none. Python's collector, triggered by the
allocations, then walks the ever larger heap again and again, for nothing: a tenth of the time
of a parse, and what made cloning a 256-layer model grow faster than the model. Pausing it for
the operation (and resuming it after, whatever happens) makes both linear.

Only the tools pause it (tf-opt while it parses and verifies, tf-run for its run): a library
call a user makes (`parse_module`, `verify_ir`, `Module.cloned`) leaves the collector as the
user has it, so that a program that relies on it (or has switched it off itself) keeps its own
choice; benchmarks/README.md records what this costs such a call.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collection_paused"]


@contextmanager
def collection_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
