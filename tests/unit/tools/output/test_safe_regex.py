"""`tools/output/safe_regex.py`: the regexes of `expected-*-re`, bounded and matched in linear time;
the same answers as Python's `re` on the subset they share (seeded), refusals in one line."""

from __future__ import annotations

import random
import re

import pytest

from tilefoundry.tools.output.safe_regex import RegexError, compile_regex, escape

ATOMS = ["a", "b", ".", "[ab]", "[^a]", "\\d", "[\\d_]", "(a|b)", "(?:ab)", "x", "\\.", "(a|aa)"]
QUANTIFIERS = ["", "*", "+", "?", "{2}", "{1,3}", "{0,}", "*?", "+?"]


def test_the_same_answers_as_re_on_the_shared_subset() -> None:
    rng = random.Random(7)
    compared = 0
    for _ in range(2000):
        pattern = "".join(
            rng.choice(ATOMS) + rng.choice(QUANTIFIERS) for _ in range(rng.randint(1, 4))
        )
        pattern = (
            ("^" if rng.random() < 0.2 else "") + pattern + ("$" if rng.random() < 0.2 else "")
        )
        if rng.random() < 0.2:
            pattern = f"({pattern})|b{rng.choice(QUANTIFIERS)}"
        text = "".join(rng.choice("abx1._") for _ in range(rng.randint(0, 10)))
        assert compile_regex(pattern).search(text) == (re.search(pattern, text) is not None), (
            pattern,
            text,
        )
        compared += 1
    assert compared == 2000


def test_literal_text_is_escaped() -> None:
    text = 'a.b (c) [d] {e} $f^ | * + ? \\ "g"'
    assert compile_regex(escape(text)).search(f"<{text}>")
    assert not compile_regex(escape("a.b")).search("axb")


def test_backtracking_patterns_are_answered() -> None:
    assert not compile_regex("(a|aa)+b").search("a" * 48)
    assert compile_regex("(a|aa)+b").search("a" * 48 + "b")
    assert not compile_regex("(a*)*b").search("a" * 200)
    assert compile_regex("(x+x+)+y").search("x" * 100 + "y")


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("(" * 600 + "a" + ")" * 600, "groups nest deeper than 100"),
        ("a{99999999999}", "repetition count 99999999999 is more than 1000"),
        ("a{1001}", "repetition count 1001 is more than 1000"),
        ("(a{1000}){1000}", "more than 2000 states once repetitions are expanded"),
        ("a{3,2}", "has its maximum below its minimum"),
        ("a**", "a quantifier of a quantifier"),
        ("a*+", "a quantifier of a quantifier"),
        ("a{2}{3}", "a quantifier of a quantifier"),
        ("(a)\\1", "'\\1' is not supported"),
        ("(?=a)", "'(?=' groups are not supported"),
        ("(?<n>a)", "'(?<' groups are not supported"),
        ("\\bword", "'\\b' is not supported"),
        ("[[:alpha:]]", "POSIX classes"),
        ("[a", "missing ']'"),
        ("(a", "missing ')'"),
        ("a)", "unbalanced ')'"),
        ("*a", "nothing to repeat before '*'"),
        ("{2}", "nothing to repeat before '{'"),
        ("[z-a]", "a bad range in a class"),
        ("a\\", "a pattern cannot end with '\\'"),
    ],
)
def test_refused_in_one_line(pattern: str, message: str) -> None:
    with pytest.raises(RegexError) as caught:
        compile_regex(pattern)
    text = str(caught.value)
    assert text.startswith("invalid regex: ") and message in text, text
    assert "\n" not in text and len(text) < 200
