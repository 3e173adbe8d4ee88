"""The native backend's schedules: a transform-dialect library that `mlir-opt-19` applies
(`transform-preload-library`, `transform-interpreter`) before bufferization.

The emitter tags the ops a schedule is for (`linalg.generic {..., tf_schedule = "matmul<B>"}`,
B the number of batch dims: `codegen/builder/composite.py`); `schedule_library()` is the text of
a `__transform_main` that, for each tag:

- tiles the op for the caches (`CACHE_TILE`: rows, columns, contraction), then for the
  registers (`REGISTER_TILE`), batch dims by 1;
- peels the register loops of rows and columns, so every full tile has static sizes whatever
  the shapes (a dynamic dim, or a static one the tile does not divide), and the rest is the
  remainder loop;
- vectorizes every tile, a remainder tile with masks (`vector_sizes`), and lowers the
  contraction to outer products (FMAs), the accumulator kept in registers across the
  contraction loop (`hoist_loop_invariant_subsets`).

The contraction loop stays in increasing order, one step at a time: integers give the same bits
in any order, a float product is within docs/ir.md's BLAS bound (`2 K eps Σ|a||b|`, an FMA
rounds once where a multiply and an add round twice).
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

__all__ = ["CACHE_TILE", "MAX_BATCH", "REGISTER_TILE", "schedule_library", "schedule_path"]

CACHE_TILE = (64, 256, 128)
"""Rows, columns and contraction steps of a cache tile."""

REGISTER_TILE = (8, 32, 1)
"""Rows, columns and contraction steps of a register tile (a vector of accumulators)."""

MAX_BATCH = 6
"""Schedules exist for matmuls of up to this many batch dims (a larger one keeps its loops)."""


def _matmul_sequence(batch: int) -> str:
    """Tile (caches, registers), peel the register loops of rows and columns (so each full tile
    is static), vectorize every static tile; a tile that stays dynamic keeps its loops."""
    ones = [1] * batch
    zeros = [0] * batch
    cache_sizes = ", ".join(map(str, [*ones, *CACHE_TILE]))
    register_sizes = ", ".join(map(str, [*zeros, *REGISTER_TILE]))
    loops = batch + 3
    handles = ", ".join(["!transform.any_op"] * (loops + 1))
    register_handles = ", ".join(["!transform.any_op"] * 4)
    tag = f'tf_schedule = "matmul{batch}"'
    match = (
        f'transform.structured.match ops{{["linalg.generic"]}} attributes{{{tag}}} in %root\n'
        "      : (!transform.any_op) -> !transform.any_op"
    )
    return f"""
  transform.named_sequence @matmul{batch}(%root: !transform.any_op {{transform.readonly}}) {{
    %mm = {match}
    %c, %cl:{loops} = transform.structured.tile_using_for %mm tile_sizes [{cache_sizes}]
      : (!transform.any_op) -> ({handles})
    %r, %rl:3 = transform.structured.tile_using_for %c tile_sizes [{register_sizes}]
      : (!transform.any_op) -> ({register_handles})
    transform.include @peel failures(propagate) (%rl#1) : (!transform.any_op) -> ()
    transform.include @peel failures(propagate) (%rl#0) : (!transform.any_op) -> ()
    transform.yield
  }}
  transform.named_sequence @vectorize_matmul{batch}(%root: !transform.any_op {{transform.readonly}}) {{
    %tiles = {match}
    transform.foreach %tiles : !transform.any_op {{
    ^bb0(%tile: !transform.any_op):
      transform.sequence %tile : !transform.any_op failures(suppress) {{
      ^bb1(%t: !transform.any_op):
        transform.structured.vectorize %t : !transform.any_op
      }}
    }}
    transform.yield
  }}"""


_PEEL = """
  transform.named_sequence @peel(%loops: !transform.any_op {transform.readonly}) {
    transform.foreach %loops : !transform.any_op {
    ^bb0(%loop: !transform.any_op):
      transform.sequence %loop : !transform.any_op failures(suppress) {
      ^bb1(%l: !transform.any_op):
        %for = transform.cast %l : !transform.any_op to !transform.op<"scf.for">
        %main, %rest = transform.loop.peel %for
          : (!transform.op<"scf.for">) -> (!transform.any_op, !transform.any_op)
      }
    }
    transform.yield
  }"""


@cache
def schedule_library(fused: bool = True) -> str:
    """The transform library's text (see the module docstring); `fused`: a float matmul's
    multiply and add are one FMA (rounded once), else each rounded, as scalar loops do (the
    vectors then hold the scalar loops' bits: `UNFUSED_PIPELINE`)."""
    contract = (
        """    transform.apply_patterns to %funcs {
      transform.apply_patterns.vector.reduction_to_contract
    } : !transform.any_op
"""
        if fused
        else ""
    )
    sequences = _PEEL + "".join(_matmul_sequence(b) for b in range(MAX_BATCH + 1))
    tile, vectorize = (
        "\n".join(
            f"    transform.include @{name}{b} failures(propagate) (%root) "
            ": (!transform.any_op) -> ()"
            for b in range(MAX_BATCH + 1)
        )
        for name in ("matmul", "vectorize_matmul")
    )
    return f"""module attributes {{transform.with_named_sequence}} {{{sequences}
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    %funcs = transform.structured.match ops{{["func.func"]}} in %root
      : (!transform.any_op) -> !transform.any_op
{tile}
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.canonicalization
    }} : !transform.any_op
{vectorize}
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.transfer_permutation_patterns
    }} : !transform.any_op
{contract}    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.canonicalization
      transform.apply_patterns.tensor.fold_tensor_subset_ops_into_vector_transfers
    }} : !transform.any_op
    transform.apply_cse to %funcs : !transform.any_op
    %loops = transform.structured.match ops{{["scf.for"]}} in %root
      : (!transform.any_op) -> !transform.any_op
    transform.loop.hoist_loop_invariant_subsets %loops : !transform.any_op
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.canonicalization
    }} : !transform.any_op
    transform.yield
  }}
}}
"""


def schedule_path(directory: Path) -> Path:
    """The library written into `directory` under a name that holds its hash (so a pipeline
    that names it names its content)."""
    text = schedule_library()
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = directory / f"schedule-{digest}.mlir"
    if not path.exists():
        directory.mkdir(parents=True, exist_ok=True)
        temporary = path.with_suffix(".tmp")
        temporary.write_text(text)
        temporary.replace(path)
    return path
