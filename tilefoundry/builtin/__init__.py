"""The tf dialect's builtin-like part, which types the IR core (as xDSL's parser sits on
`builtin`): `TensorType` / `BufferType` / `DimVar` (`types`), `#tf.target` /
`#tf.topology` and the device documents (`target/`), metadata as locations
(`metadata`). Import from the module that defines a name; this file re-exports nothing.
"""
