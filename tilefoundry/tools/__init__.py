"""The command-line tools, by what each folder holds: `drivers/` (tf-opt, tf-run, tf-tree),
`output/` (where the tools write and how diagnostics read), `generators/` (the generated dialect
files, docs and stubs), `server/` (the resident server lit uses)."""
