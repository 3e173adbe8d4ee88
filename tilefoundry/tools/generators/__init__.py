"""The generated files: `dialects/*.irdl.mlir`, `docs/dialects/`, `docs/ops.md` and
`ops/_builders.pyi`, each checked fresh by a test."""
