"""`Target`: the hardware an execution domain runs on, and its IR form `#tf.target<"h100">`.

A target names a device (`"h100"`, `"mi300x"`, ... see `known_devices()`), whose architecture
and limits come from its device document, or a bare backend kind (`"cuda"`, `"rocm"`,
`"cpu"`), which has no architecture. Any other name is refused, listing the known ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import StringAttr
from xdsl.irdl import irdl_attr_definition
from xdsl.printer import Printer

from tilefoundry.builtin.target.devices import BACKENDS, DeviceSpec, device_named, known_devices
from tilefoundry.support.arguments import shown
from tilefoundry.support.diagnostics import VerifyError
from tilefoundry.support.irdl_syntax import IRDLFormAttribute

__all__ = ["Target", "TargetAttr"]


@dataclass(frozen=True)
class Target:
    """A device (`Target("h100")`, architecture derived) or a backend kind (`Target("cuda")`)."""

    name: str

    def __init__(self, name: str) -> None:
        if isinstance(name, Target):
            name = name.name
        if not isinstance(name, str):
            raise TypeError(f"Target takes a device or backend name, got {shown(name)}")
        spec = device_named(name)
        canonical = spec.name if spec is not None else name.lower()
        if spec is None and canonical not in BACKENDS:
            raise ValueError(
                f"unknown target '{name}'; known devices: {', '.join(known_devices())}; "
                f"backend kinds: {', '.join(BACKENDS)}"
            )
        object.__setattr__(self, "name", canonical)

    @property
    def device(self) -> DeviceSpec | None:
        """The device document; None for a bare backend kind."""
        return device_named(self.name)

    @property
    def arch(self) -> str | None:
        """The architecture (`sm_90a`, `gfx942`, ...), derived from the device; None for a
        bare backend kind."""
        spec = self.device
        return None if spec is None else spec.arch

    @property
    def backend(self) -> str:
        spec = self.device
        return self.name if spec is None else spec.backend

    def __str__(self) -> str:
        return self.name


@irdl_attr_definition
class TargetAttr(IRDLFormAttribute):
    """The target a `tf.module` declares.

    ```mlir
    tf.module @decoder target #tf.target<"h100"> { }
    ```
    """

    name = "tf.target"

    target_name: StringAttr

    def verify(self) -> None:
        try:
            Target(self.target_name.data)
        except ValueError as err:
            raise VerifyError(str(err)) from None

    @property
    def target(self) -> Target:
        return Target(self.target_name.data)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string_literal(self.target_name.data)
