"""docs/ and the README stand alone: every link leads to a file of the repository, and no page
cites the spec or design files that a clone does not have (docs/decisions.md states the rules
it relies on instead)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[4]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_leads_to_a_file_of_the_repository(page: Path) -> None:
    prose = re.sub(r"`[^`\n]*`", "", re.sub(r"```.*?```", "", page.read_text(), flags=re.S))
    for target in re.findall(r"\]\(([^)\s]+)\)", prose):
        if re.match(r"[a-z]+:", target):
            continue
        path = target.split("#")[0]
        if path:
            assert (page.parent / path).exists(), f"{page.name} links to {target}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_cites_files_a_clone_does_not_have(page: Path) -> None:
    text = page.read_text()
    for name in ("shared/", "DESIGN.md", "core_ir.md", "STYLE.md"):
        assert name not in text, f"{page.name} cites {name}"


def test_decisions_states_the_rules_it_relies_on() -> None:
    text = (ROOT / "docs" / "decisions.md").read_text()
    assert "## The rules relied on" in text
    for rule in ("§1", "§2", "§3"):
        assert f"({rule})" in text.split("## Representation")[0], rule
