"""A decorator of another module (issue 24, item 3): `functools.wraps` over the user's
function, with a global of the same name as the user's."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

SCALE = 100.0


def traced(fn: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return fn(*args, **kwargs) * SCALE

    return wrapper
