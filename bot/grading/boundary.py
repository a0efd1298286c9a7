"""One word boundary before many alternatives: `\\bA|\\bB|\\bC` → `\\b(?:A|B|C)`, the same matches, found faster.

sre tries an alternation's every alternative at every position of the text; when each starts with `\\b`, each tests
the boundary on its own, so a long keyword list costs (alternatives × characters) even where no word starts. Hoisted
out of a run of alternatives, the boundary is tested once per position, and the alternatives (which start with a
letter) are tried only where a word starts, by sre's one-character check. Alternatives keep their order and every
match its span: the rewrite is exact. Applied to every alternation, at any depth of groups.
"""

from __future__ import annotations

import re

_HEAD = re.compile(r"\((?:\?(?:P<\w+>|[:=!>]|<[=!]))?")  # a group's opening: "(", "(?:", "(?=", "(?<!", "(?P<n>"
_UNSURE = re.compile(r"\(\?[^:=!<>P]|\(\?P[=>]|\\\d")  # inline flags, comments, conditionals, back references
_BOUNDARY = "\\b"


def compile_hoisted(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)`, with the word boundaries of its alternatives hoisted."""
    return re.compile(hoisted(pattern), flags)


def hoisted(pattern: str) -> str:
    """The pattern with each run of alternatives that start with `\\b` rewritten to one `\\b(?:…)`; a pattern with a
    construct this does not read (inline flags, back references) is left as it is."""
    if _UNSURE.search(pattern):
        return pattern
    text, end = _alternation(pattern, 0)
    return text if end == len(pattern) else pattern


def _alternation(pattern: str, i: int) -> tuple[str, int]:
    """The alternation from pattern[i] to the ")" that closes its group (or the end), rewritten; and where it ends."""
    branches: list[str] = []
    piece: list[str] = []
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            piece.append(pattern[i : i + 2])
            i += 2
        elif ch == "[":
            end = class_end(pattern, i)
            piece.append(pattern[i : end + 1])
            i = end + 1
        elif ch == "(":
            head = _HEAD.match(pattern, i)
            assert head is not None  # _UNSURE turned away every other opening
            inner, close = _alternation(pattern, head.end())
            piece.append(head.group() + inner + ")")
            i = close + 1
        elif ch == ")":
            break
        elif ch == "|":
            branches.append("".join(piece))
            piece = []
            i += 1
        else:
            piece.append(ch)
            i += 1
    branches.append("".join(piece))
    return "|".join(_merged(branches)), i


def _merged(branches: list[str]) -> list[str]:
    """The branches, each run of two or more in a row that start with `\\b` made one."""
    out: list[str] = []
    run: list[str] = []
    for branch in branches:
        if branch.startswith(_BOUNDARY):
            run.append(branch[len(_BOUNDARY) :])
            continue
        out.extend(_joined(run))
        run = []
        out.append(branch)
    out.extend(_joined(run))
    return out


def _joined(run: list[str]) -> list[str]:
    if len(run) > 1:
        return [_BOUNDARY + "(?:" + "|".join(run) + ")"]
    return [_BOUNDARY + rest for rest in run]


def class_end(pattern: str, i: int) -> int:
    """Where the character class opened at pattern[i] closes ("[^]a|b]": a "]" first is a member)."""
    i += 1
    if pattern[i : i + 1] == "^":
        i += 1
    if pattern[i : i + 1] == "]":
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 2 if pattern[i] == "\\" else 1
    return i
