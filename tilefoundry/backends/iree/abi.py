"""Calling a function of a loaded IREE module from Python, as a native one is called.

The module's exported functions are by value (`codegen/entry.py`, `write_value_wrapper`): one
tensor per parameter leaf in, the result leaves, then each buffer leaf's final contents, then
the status out. `IreeFunction.__call__` checks the arguments as the interpreter does
(`bind_arguments`, shared with the native backend), passes each leaf's contents (bf16 as
`ml_dtypes.bfloat16` of its bits), writes each buffer's final contents back into the caller's
array, and raises the status's run-time error (`raise_status`). Two buffer arguments that share
memory are refused: buffers are values here, and their writes could not show in each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tilefoundry.backends.native.abi import (
    assembled,
    bind_arguments,
    from_storage,
    leaf_values,
    raise_status,
    to_storage,
)
from tilefoundry.codegen.entry import EntryABI
from tilefoundry.dialects.tf.types import BufferType

__all__ = ["IreeFunction"]


def _bfloat16() -> Any:
    import ml_dtypes  # installed with iree-base-runtime

    return ml_dtypes.bfloat16


def _input(array: Any, dtype: str) -> Any:
    data = to_storage(array, dtype)
    return data.view(_bfloat16()) if dtype == "bf16" else data


def _output(value: Any, dtype: str) -> Any:
    host = np.asarray(value.to_host() if hasattr(value, "to_host") else value)
    if dtype == "bf16":
        return from_storage(host.view(np.uint16), dtype)
    return host


class IreeFunction:
    """One exported function of a loaded IREE module, called with one array per parameter."""

    def __init__(self, invoker: Any, abi: EntryABI, messages: Sequence[str]) -> None:
        self.abi = abi
        self.messages = list(messages)
        self._invoker = invoker

    @property
    def name(self) -> str:
        return self.abi.path[-1]

    def __call__(self, *args: Any) -> Any:
        abi = self.abi
        _, held = bind_arguments(abi, args)
        inputs: list[Any] = []
        buffers: list[tuple[str, Any, str]] = []
        for param, value in zip(abi.params, held, strict=True):
            for leaf, array in leaf_values(param.type, value):
                inputs.append(_input(array, leaf.dtype))
                if isinstance(leaf, BufferType):
                    buffers.append((param.name, array, leaf.dtype))
        outputs = self._invoker(*inputs)
        if not isinstance(outputs, list | tuple):
            outputs = [outputs]
        count = len(abi.results)
        status = _output(outputs[-1], "i64")
        for (_, array, dtype), final in zip(buffers, outputs[count:-1], strict=True):
            np.copyto(array, _output(final, dtype))
        raise_status(status, self.messages)
        if not abi.results:
            return None
        values = [_output(v, t.dtype) for v, t in zip(outputs[:count], abi.results, strict=True)]
        return assembled(abi.result, values)
