"""The emitter: TileFoundry TIR to upstream MLIR (docs/compile.md, "Emission")."""
