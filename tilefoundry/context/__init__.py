"""The xDSL context for TileFoundry IR (`context`: the dialects, loaded on first use, and
the lazy wiring of the op library and the patterns), the text of a `tf.module` tree on
the IR (`module_text`), and stock xdsl-opt's entry point (`universe`).
"""
