"""Calling a function of a loaded IREE module from Python, as a native one is called.

The module's exported functions are by value (`codegen/entry.py`, `write_value_wrapper`): one
tensor per parameter leaf in, the result leaves, then each buffer leaf's final contents, then
the status out. `IreeFunction.__call__` checks the arguments as the interpreter does
(`bind_arguments`, shared with the native backend), passes each leaf's contents (bf16 as
`ml_dtypes.bfloat16` of its bits) as a HAL buffer view of the caller's memory when IREE can take
it as it is (`_aligned`), writes each buffer's final contents back into the caller's array, and
raises the status's run-time error (`raise_status`). Each result is a view of its own result
buffer that keeps the buffer alive (`_Mapped`), or a copy where it would share memory with an
input or another result (`_result`). Two buffer arguments that share memory are refused: buffers
are values here, and their writes could not show in each other.
"""

from __future__ import annotations

import threading
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
from tilefoundry.builtin.types import BufferType
from tilefoundry.codegen.entry import EntryABI
from tilefoundry.dialects.tf.dense import numpy_dtype

__all__ = ["IreeFunction"]


def _bfloat16() -> Any:
    import ml_dtypes  # installed with iree-base-runtime

    return ml_dtypes.bfloat16


def _input(array: Any, dtype: str) -> Any:
    data = to_storage(array, dtype)
    return data.view(_bfloat16()) if dtype == "bf16" else data


ALIGNMENT = 64
"""IREE's host allocator takes a host allocation as a buffer only at a multiple of 64 bytes
(`buffer_heap.c`: "imported heap buffer data must be aligned to 64")."""


def _aligned(data: Any, rooms: _Rooms | None = None, used: list[Any] | None = None) -> Any:
    """`data` where IREE can take it as it is (C-contiguous, writable, 64-byte aligned): the
    array itself when it is, else a copy of it that is (the copy this call would make anyway),
    in a room of `rooms` (recorded in `used`, to be given back) or new memory."""
    if data.flags.c_contiguous and data.flags.writeable and data.ctypes.data % ALIGNMENT == 0:
        return data
    room = rooms.take(data.nbytes) if rooms is not None else _room(data.nbytes)
    if used is not None:
        used.append(room)
    copy = room[: data.nbytes].view(data.dtype).reshape(data.shape)
    np.copyto(copy, data)
    return copy


def _room(nbytes: int) -> Any:
    """`nbytes` of new memory at a multiple of `ALIGNMENT` (a uint8 array)."""
    room = np.empty(nbytes + ALIGNMENT, np.uint8)
    start = -room.ctypes.data % ALIGNMENT
    return room[start : start + nbytes]


class _Rooms:
    """Aligned memory for the inputs IREE cannot take as they are, kept from call to call (at
    most `KEEP` rooms, each used by one call at a time). New memory for each call's copies can
    be new pages each time (glibc gives the freed top of its heap back to the system), and their
    page faults cost more than the copies: the 512x512 static matmul took 1,504 faults and ~6 ms
    more a call from two misaligned inputs, none with this."""

    KEEP = 8

    def __init__(self) -> None:
        self._free: list[Any] = []
        self._lock = threading.Lock()

    def take(self, nbytes: int) -> Any:
        with self._lock:
            for index, room in enumerate(self._free):
                if room.nbytes >= nbytes:
                    return self._free.pop(index)
        return _room(nbytes)

    def give(self, rooms: list[Any]) -> None:
        with self._lock:
            self._free = [*self._free, *rooms][-self.KEEP :]


def _writable(data: Any, given: Any) -> Any:
    """The caller's array `given` in place of `data`, the read-only view of it that the
    argument check returns (`check_argument` freezes an argument), when both are the same
    memory, dtype, shape and strides and `given` is writable: IREE imports only a writable
    buffer, and reads an input without writing it."""
    if (
        isinstance(given, np.ndarray)
        and given.flags.writeable
        and given.dtype == data.dtype
        and given.shape == data.shape
        and given.strides == data.strides
        and given.ctypes.data == data.ctypes.data
    ):
        return given
    return data


