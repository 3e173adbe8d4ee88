"""The limit of an xDSL-hosted IR: the cost of creating the xDSL objects of a program alone.

For each input (by default `generate.py`'s `distinct` and `chain`), in one process: tf-opt's
parse, verify and print (`TFParser`, `verify_ir`, `TFPrinter`, each timed alone with the
collector paused as tf-opt has it), and the creation of the same objects from nothing but
their parts: every distinct attribute and type built anew through its xDSL constructor (once
per distinct object, as a parser that remembers texts builds it), every op through
`Operation.create` with its operands, result types, properties, attributes, regions and
blocks, and the result names. No text is read, nothing is verified: what is left is what
creating the objects costs, the floor of any front end that builds xDSL's IR. The report gives
the µs per op of each and tf-opt's ratio to that floor. CPU time (`time.process_time`), the
least of `--repeat` rounds (the machine may be shared).

Usage: `.venv/bin/python benchmarks/object_limit.py [--functions 1600] [--calls 20000]
[--repeat 3] [FILE ...]`.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr
from xdsl.ir import Attribute, Block, Data, Operation, ParametrizedAttribute, Region, SSAValue

sys.path.insert(0, str(Path(__file__).parent))
from generate import chain_module, distinct_module  # noqa: E402


class Rebuilder:
    """Builds a module's objects anew from their parts (see the module docstring)."""

    def __init__(self) -> None:
        self.attributes: dict[int, Attribute] = {}
        self.values: dict[SSAValue, SSAValue] = {}

    def attribute(self, attr: Attribute) -> Attribute:
        known = self.attributes.get(id(attr))
        if known is not None:
            return known
        new: Attribute
        if isinstance(attr, ParametrizedAttribute):
            new = type(attr).new([self.attribute(p) for p in attr.parameters])
        elif isinstance(attr, ArrayAttr):
            new = ArrayAttr(tuple(self.attribute(a) for a in attr.data))
        elif isinstance(attr, DictionaryAttr):
            new = DictionaryAttr({k: self.attribute(v) for k, v in attr.data.items()})
        elif isinstance(attr, Data):
            new = type(attr).new(attr.data)
        else:  # pragma: no cover - every attribute is one of the above
            raise TypeError(type(attr))
        self.attributes[id(attr)] = new
        return new

    def operation(self, op: Operation) -> Operation:
        attribute = self.attribute
        regions = [self.region(region) for region in op.regions]
        new = type(op).create(
            operands=[self.values[v] for v in op.operands],
            result_types=[attribute(r.type) for r in op.results],
            properties={k: attribute(v) for k, v in op.properties.items()},
            attributes={k: attribute(v) for k, v in op.attributes.items()},
            regions=regions,
        )
        new.location = attribute(op.location)
        for old, result in zip(op.results, new.results, strict=True):
            result.name_hint = old.name_hint
            self.values[old] = result
        return new

    def region(self, region: Region) -> Region:
        blocks = []
        for block in region.blocks:
            new = Block(arg_types=[self.attribute(a.type) for a in block.args])
            for old, arg in zip(block.args, new.args, strict=True):
                arg.name_hint = old.name_hint
                self.values[old] = arg
            for op in block.ops:
                new.add_op(self.operation(op))
            blocks.append(new)
        return Region(blocks)


def timed(run: Callable[[], Any]) -> tuple[float, Any]:
    """The CPU time of one run (the collector paused, as tf-opt has it) and its result."""
    from tilefoundry.ir.allocation import collection_paused

    started = time.process_time()
    with collection_paused():
        result = run()
    return time.process_time() - started, result


def measure(name: str, text: str, repeat: int) -> dict[str, Any]:
    """tf-opt's stages and the creation of the same objects, on one input: each round parses
    anew (a module verified once, as tf-opt verifies it), the least of each kept."""
    from tilefoundry.context.context import make_context
    from tilefoundry.ir.text.parser import TFParser
    from tilefoundry.ir.text.printer import TFPrinter
    from tilefoundry.ir.verify.verifier import verify_ir

    best = dict.fromkeys(("parse", "verify", "print", "create"), float("inf"))
    ops = 0
    for _ in range(repeat):
        took = {}
        took["parse"], module = timed(lambda: TFParser(make_context(), text, name).parse_module())
        took["verify"], _ = timed(lambda m=module: verify_ir(m))
        took["print"], _ = timed(lambda m=module: TFPrinter(stream=io.StringIO()).print_op(m))
        took["create"], copy = timed(lambda m=module: Rebuilder().operation(m))
        ops = sum(1 for _ in module.walk())
        assert ops == sum(1 for _ in copy.walk())
        best = {k: min(v, took[k]) for k, v in best.items()}
    return {"name": name, "ops": ops, **best}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path, help="inputs (default: generated)")
    parser.add_argument("--functions", type=int, default=1600, help="functions of `distinct`")
    parser.add_argument("--calls", type=int, default=20000, help="calls of `chain`")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the least is kept")
    args = parser.parse_args()
    inputs = {p.name: p.read_text(encoding="utf-8") for p in args.files} or {
        "distinct": distinct_module(args.functions),
        "chain": chain_module(args.calls),
    }
    print("| input | ops | create µs/op | parse µs/op | verify µs/op | print µs/op |", end="")
    print(" parse / create | parse+verify+print / create |")
    print("|---|---|---|---|---|---|---|---|")
    for name, text in inputs.items():
        row = measure(name, text, args.repeat)
        per = {k: 1e6 * row[k] / row["ops"] for k in ("create", "parse", "verify", "print")}
        total = row["parse"] + row["verify"] + row["print"]
        print(
            f"| {name} | {row['ops']:,} | {per['create']:.0f} | {per['parse']:.0f} | "
            f"{per['verify']:.0f} | {per['print']:.0f} | {row['parse'] / row['create']:.1f} | "
            f"{total / row['create']:.1f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
