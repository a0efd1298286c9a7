"""The words a keyword pattern's match must hold (bot/grading/wordgate.py): the grader skips the scan of a clause
holding none of them, so every match anywhere must hold one, or grades would change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bot.grading import compounds, evidence, polarity
from bot.grading.matcher import Reply
from bot.grading.text import _BARE_CONTRACTION, _bare_contraction
from bot.grading.wordgate import AnyAlternative, WordGate, alternatives, required, words

DATA = Path(__file__).parent / "data"
GATED = [
    polarity._NEGATION_KEYWORD,
    polarity._EXONERATION_KEYWORD,
    polarity._CONTEXT_KEYWORD,
    polarity._ALTERNATIVE_HINT,
    polarity._TENTATIVE,
    evidence._COMMIT,
]


def _clauses() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "replies.jsonl").read_text(encoding="utf-8").splitlines() if line]
    return [c.text for r in rows for c in Reply.parse(str(r["answer"])).clauses]


@pytest.mark.parametrize(
    ("pattern", "whole", "substrings"),
    [
        (r"\b(?:not|no|never|rul\w*)\b|n't\b", {"not", "no", "never", "t"}, {"rul"}),
        (r"\b(?:rather than|sort of|i think)\b", {"rather", "sort", "think"}, set()),
        (r"\bnot", set(), {"not"}),  # "nothing" matches: "not" need not stand whole
        (r"(?:^|,\s*)is (?:a|an)\b", {"is"}, set()),
        (r"x(?:ab|ac)\b", set(), {"xa"}),  # the parser moves "a" out of the branch; "xab" is no whole word
    ],
)
def test_the_words_every_match_holds(pattern: str, whole: set[str], substrings: set[str]) -> None:
    need = required(pattern)
    assert need is not None
    assert (set(need[0]), set(need[1])) == (whole, substrings)


@pytest.mark.parametrize("pattern", [r"(?i)\bnot\b", r"\w+ing\b", r"(?:not)?\s", r"(?:a|\d)b?", r"\bnot\w"])
def test_no_whole_word_is_claimed_where_none_is_required(pattern: str) -> None:
    """Case-insensitive patterns, optional items, and words a word character may run on from."""
    need = required(pattern)
    assert need is None or not need[0]


@pytest.mark.parametrize(
    "text",
    [
        "it's not the allocator",
        "nothing here is wrong, it's fine",
        "ruled it out: isn't the network",
        "i'd say — it's not a sync",  # a non-ASCII dash between words
        "naïve—not→fine",
        "not_a_word notx xnot",
        "we can't tell",
        "",
    ],
)
def test_a_gated_search_answers_as_the_pattern(text: str) -> None:
    for pattern in GATED:
        assert bool(WordGate(pattern).search(text, words(text))) == bool(pattern.search(text)), pattern.pattern


def test_the_polarity_keywords_are_gated_and_agree_on_every_clause() -> None:
    gates = [WordGate(p) for p in GATED]
    assert all(g.whole is not None for g in gates)  # a pattern edit that defeats the gate shows up here
    skipped = 0
    for text in _clauses():
        held = words(text)
        for gate in gates:
            plain = gate.pattern.search(text)
            assert bool(gate.search(text, held)) == bool(plain), (gate.pattern.pattern, text)
            if gate.whole is not None and held.isdisjoint(gate.whole):
                skipped += not any(s in text for s in gate.substrings)
    assert skipped > 0


def test_words_are_the_runs_of_word_characters() -> None:
    text = "it's the all_reduce (rank-3), not cpu/gpu!"
    assert words(text) == frozenset(w.encode() for w in re.findall(r"\w+", text))
    assert {b"straggler", b"drain"} <= words("straggler→drain")  # "→" is no word character
    assert b"caf" in words("café") and b"caf\xc3\xa9" not in words("café")  # a piece: never a whole ASCII word


@pytest.mark.parametrize("text", ["n c u", "the h b m bandwidth", "x y", "it's a b c", "s m throughput"])
def test_a_spelled_out_acronym_starts_with_a_letter_standing_alone(text: str) -> None:
    """fold() looks for a spelled-out acronym only in a text holding one of these one-letter words."""
    for m in compounds._SPELLED.finditer(text):
        assert m.group()[0].encode() in compounds.SPELLED_LETTERS & words(text)
    assert bool(compounds._SPELLED.search(text)) <= (not words(text).isdisjoint(compounds.SPELLED_LETTERS))


@pytest.mark.parametrize("text", ["It ISNT the loader", "we dont know", "Cant tell", "important wantnt", "isn't"])
def test_a_bare_contraction_is_one_of_the_gate_words(text: str) -> None:
    assert bool(_BARE_CONTRACTION.search(text)) <= _bare_contraction(text)
    assert not _bare_contraction("important client events")


@pytest.mark.parametrize(
    ("pattern", "pieces"),
    [
        (r"a|b(?:c|d)|e", ["a", "b(?:c|d)", "e"]),
        (r"[|]x|y", ["[|]x", "y"]),  # a bar in a class is a character
        (r"[]|]|z", ["[]|]", "z"]),  # so is one after a "]" that opens the class
        (r"\||q", [r"\|", "q"]),
        (r"(?i)a|b", [r"(?i)a|b"]),  # a flag for the whole pattern: not split
        (r"(a)\1|b", [r"(a)\1|b"]),  # a back reference: not split
    ],
)
def test_the_top_level_alternatives(pattern: str, pieces: list[str]) -> None:
    assert alternatives(pattern) == pieces


def test_alternatives_asked_one_by_one_answer_as_the_pattern_on_every_clause() -> None:
    texts = _clauses()
    for pattern in (polarity._ALTERNATIVE, polarity._NEGATION_BEFORE):
        split = AnyAlternative(pattern)
        assert len(split.gates) > 1
        for text in texts:
            for piece in (text, text[: len(text) // 2]):
                assert split.matches(piece) == bool(pattern.search(piece)), (pattern.pattern[:30], piece)


def test_a_negation_before_is_found_after_the_last_stop_or_not_at_all() -> None:
    """polarity._negation_before searches only after the last ".;,→" of its slice: no match starts before it."""
    cut_and_found = 0
    for text in _clauses():
        for end in range(0, len(text) + 1, 7):
            piece = text[max(0, end - polarity.LOOK) : end]
            cut = max(piece.rfind(ch) for ch in ".;,→")
            found = bool(polarity._NEGATION_BEFORE.search(piece))
            assert bool(polarity._NEGATION_BEFORE.search(piece, cut + 1)) == found, piece
            cut_and_found += cut >= 0 and found
    assert cut_and_found > 0
