"""Backends: compiled code from emitted MLIR (docs/compile.md, "Backends")."""
