"""The native backend's schedules: a transform-dialect library that `mlir-opt-19` applies
(`transform-preload-library`, `transform-interpreter`) before bufferization.

The emitter tags the ops a schedule is for (`linalg.generic {..., tf_schedule = "<tag>"}`);
`schedule_library()` is the text of a `__transform_main` that, for each tag:

- `matmul<B>` (B batch dims: `mlir_builder/composite.py`): tiles the op for the caches
  (`CACHE_TILE`: rows, columns, contraction), then for the registers (`REGISTER_TILE`), batch
  dims by 1; peels the register loops of rows and columns, so every full tile has static sizes
  whatever the shapes (the rest is the remainder loop, scalar); vectorizes every full tile and
  lowers the contraction to outer products (FMAs, or a multiply and an add when not `fused`),
  the accumulator kept in registers across the contraction loop
  (`hoist_loop_invariant_subsets`);
- `fold<rank>_<axis>` (`reductions.fold`): one kept dim becomes a vector of lanes
  (`FOLD_VECTOR`), the axis the innermost loop of size-1 steps; the unit dims dropped, what is
  left is elementwise and vectorized;
- `transpose<rank>` (`structured.transpose`): the last two dims in `TRANSPOSE_TILE` squares,
  transposed in registers.

The contraction loop stays in increasing order, one step at a time: integers give the same bits
in any order, a float product is within docs/ir.md's BLAS bound (`2 K eps Σ|a||b|`, an FMA
rounds once where a multiply and an add round twice). A fold walks its axis in order and a
transpose moves values: their bits are the interpreter's.
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
{_vectorize_each("    ", 0, "%t")}
    transform.yield
  }}"""


FOLD_VECTOR = (64, 16)
"""The lanes of a fold's vector: across the contiguous last dim (a fold along another axis),
across rows (a fold along the last axis: each lane reads a column)."""

MAX_FOLD_RANK = 4
"""Folds (`reductions.fold`) of rank 2 to this are vectorized (a larger one keeps its loops)."""


def _fold_sequence(rank: int, axis: int) -> str:
    """Tile the fold so that one kept dim is a vector of lanes and the axis is the innermost
    loop (size 1: each step combines one element per lane, in order); peel the lanes' loop;
    drop the unit dims (the reduction dim goes: what is left is elementwise); vectorize; the
    accumulator vector stays in registers across the axis' loop."""
    lanes_dim = rank - 1 if axis != rank - 1 else rank - 2
    lanes = FOLD_VECTOR[0] if axis != rank - 1 else FOLD_VECTOR[1]
    sizes = [lanes if d == lanes_dim else 1 for d in range(rank)]
    order = [d for d in range(rank) if d != axis] + [axis]
    return _tiled_sequence(
        f"fold{rank}_{axis}",
        rank,
        sizes,
        f"interchange = [{', '.join(map(str, order))}] ",
        peeled=[order.index(lanes_dim)],
        patterns=["linalg.fold_unit_extent_dims_via_slices", "canonicalization"],
    )


TRANSPOSE_TILE = 16
"""A transpose moves its last two dims in tiles of this many by this many (vectors)."""


def _transpose_sequence(rank: int) -> str:
    """Tile the last two dims, peel both loops (full tiles static), vectorize the full tiles:
    a tile is read as vectors along the input's contiguous dim and transposed in registers."""
    sizes = [1] * (rank - 2) + [TRANSPOSE_TILE, TRANSPOSE_TILE]
    return _tiled_sequence(
        f"transpose{rank}",
        rank,
        sizes,
        "",
        peeled=[rank - 1, rank - 2],
        patterns=["canonicalization"],
    )


def _tiled_sequence(
    name: str,
    rank: int,
    sizes: list[int],
    interchange: str,
    *,
    peeled: list[int],
    patterns: list[str],
) -> str:
    """The named sequence `name`: tile each `linalg.generic` marked `tf_schedule = name` by
    `sizes` (loops in the `interchange` order), peel the loops `peeled` (`@peel`), apply
    `patterns` to the outermost loop, and vectorize each tile that can be (the others keep
    their loops)."""
    handles = ", ".join(["!transform.any_op"] * (rank + 1))
    peels = "".join(
        f"\n      transform.include @peel failures(propagate) (%l#{loop}) : (!transform.any_op) -> ()"
        for loop in peeled
    )
    applied = "".join(f"\n        transform.apply_patterns.{pattern}" for pattern in patterns)
    return f"""
  transform.named_sequence @{name}(%root: !transform.any_op {{transform.readonly}}) {{
    %op = transform.structured.match ops{{["linalg.generic"]}} attributes{{tf_schedule = "{name}"}}
      in %root : (!transform.any_op) -> !transform.any_op
    transform.foreach %op : !transform.any_op {{
    ^bb0(%one: !transform.any_op):
      %t, %l:{rank} = transform.structured.tile_using_for %one tile_sizes [{", ".join(map(str, sizes))}]
        {interchange}: (!transform.any_op) -> ({handles}){peels}
      transform.apply_patterns to %l#0 {{{applied}
      }} : !transform.any_op
      %tiles = transform.structured.match ops{{["linalg.generic"]}} in %l#0
        : (!transform.any_op) -> !transform.any_op
{_vectorize_each("      ", 1, "%s")}
    }}
    transform.yield
  }}"""


def _vectorize_each(indent: str, block: int, name: str) -> str:
    """Vectorize each op of `%tiles` that can be (the others keep their loops): the foreach
    at `indent`, its blocks numbered from `block`, the op inside named `name`."""
    return f"""{indent}transform.foreach %tiles : !transform.any_op {{
{indent}^bb{block}(%tile: !transform.any_op):
{indent}  transform.sequence %tile : !transform.any_op failures(suppress) {{
{indent}  ^bb{block + 1}({name}: !transform.any_op):
{indent}    transform.structured.vectorize {name} : !transform.any_op
{indent}  }}
{indent}}}"""


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
    folds = [(r, a) for r in range(2, MAX_FOLD_RANK + 1) for a in range(r)]
    sequences = (
        _PEEL
        + "".join(_matmul_sequence(b) for b in range(MAX_BATCH + 1))
        + "".join(_fold_sequence(r, a) for r, a in folds)
        + "".join(_transpose_sequence(r) for r in range(2, 5))
    )
    tile, vectorize = (
        "\n".join(
            f"    transform.include @{name}{b} failures(propagate) (%root) "
            ": (!transform.any_op) -> ()"
            for b in range(MAX_BATCH + 1)
        )
        for name in ("matmul", "vectorize_matmul")
    )
    fold_calls = "\n".join(
        f"    transform.include @fold{r}_{a} failures(propagate) (%root) "
        ": (!transform.any_op) -> ()"
        for r, a in folds
    ) + "".join(
        f"\n    transform.include @transpose{r} failures(propagate) (%root) "
        ": (!transform.any_op) -> ()"
        for r in range(2, 5)
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
{fold_calls}
    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.transfer_permutation_patterns
    }} : !transform.any_op
{contract}    transform.apply_patterns to %funcs {{
      transform.apply_patterns.vector.cast_away_vector_leading_one_dim
      transform.apply_patterns.vector.lower_contraction lowering_strategy = "outerproduct"
      transform.apply_patterns.vector.transfer_permutation_patterns
      transform.apply_patterns.vector.lower_outerproduct
      transform.apply_patterns.vector.lower_transpose lowering_strategy = "shuffle_16x16"
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
