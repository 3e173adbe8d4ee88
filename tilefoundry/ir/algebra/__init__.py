"""The core IR's op-independent algebra: `Expr`/`Var` (`expr.py`), patterns, the op
registry, `FunctionLike` (`callable.py`), structural equality, op views."""
