"""Text in and out, on the Python surface: `parse_module` and `print_module`.

```python
m = parse_module(open("model.mlir").read(), "model.mlir")
print(print_module(m, generic=True, debuginfo=True))
```

`parse_module` returns the root `Module`: the text's single top-level `tf.module`, or, for a
single bare function, an implicit module that holds it and whose entry it is. Any failure, a
parse error or a verifier failure, raises `TextError` with `file:line:col: error: message`.
The text itself is read and written on the IR (`tilefoundry.context.module_text`).
"""

from __future__ import annotations

from tilefoundry.api.module import Module
from tilefoundry.context.module_text import TextError, parse_root, print_op
from tilefoundry.support.arguments import refuse_type

__all__ = ["TextError", "parse_module", "print_module", "print_op"]


def parse_module(text: str, name: str = "<string>") -> Module:
    return Module.of(parse_root(text, name))


def print_module(module: Module, *, generic: bool = False, debuginfo: bool = False) -> str:
    """The module's text: custom form (or generic), with locations when `debuginfo`."""
    if not isinstance(module, Module):
        refuse_type("print_module module", "a Module", module)
    return print_op(module.module_op, generic=generic, debuginfo=debuginfo)
