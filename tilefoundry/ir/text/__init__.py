"""The IR's text: the parser and printer (`asm.py`), lexer, literals, location aliases,
nesting limits, and the IRDL form (`irdl_form.py`, `irdl_printer.py`, `irdl_syntax.py`)."""
