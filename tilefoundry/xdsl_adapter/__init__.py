"""The one place TileFoundry touches private members of xDSL.

xDSL is used through its public API everywhere else in ``tilefoundry/``.
Where the public API does not serve (a missing hook, a plain xDSL bug, a
measured hot path), the private use lives here, in a module named by concern,
each use with a one-line reason.  ``tests/unit/test_xdsl_adapter.py`` counts
the private uses by AST and fails when one appears outside this package, so
the adapter's size is a visible number and every xDSL upgrade ports only it.

Modules by concern (other helpers add their own files here, e.g.
``fast_paths.py``):

- ``parser``: hooks into :class:`xdsl.parser.Parser` (locations, literals,
  SSA definitions, lexer position).
- ``printer``: hooks into :class:`xdsl.printer.Printer` (SSA names).
"""

from __future__ import annotations
