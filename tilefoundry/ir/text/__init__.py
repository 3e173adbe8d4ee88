"""The IR's text: the parser (`parser.py`, with its fast path), the printer (`printer.py`), the
scanner (`scanner.py`: the lexer, the bracket scanner, the fast path's patterns), literals,
location aliases, nesting limits, and the IRDL form (`irdl_form.py`, `irdl_printer.py`,
`irdl_syntax.py`)."""
