"""A plugin whose import fails (tests/filecheck/tools/output-targets.test): tf-opt reports it in
one line, naming the exception."""

raise ZeroDivisionError("division by zero")
