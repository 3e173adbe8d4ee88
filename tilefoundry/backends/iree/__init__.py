"""The IREE backend (the optional `[iree]` extra): emitted MLIR by value to an IREE module for
the host CPU (`llvm-cpu`), run by the IREE runtime; for speed (docs/decisions.md, "Backends")."""
