"""`tf-opt --timing`: where a run's time goes, as `mlir-opt --mlir-timing` reports it.

```
===-------------------------------------------------------------------------===
                      ... Execution time report ...
===-------------------------------------------------------------------------===
  Total Execution Time: 0.4215 seconds

  ----Wall Time----  ----Name----
    0.2871 ( 68.1%)  parse
    0.0713 ( 16.9%)  verify
    0.0120 (  2.8%)  pass cse
    0.0511 ( 12.1%)  print
    0.4215 (100.0%)  Total
```

Stages keep the order they first ran in; a stage that runs several times (verification after
each pass) adds up.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["Timing"]

_RULE = "===" + "-" * 73 + "==="


class Timing:
    """Wall time per stage of one run."""

    def __init__(self) -> None:
        self.stages: dict[str, float] = {}

    def add(self, stage: str, seconds: float) -> None:
        self.stages[stage] = self.stages.get(stage, 0.0) + seconds

    @contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.add(stage, time.perf_counter() - started)

    def report(self) -> str:
        total = sum(self.stages.values())
        lines = [
            _RULE,
            " " * 22 + "... Execution time report ...",
            _RULE,
            f"  Total Execution Time: {total:.4f} seconds",
            "",
            "  ----Wall Time----  ----Name----",
        ]
        for stage, seconds in [*self.stages.items(), ("Total", total)]:
            share = 100.0 * seconds / total if total else 0.0
            lines.append(f"    {seconds:.4f} ({share:5.1f}%)  {stage}")
        return "\n".join(lines) + "\n"
