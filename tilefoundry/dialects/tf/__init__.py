"""The `tf` dialect, one package: its ops (`ops.py`, with the `TF` dialect; `module.py`,
`mesh.py`), attributes and types (`types.py`, `dim_range.py`, `op_attr.py`, `dense.py`,
`metadata.py`, `target/`), memory effects (`effects.py`) and selection on `ModuleOp`
(`selection.py`). Import from the module that defines a name; this file re-exports nothing."""
