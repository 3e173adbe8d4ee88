"""Where the tools write: diagnostics as mlir-opt prints them, `--verify-diagnostics` and its
linear-time regular expressions, reports."""
