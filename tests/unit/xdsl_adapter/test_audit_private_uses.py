"""No private xDSL member is used in `tilefoundry/` outside the adapter package, and the
adapter's own count is stated here: growing it is a visible change."""

from __future__ import annotations

from typing import Any

import pytest

from tilefoundry.xdsl_adapter.audit import find_in_package, find_in_source, is_in_adapter

ADAPTER_USES = 22
"""Private xDSL uses in `tilefoundry/xdsl_adapter/` (each with its reason in the code)."""


def uses_in(snippet: str) -> list[str]:
    namespace: dict[str, Any] = {"__name__": "snippet"}
    exec(compile(snippet, "<snippet>", "exec"), namespace)
    return [f"{use.how} {use.name}" for use in find_in_source(snippet, namespace)]


def test_no_private_xdsl_use_outside_the_adapter() -> None:
    uses = find_in_package()
    outside = [str(use) for use in uses if not is_in_adapter(use)]
    assert outside == []
    assert sum(map(is_in_adapter, uses)) == ADAPTER_USES


FOUND = {
    "a private attribute of an xDSL object": (
        "from xdsl.printer import Printer\n"
        "def names(printer: Printer) -> object:\n"
        "    return printer._ssa_values\n",
        ["accesses _ssa_values"],
    ),
    "a private name read by getattr": (
        "def peek(parser: object) -> object:\n    return getattr(parser, '_current_token')\n",
        ["accesses _current_token"],
    ),
    "a private name imported from xDSL": (
        "from xdsl.parser.generic_parser import _AnyInvT\n",
        ["imports _AnyInvT"],
    ),
    "an override of a private method of an xDSL base": (
        "from xdsl.parser import Parser\n"
        "class P(Parser):\n"
        "    def _parse_location(self):\n"
        "        return super()._parse_location()\n",
        ["overrides _parse_location", "uses inherited _parse_location"],
    ),
    "an inherited private method called on self, through a class of ours": (
        "from xdsl.parser import Parser\n"
        "class Base(Parser):\n"
        "    pass\n"
        "class P(Base):\n"
        "    def skip(self, end: int) -> None:\n"
        "        self._resume_from(end)\n",
        ["uses inherited _resume_from"],
    ),
    "a private class attribute of an xDSL base overridden": (
        "import re\n"
        "from xdsl.utils.mlir_lexer import MLIRLexer\n"
        "class L(MLIRLexer):\n"
        "    _unescaped_characters_regex = re.compile('x')\n",
        ["overrides _unescaped_characters_regex"],
    ),
}


@pytest.mark.parametrize("snippet, expected", FOUND.values(), ids=FOUND.keys())
def test_the_count_finds_each_kind_of_private_use(snippet: str, expected: list[str]) -> None:
    assert uses_in(snippet) == expected


NOT_FOUND = {
    "a private attribute of our own class": (
        "class Var:\n"
        "    def __init__(self) -> None:\n"
        "        self._stamp = 1\n"
        "def stamp(var: Var) -> int:\n"
        "    return var._stamp\n"
    ),
    "a private method of our own on an xDSL subclass": (
        "from xdsl.parser import Parser\n"
        "class P(Parser):\n"
        "    def _location_here(self) -> None:\n"
        "        self._location_here()\n"
    ),
    "the public API": (
        "from xdsl.parser import Parser\n"
        "class P(Parser):\n"
        "    def at(self) -> int:\n"
        "        return self.pos + len(self.lexer.input.content)\n"
    ),
    "a private name of another library": "import os\ndef leave() -> None:\n    os._exit\n",
}


@pytest.mark.parametrize("snippet", NOT_FOUND.values(), ids=NOT_FOUND.keys())
def test_the_count_leaves_what_is_not_xdsl_private(snippet: str) -> None:
    assert uses_in(snippet) == []
