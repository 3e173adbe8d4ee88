"""The regular expressions of `expected-*-re`, matched in time linear in the text.

Python's `re` backtracks: `(a|aa)+b` against 48 `a`s takes longer than the universe has, 600
nested groups overflow its recursion, `a{99999999999}` its counters. A pattern here is parsed
into a Thompson NFA and run as a Pike VM (every state at once, each text position once), so a
match takes at most (text length) x (states) steps, whatever the pattern; and the pattern
itself is bounded, refused in one line (`invalid regex: ...`) past a bound:

- groups nest at most 100 deep (`MAX_NESTING`);
- a repetition count is at most 1000 (`MAX_COUNT`, as RE2's);
- the NFA has at most 2000 states once counted repetitions are expanded (`MAX_STATES`):
  `(a{1000}){1000}` is refused before anything is built.

The accepted subset is what FileCheck-style patterns use (POSIX ERE, as LLVM's regex that
MLIR's verifier uses, with Perl's class escapes): literals; `.`; classes `[a-z_]`, `[^0-9]`;
escapes `\\d \\D \\w \\W \\s \\S`, `\\n \\t`, and a backslash before any other non-alphanumeric
character for itself; groups `( )` and `(?: )`; `|`; `*`, `+`, `?`, `{n}`, `{n,}`, `{n,m}`,
each optionally lazy (`*?`: the same answer, a search only asks whether there is a match);
anchors `^` and `$`. Anything else (backreferences, lookaround, `\\b`, possessive `*+`, a
quantifier of a quantifier) is refused by name, never read as something else.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["MAX_COUNT", "MAX_NESTING", "MAX_STATES", "Regex", "RegexError", "compile_regex"]

MAX_NESTING = 100
MAX_COUNT = 1000
MAX_STATES = 2000


class RegexError(ValueError):
    """A pattern outside the accepted subset or past a bound; the message says which."""


@dataclass(frozen=True)
class _Class:
    """A set of characters: ranges, maybe negated."""

    ranges: tuple[tuple[str, str], ...]
    negated: bool = False

    def matches(self, char: str) -> bool:
        inside = any(lo <= char <= hi for lo, hi in self.ranges)
        return inside != self.negated


_DIGIT = (("0", "9"),)
_WORD = (("a", "z"), ("A", "Z"), ("0", "9"), ("_", "_"))
_SPACE = ((" ", " "), ("\t", "\r"))
_CLASS_ESCAPES = {
    "d": (_DIGIT, False),
    "D": (_DIGIT, True),
    "w": (_WORD, False),
    "W": (_WORD, True),
    "s": (_SPACE, False),
    "S": (_SPACE, True),
}
_CHAR_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "v": "\v"}
_ANY = _Class((("\n", "\n"),), negated=True)

# The NFA: a list of states, each [kind, argument, next, other].
_CHAR, _SPLIT, _BOL, _EOL, _MATCH = range(5)

# The parse tree: tuples, tagged by their first item.
_Node = tuple[object, ...]


def _shown(pattern: str) -> str:
    """The pattern quoted for a message, its first 40 characters when it is longer."""
    return (
        f"'{pattern}'" if len(pattern) <= 40 else f"'{pattern[:40]}...' ({len(pattern)} characters)"
    )


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.pos = 0
        self.depth = 0

    def fail(self, message: str) -> RegexError:
        return RegexError(f"invalid regex: {message} (at offset {self.pos} of {_shown(self.text)})")

    def peek(self) -> str:
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def alternation(self) -> _Node:
        branches = [self.sequence()]
        while self.peek() == "|":
            self.pos += 1
            branches.append(self.sequence())
        return ("alt", branches) if len(branches) > 1 else branches[0]

    def sequence(self) -> _Node:
        items: list[_Node] = []
        while self.peek() not in ("", "|", ")"):
            items.append(self.repeated(self.atom()))
        return ("cat", items)

    def repeated(self, atom: _Node) -> _Node:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.pos += 1
            low, high = {"*": (0, None), "+": (1, None), "?": (0, 1)}[char]
        elif char == "{" and self._is_count():
            low, high = self.count()
        else:
            return atom
        if self.peek() == "?":  # lazy: the same answer to "is there a match"
            self.pos += 1
        if self.peek() in ("*", "+", "?") or (self.peek() == "{" and self._is_count()):
            raise self.fail("a quantifier of a quantifier (possessive or nested repetition)")
        return ("rep", atom, low, high)

    def _is_count(self) -> bool:
        end = self.text.find("}", self.pos)
        body = self.text[self.pos + 1 : end] if end > 0 else ""
        low, _, high = body.partition(",")
        return bool(low) and low.isascii() and low.isdigit() and (not high or high.isdigit())

    def count(self) -> tuple[int, int | None]:
        end = self.text.index("}", self.pos)
        body = self.text[self.pos + 1 : end]
        low_text, comma, high_text = body.partition(",")
        for digits in (low_text, high_text):
            if len(digits) > len(str(MAX_COUNT)) or (digits and int(digits) > MAX_COUNT):
                raise self.fail(f"repetition count {digits} is more than {MAX_COUNT}")
        low = int(low_text)
        high = None if comma and not high_text else int(high_text) if comma else low
        if high is not None and high < low:
            raise self.fail(f"repetition {{{body}}} has its maximum below its minimum")
        self.pos = end + 1
        return low, high

    def atom(self) -> _Node:
        char = self.peek()
        if char == "(":
            return self.group()
        self.pos += 1
        if char == ".":
            return ("char", _ANY)
        if char == "^":
            return ("bol",)
        if char == "$":
            return ("eol",)
        if char == "[":
            return ("char", self.char_class())
        if char == "\\":
            return ("char", self.escape(in_class=False))
        if char in ("*", "+", "?"):
            self.pos -= 1
            raise self.fail(f"nothing to repeat before '{char}'")
        if char == "{":
            self.pos -= 1
            if self._is_count():
                raise self.fail("nothing to repeat before '{'")
            self.pos += 1
        return ("char", _Class(((char, char),)))

    def group(self) -> _Node:
        self.pos += 1
        if self.text.startswith("?", self.pos):
            if not self.text.startswith("?:", self.pos):
                kind = self.text[self.pos : self.pos + 2]
                raise self.fail(f"'({kind}' groups are not supported (only '(?:')")
            self.pos += 2
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise self.fail(f"groups nest deeper than {MAX_NESTING}")
        inner = self.alternation()
        if self.peek() != ")":
            raise self.fail("missing ')'")
        self.pos += 1
        self.depth -= 1
        return inner

    def escape(self, in_class: bool) -> _Class:
        char = self.peek()
        if not char:
            raise self.fail("a pattern cannot end with '\\'")
        self.pos += 1
        if char in _CLASS_ESCAPES:
            ranges, negated = _CLASS_ESCAPES[char]
            if negated and in_class:
                raise self.fail(f"'\\{char}' inside a class is not supported")
            return _Class(ranges, negated)
        if char in _CHAR_ESCAPES:
            literal = _CHAR_ESCAPES[char]
            return _Class(((literal, literal),))
        if char.isalnum():
            raise self.fail(f"'\\{char}' is not supported")
        return _Class(((char, char),))

    def char_class(self) -> _Class:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        ranges: list[tuple[str, str]] = []
        first = True
        while True:
            char = self.peek()
            if not char:
                raise self.fail("missing ']'")
            if char == "]" and not first:
                self.pos += 1
                return _Class(tuple(ranges), negated)
            first = False
            if char == "[" and self.text.startswith("[:", self.pos):
                raise self.fail("POSIX classes ('[:alpha:]') are not supported")
            low = self.class_char()
            if isinstance(low, _Class):  # `\d`, `\w`, `\s` inside a class
                ranges.extend(low.ranges)
                continue
            if self.peek() == "-" and self.text[self.pos + 1 : self.pos + 2] not in ("]", ""):
                self.pos += 1
                high = self.class_char()
                if isinstance(high, _Class) or high < low:
                    raise self.fail("a bad range in a class")
                ranges.append((low, high))
            else:
                ranges.append((low, low))

    def class_char(self) -> str | _Class:
        """One character of a class, or the class an escape such as `\\d` stands for."""
        char = self.peek()
        self.pos += 1
        if char != "\\":
            return char
        escaped = self.escape(in_class=True)
        if len(escaped.ranges) == 1 and escaped.ranges[0][0] == escaped.ranges[0][1]:
            return escaped.ranges[0][0]
        return escaped


class _Compiler:
    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.states: list[list[object]] = []

    def add(self, kind: int, argument: object = None) -> int:
        if len(self.states) >= MAX_STATES:
            raise RegexError(
                f"invalid regex: more than {MAX_STATES} states once repetitions are expanded "
                f"({_shown(self.pattern)})"
            )
        self.states.append([kind, argument, -1, -1])
        return len(self.states) - 1

    def size(self, node: _Node) -> int:
        """How many states `node` compiles to (checked before it is built)."""
        tag = node[0]
        if tag == "cat":
            return sum(self.size(n) for n in _nodes(node[1]))
        if tag == "alt":
            return sum(self.size(n) + 2 for n in _nodes(node[1]))
        if tag == "rep":
            inner, low, high = _node(node[1]), _int(node[2]), node[3]
            copies = low + (1 if high is None else _int(high) - low)
            return copies * (self.size(inner) + 2)
        return 1

    def emit(self, node: _Node, following: int) -> int:
        """The states of `node`, ending at `following`; its first state (built back to front,
        so each state knows its successor)."""
        tag = node[0]
        if tag == "char":
            state = self.add(_CHAR, node[1])
            self.states[state][2] = following
            return state
        if tag in ("bol", "eol"):
            state = self.add(_BOL if tag == "bol" else _EOL)
            self.states[state][2] = following
            return state
        if tag == "cat":
            start = following
            for item in reversed(_nodes(node[1])):
                start = self.emit(item, start)
            return start
        if tag == "alt":
            branches = [self.emit(n, following) for n in _nodes(node[1])]
            start = branches[-1]
            for branch in reversed(branches[:-1]):
                split = self.add(_SPLIT)
                self.states[split][2], self.states[split][3] = branch, start
                start = split
            return start
        assert tag == "rep"
        inner, low, high = _node(node[1]), _int(node[2]), node[3]
        start = following
        if high is None:
            loop = self.add(_SPLIT)
            body = self.emit(inner, loop)
            self.states[loop][2], self.states[loop][3] = body, following
            start = loop
        else:
            end = following
            for _ in range(_int(high) - low):  # each optional copy may stop the repetition
                split = self.add(_SPLIT)
                body = self.emit(inner, start)
                self.states[split][2], self.states[split][3] = body, end
                start = split
        for _ in range(low):
            start = self.emit(inner, start)
        return start


def _nodes(value: object) -> list[_Node]:
    assert isinstance(value, list)
    return value


def _node(value: object) -> _Node:
    assert isinstance(value, tuple)
    return value


def _int(value: object) -> int:
    assert isinstance(value, int)
    return value


class Regex:
    """A compiled pattern; `search(text)` is whether it matches anywhere in `text`."""

    def __init__(self, pattern: str, states: list[list[object]], start: int) -> None:
        self.pattern = pattern
        self._states = states
        self._start = start

    def search(self, text: str) -> bool:
        states = self._states
        current: list[int] = []
        for position in range(len(text) + 1):
            current = self._closure([*current, self._start], text, position)
            if any(states[s][0] == _MATCH for s in current):
                return True
            if position == len(text):
                return False
            char = text[position]
            current = [
                _int(states[s][2])
                for s in current
                if states[s][0] == _CHAR and _class(states[s][1]).matches(char)
            ]
        return False

    def _closure(self, seeds: list[int], text: str, position: int) -> list[int]:
        """The states reachable from `seeds` without reading a character, each once."""
        states = self._states
        seen: set[int] = set()
        found: list[int] = []
        stack = list(reversed(seeds))
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind, _, following, other = states[state]
            if kind == _SPLIT:
                stack.append(_int(other))
                stack.append(_int(following))
            elif kind == _BOL:
                if position == 0:
                    stack.append(_int(following))
            elif kind == _EOL:
                if position == len(text):
                    stack.append(_int(following))
            else:
                found.append(state)
        return found


def _class(value: object) -> _Class:
    assert isinstance(value, _Class)
    return value


def escape(text: str) -> str:
    """`text` as a pattern that matches it literally."""
    return "".join(c if c.isalnum() or c == "_" else "\\" + c for c in text)


def compile_regex(pattern: str) -> Regex:
    """The pattern, parsed and bounded (see the module docstring); `RegexError` says why not."""
    parser = _Parser(pattern)
    tree = parser.alternation()
    if parser.pos != len(pattern):
        raise parser.fail("unbalanced ')'")
    compiler = _Compiler(pattern)
    if compiler.size(tree) + 1 > MAX_STATES:
        raise RegexError(
            f"invalid regex: more than {MAX_STATES} states once repetitions are expanded "
            f"({_shown(pattern)})"
        )
    match = compiler.add(_MATCH)
    start = compiler.emit(tree, match)
    return Regex(pattern, compiler.states, start)
