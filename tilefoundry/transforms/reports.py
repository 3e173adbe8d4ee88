"""Where a pass's report for the user goes (`tf-analyze{table=-}`'s table): the stream the tool
running the pipeline names (tf-opt: its stderr), and nowhere from Python (`run_passes`), as a
library prints nothing. A module of its own so that tf-opt names it without importing passes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TextIO

__all__ = ["REPORTS", "reports_to"]

REPORTS: ContextVar[TextIO | None] = ContextVar("tf_pass_reports", default=None)
"""The stream of the tool's reports; None: they go nowhere."""


@contextmanager
def reports_to(stream: TextIO) -> Iterator[None]:
    """Within this, a pass's reports go to `stream`."""
    token = REPORTS.set(stream)
    try:
        yield
    finally:
        REPORTS.reset(token)
