"""Calling a function of a loaded IREE module from Python, as a native one is called.

The module's exported functions are by value (`codegen/entry.py`, `write_value_wrapper`): one
tensor per parameter leaf in, the result leaves, then each buffer leaf's final contents, then
the status out. `IreeFunction.__call__` checks the arguments as the interpreter does
(`bind_arguments`, shared with the native backend), passes each leaf's contents (bf16 as
`ml_dtypes.bfloat16` of its bits), writes each buffer's final contents back into the caller's
array, and raises the status's run-time error (`raise_status`). Each result is copied out of the
runtime's memory, an array of its own (`_output`). Two buffer arguments that share memory are
refused: buffers are values here, and their writes could not show in each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from tilefoundry.backends.native.abi import (
    array_signature,
    assembled,
    bind_arguments,
    from_storage,
    leaf_values,
    raise_status,
    to_storage,
    trusted_arguments,
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
    """A result's contents, copied out of the runtime's memory: `DeviceArray.to_host()` maps
    the result's buffer, and that mapping does not keep the buffer alive once the call's
    `DeviceArray`s are collected (results share one allocation): a view of it read freed
    memory on `local-sync` (docs/decisions.md)."""
    host = np.array(value.to_host() if hasattr(value, "to_host") else value, copy=True)
    if dtype == "bf16":
        return from_storage(host.view(np.uint16), dtype)
    return host


class IreeFunction:
    """One exported function of a loaded IREE module, called with one array per parameter."""

    def __init__(
        self, invoker: Any, abi: EntryABI, messages: Sequence[str], device: Any = None
    ) -> None:
        self.device = device  # the runtime's HAL device: trusted inputs are copied to it once
        self.abi = abi
        self.messages = list(messages)
        self._invoker = invoker
        self._trusted: dict[int, tuple[Any, Any, tuple[Any, ...]]] = {}

    def trust(self, values: Mapping[str, Any]) -> None:
        """Arguments checked once for all, as `NativeFunction.trust` says (a `LoadedModule`'s
        read-only bindings): a call given the same array object, with the same memory, shape and
        strides, reuses its check and its input."""
        for index, array, dtype in trusted_arguments(self.abi, values):
            self._trusted[index] = (
                array,
                self._placed(_input(array, dtype)),
                array_signature(array),
            )

    def _placed(self, data: Any) -> Any:
        """A trusted input on the device once (each call passes it as it is, no host copy)."""
        if self.device is None:
            return data
        from iree import runtime

        return runtime.asdevicearray(self.device, data, implicit_host_transfer=True)

    @property
    def name(self) -> str:
        return self.abi.path[-1]

    def __call__(self, *args: Any) -> Any:
        abi = self.abi
        given = len(args)
        reused: dict[int, tuple[Any, Any, tuple[Any, ...]]] = {}
        for index, known in self._trusted.items():
            if index < given and args[index] is known[0] and known[2] == array_signature(known[0]):
                reused[index] = known
        _, held = bind_arguments(abi, args, reused)
        inputs: list[Any] = []
        buffers: list[tuple[str, Any, str]] = []
        for index, (param, value) in enumerate(zip(abi.params, held, strict=True)):
            found = reused.get(index)
            if found is not None:
                inputs.append(found[1])
                continue
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