def _span(array: Any) -> tuple[int, int]:
    start = int(array.ctypes.data)
    return start, start + int(array.nbytes)


def _overlaps(span: tuple[int, int], spans: Sequence[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


class _Mapped:
    """A result's memory as numpy sees it (`__array_interface__`), holding IREE's mapping of
    the result buffer: the mapping retains the buffer, and the array made from this object
    keeps it as its base, so the memory lives as long as the array. (The array that
    `MappedMemory.asarray` returns does not: its base is a bare memoryview.)"""

    __slots__ = ("__array_interface__", "mapping")

    def __init__(self, mapping: Any, array: Any) -> None:
        self.mapping = mapping
        self.__array_interface__ = array.__array_interface__


_STORAGE = {"bf16": np.dtype(np.uint16), "i1": np.dtype(np.uint8)}
"""How IREE holds a result of these dtypes (bf16 as its bits, i1 as a byte); others as numpy."""


def _element_type(dtype: Any) -> int:
    from iree.runtime.dtypes import map_dtype_to_hal_element_type

    found = map_dtype_to_hal_element_type(dtype)
    assert found is not None, dtype
    return int(found)


class IreeFunction:
    """One exported function of a loaded IREE module, called with one array per parameter.

    A call passes each input as a HAL buffer view of the caller's own memory when IREE can take
    it (`_aligned`; a copy when it cannot, as the runtime's own conversion makes) and invokes the
    function on the VM context; a result is a numpy view of IREE's result buffer that keeps the
    buffer alive (`_Mapped`): each call's results are buffers of their own, which no later call
    reuses while a view holds them. A result that shares memory with an input (a parameter
    returned as it is) or with an earlier result of the call (one value returned twice) is
    copied, so that no result aliases the caller's arguments, a trusted weight or another
    result (docs/decisions.md)."""

    def __init__(
        self, function: Any, abi: EntryABI, messages: Sequence[str], device: Any, context: Any
    ) -> None:
        self.device = device  # the runtime's HAL device: trusted inputs are copied to it once
        self.abi = abi
        self.messages = list(messages)
        self._function = function  # a VmFunction of `context`
        self._context = context  # the VmContext
        self._trusted: dict[int, tuple[Any, Any, tuple[Any, ...], tuple[int, int]]] = {}
        self._types: dict[Any, int] = {}
        self._rooms = _Rooms()  # for the inputs IREE cannot take as they are

    def trust(self, values: Mapping[str, Any]) -> None:
        """Arguments checked once for all, as `NativeFunction.trust` says (a `LoadedModule`'s
        read-only bindings): a call given the same array object, with the same memory, shape and
        strides, reuses its check and its input, copied to the device once."""
        from iree import runtime

        for index, array, dtype in trusted_arguments(self.abi, values):
            data = _input(array, dtype)
            view = self.device.allocator.allocate_buffer_copy(
                memory_type=int(runtime.MemoryType.DEVICE_LOCAL),
                allowed_usage=int(runtime.BufferUsage.DEFAULT),
                device=self.device,
                buffer=data,
                element_type=self._type(data.dtype),
            )
            span = (0, 0)
            if data.nbytes:
                span = _span(view.map().asarray((data.nbytes,), np.dtype(np.uint8)))
            self._trusted[index] = (array, view, array_signature(array), span)

    def _type(self, dtype: Any) -> int:
        found = self._types.get(dtype)
        if found is None:
            found = self._types[dtype] = _element_type(dtype)
        return found

    def _view(self, data: Any) -> Any:
        """A HAL buffer view of `data`'s memory (no copy: `data` is `_aligned`)."""
        from iree import runtime

        buffer = self.device.allocator.import_host_allocation(
            data, int(runtime.MemoryType.DEVICE_LOCAL), int(runtime.BufferUsage.DEFAULT)
        )
        return runtime.HalBufferView(buffer, data.shape, self._type(data.dtype))

    @property
    def name(self) -> str:
        return self.abi.path[-1]

    def __call__(self, *args: Any) -> Any:
        from iree import runtime

        abi = self.abi
        given = len(args)
        reused: dict[int, tuple[Any, Any, tuple[Any, ...], tuple[int, int]]] = {}
        for index, known in self._trusted.items():
            if index < given and args[index] is known[0] and known[2] == array_signature(known[0]):
                reused[index] = known
        _, held = bind_arguments(abi, args, reused)
        inputs = runtime.VmVariantList(len(held))
        spans: list[tuple[int, int]] = []  # memory no result may share
        kept: list[Any] = []  # the arrays imported, alive until the results are made: IREE's
        # buffer does not hold them (a copy of a misaligned input was freed during the call)
        used: list[Any] = []  # the rooms the copies are in, given back once the results are made
        buffers: list[tuple[Any, str]] = []
        for index, (param, value) in enumerate(zip(abi.params, held, strict=True)):
            found = reused.get(index)
            if found is not None:
                inputs.push_ref(found[1])
                spans.append(found[3])
                continue
            leaves = leaf_values(param.type, value)
            for (leaf, array), (_, given) in zip(
                leaves, leaf_values(param.type, args[index]), strict=True
            ):
                data = _aligned(_writable(_input(array, leaf.dtype), given), self._rooms, used)
                kept.append(data)
                inputs.push_ref(self._view(data))
                spans.append(_span(data))
                if isinstance(leaf, BufferType):
                    buffers.append((array, leaf.dtype))
        count = len(abi.results)
        outputs = runtime.VmVariantList(count + len(buffers) + 1)
        self._context.invoke(self._function, inputs, outputs)
        views = [outputs.get_as_object(i, runtime.HalBufferView) for i in range(len(outputs))]
        status = np.array(_mapped(views[-1], "i64")[1], copy=True)
        for (array, dtype), final in zip(buffers, views[count:-1], strict=True):
            np.copyto(array, _host(_mapped(final, dtype)[1], dtype))
        try:
            raise_status(status, self.messages)
            if not abi.results:
                return None
            values = [
                _result(view, type.dtype, spans)
                for view, type in zip(views[:count], abi.results, strict=True)
            ]
        finally:
            self._rooms.give(used)  # no result is in them: one that would be is a copy
        return assembled(abi.result, values)


def _mapped(view: Any, dtype: str) -> tuple[Any, Any]:
    """IREE's mapping of a result buffer view and the array of its memory (the array alone does
    not keep the mapping alive)."""
    storage = _STORAGE.get(dtype) or numpy_dtype(dtype)
    shape = tuple(int(d) for d in view.shape)
    if not view.byte_length:
        return None, np.empty(shape, storage)
    mapping = view.map()
    return mapping, mapping.asarray(shape, storage)


def _host(raw: Any, dtype: str) -> Any:
    """A result's contents as the interpreter holds its dtype (a new array for bf16 and i1)."""
    if dtype == "bf16":
        return from_storage(raw, dtype)
    if dtype == "i1":
        return raw.astype(np.bool_)
    return raw


def _result(view: Any, dtype: str, spans: list[tuple[int, int]]) -> Any:
    """A result the caller owns: a view of IREE's buffer kept alive by the array (`_Mapped`), or
    a copy when the memory is an input's or an earlier result's (see `IreeFunction`)."""
    mapping, raw = _mapped(view, dtype)
    if mapping is None or dtype in _STORAGE:
        return _host(raw, dtype)  # an array of its own (empty, or converted)
    span = _span(raw)
    if _overlaps(span, spans):
        return np.array(raw, copy=True)
    spans.append(span)
    return np.asarray(_Mapped(mapping, raw))
