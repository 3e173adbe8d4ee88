"""What TileFoundry's printers need of `xdsl.printer.Printer`'s inside, by name.

xDSL's printer keeps the name each SSA value printed with in a private map and numbers
values through a private counter; no public method reads, sets or advances them, and the
line break that keeps the printer's indentation is private too.
"""

from __future__ import annotations

from xdsl.ir import SSAValue
from xdsl.printer import Printer

__all__ = ["new_ssa_number", "pin_ssa_name", "print_new_line", "printed_ssa_name"]


def printed_ssa_name(printer: Printer, value: SSAValue) -> str | None:
    """The name `value` printed with so far in this printer (without `%`), or None."""
    return printer._ssa_values.get(value)  # private: no public lookup of a printed name


def pin_ssa_name(printer: Printer, value: SSAValue, name: str) -> None:
    """Make `value` print (and its uses print) as `%name` in this printer."""
    printer._ssa_values[value] = name  # private: no public way to give a value its name


def new_ssa_number(printer: Printer) -> str:
    """The next free number for an unnamed value (`0`, `1`, ...), taken."""
    return printer._get_new_valid_name_id()  # private: xDSL's numbering of unnamed values


def print_new_line(printer: Printer) -> None:
    """A line break at the printer's current indentation."""
    printer._print_new_line()  # private: the printer's own line break (indent, diagnostics)
