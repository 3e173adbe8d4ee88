"""`analyze`: the spec's Analyze from Python — FLOPs, bytes and the roofline time of every
function of a module tree (HIR and TIR: a lowered module is measured too), keyed by the paths
`select` resolves (for an HIR function, the path `function_selectors` gives).

```python
costs = analyze(decoder, dims={"seq": 512})
costs["layer0.block"].flops, costs["layer0.block"].self_flops, costs["layer0.block"].bound
print(costs.table())                                   # what tf-analyze prints
Path("roofline.svg").write_text(costs.roofline_svg())  # what tf-analyze{plot=...} draws
```

The sizes are checked as `tf-run --dim` checks them (a name that no function's signature has, a
size outside an envelope: `ValueError`). The module is left as it was: `analyze` records
nothing on it (the `tf-analyze` pass records each cost on its function, `tf.cost`, on the copy
`run_passes` makes). N cloned layers are N functions and report N measurements. See
`tilefoundry.transforms.tf_analyze` for what is counted and how the bound is computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from tilefoundry.api.module import Module
from tilefoundry.support.arguments import mapping_of, refuse_type, shown
from tilefoundry.support.diagnostics import PassError
from tilefoundry.transforms.cost_report import Row, cost_table, function_paths
from tilefoundry.transforms.roofline import roofline_svg
from tilefoundry.transforms.tf_analyze import Cost, check_dims, measure_tree, report_rows

__all__ = ["Analysis", "Cost", "analyze"]


class Analysis(dict[str, Cost]):
    """The cost of every function (HIR and TIR) by its path, and the report of every function
    instance that `tf-analyze` prints: `table()` and `roofline_svg()`."""

    def __init__(self, costs: Mapping[str, Cost], rows: Sequence[Row]) -> None:
        super().__init__(costs)
        self.rows = tuple(rows)

    def table(self) -> str:
        """The table `tf-analyze` prints, one row per function instance."""
        return cost_table(self.rows)

    def roofline_svg(self) -> str:
        """The roofline plot `tf-analyze{plot=...}` draws (ValueError when the functions
        resolve different devices, or there are none)."""
        devices = {row.device.name: row.device for row in self.rows}
        if len(devices) != 1:
            raise ValueError(
                "a roofline plot draws one device, but the functions resolve "
                + (", ".join(sorted(devices)) or "none")
            )
        return roofline_svg(self.rows, self.rows[0].device)


def analyze(module: Module, dims: Mapping[str, int] | None = None) -> Analysis:
    """The cost of every function of the tree (HIR and TIR), by its path; `module` is not
    changed."""
    if not isinstance(module, Module):
        refuse_type("analyze module", "a Module", module)
    sizes = {} if dims is None else mapping_of(dims, "analyze dims", "a mapping")
    for name, size in sizes.items():
        if not isinstance(size, int) or isinstance(size, bool):
            raise TypeError(
                f"dims maps DimVar names to int sizes, got {shown(name)}: {shown(size)}"
            )
    try:  # a wrong argument is a ValueError, as for any other call
        check_dims([module.module_op], sizes, "analyze")
    except PassError as err:
        raise ValueError(f"analyze {err.message}") from None
    costs = measure_tree(module.module_op, sizes, "analyze")
    by_path = {path: costs[function] for path, function in function_paths(module.module_op)}
    return Analysis(by_path, report_rows([module.module_op], [costs]))
