"""The native backend: upstream MLIR 19 and LLVM 19 to a shared library, called through ctypes."""
