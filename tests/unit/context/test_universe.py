"""The `xdsl.universe` entry point: stock xDSL tools see TileFoundry's dialects and passes."""

from __future__ import annotations

from importlib.metadata import entry_points

from xdsl.universe import Universe

from tilefoundry.context.universe import TILEFOUNDRY_UNIVERSE


def test_the_entry_point_names_the_tilefoundry_universe() -> None:
    (entry,) = [e for e in entry_points(group="xdsl.universe") if e.name == "tilefoundry"]
    assert entry.load() is TILEFOUNDRY_UNIVERSE


def test_the_multiverse_holds_the_dialects_and_passes() -> None:
    multiverse = Universe.get_multiverse()
    for name in ("tf", "hir", "tir"):
        assert multiverse.all_dialects[name]().name == name
    assert multiverse.all_passes["tf-fold-constants"]().name == "tf-fold-constants"
