"""Compare two files of TileFoundry IR chunk by chunk (split on `// -----`): the same structure
(`structural_equal`) and the same metadata on every op and parameter. An attribute-free
`builtin.module` wrapper, as upstream mlir-opt adds, is looked through.

    same_ir.py A B [--structure-only]   exit 0 when equal, 1 with the first difference otherwise

`--structure-only` skips the metadata: without debug info, upstream mlir-opt renumbers SSA
values, so the binding names shown as SSA names do not survive it (the locations do).
"""

from __future__ import annotations

import sys

import custom_metadata  # noqa: F401 - registers the metadata class the inputs use
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from tilefoundry.builtin.metadata import location_to_metadata
from tilefoundry.context.context import make_context
from tilefoundry.ir.algebra.structural import structural_equal
from tilefoundry.ir.text.parser import TFParser


def roots(text: str, name: str) -> list[Operation]:
    top = TFParser(make_context(), text, name).parse_module()
    ops = list(top.ops)
    while len(ops) == 1 and isinstance(ops[0], ModuleOp) and not ops[0].attributes:
        ops = list(ops[0].ops)
    for op in ops:
        op.detach()
    return ops


def metadata(op: Operation) -> list[object]:
    found: list[object] = []
    for inner in op.walk():
        found.append((inner.name, location_to_metadata(inner.location)))
        for region in inner.regions:
            for block in region.blocks:
                found.extend(("arg", location_to_metadata(a.location)) for a in block.args)
    return found


def main() -> int:
    structure_only = "--structure-only" in sys.argv
    texts = []
    for path in sys.argv[1:3]:
        with open(path, encoding="utf-8") as stream:
            texts.append(stream.read().split("// -----"))
    if len(texts[0]) != len(texts[1]):
        print(f"{len(texts[0])} chunks vs {len(texts[1])} chunks")
        return 1
    for index, (a, b) in enumerate(zip(*texts, strict=True)):
        ra, rb = roots(a, sys.argv[1]), roots(b, sys.argv[2])
        if len(ra) != len(rb):
            print(f"chunk {index}: {len(ra)} top-level ops vs {len(rb)}")
            return 1
        for x, y in zip(ra, rb, strict=True):
            if not structural_equal(x, y):
                print(f"chunk {index}: '{x.name}' differs structurally:\n{x}\n---\n{y}")
                return 1
            if not structure_only and metadata(x) != metadata(y):
                print(f"chunk {index}: metadata differs:\n{metadata(x)}\n---\n{metadata(y)}")
                return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
