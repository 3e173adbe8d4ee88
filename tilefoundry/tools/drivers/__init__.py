"""tf-opt, tf-run and tf-tree: their command lines and what they share (input, plugins,
values, timing)."""
