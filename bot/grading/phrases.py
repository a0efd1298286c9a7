"""Rubric rules and vocabulary terms compiled to stems: the phrases a reply is matched against."""

from __future__ import annotations

from dataclasses import dataclass

from .rubric import CONCEPT_REF
from .text import Token, clauses, clean
from .vocabulary import vocabulary

FUZZY_MIN_LEN = 5  # typo tolerance only for longer words: acronyms (AR, DL, PP, ITL) must match exactly
MULTI_GAP = 3  # the words of a multi-word concept term sit at most 2 stop words apart
_RULE_NEGATIONS = frozenset({"not", "no", "without", "never", "noth"})  # a rule that says it itself


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    tokens: tuple[str, ...]  # stems, and "@name" for a concept class
    weight: float  # 1 = names the thing; 0.5 = a symptom description
    exclude: tuple[str, ...] = ()  # the rule does not fire in a clause holding any of these
    ordered: bool = False  # the tokens must appear in the order written
    needs: frozenset[str] = frozenset()  # every token, for a quick check before locating
    negative: bool = False  # the rule itself says "no …" / "not …"


class PhraseSet(tuple[Phrase, ...]):
    """The rules of one rubric part."""

    __slots__ = ()


def words(text: str, memo: dict[str, tuple[Token, ...]]) -> tuple[Token, ...]:
    """The tokens of a rubric or vocabulary snippet (one clause's worth), memoised while the rule book is built."""
    cached = memo.get(text)
    if cached is None:
        cached = memo[text] = tuple(t for c in clauses(clean(text)) for t in c.tokens)
    return cached


def compile_phrases(phrases: list[str], weight: float, memo: dict[str, tuple[Token, ...]]) -> PhraseSet:
    """A rule is words and {concept} references, all to be found close together in one clause, in any order."""
    out = []
    for p in phrases:
        body, *excluded = p.split("!")  # "{slow} {rank} !{all}": not in a clause that says all/every
        ordered = body.startswith("^")  # "^{host} {waiting} {gpu}": in this order
        tokens = _rule_tokens(body.lstrip("^"), memo)
        exclude = tuple(t for x in excluded for t in _rule_tokens(x, memo))
        if tokens:
            negative = bool(_RULE_NEGATIONS & set(tokens))
            out.append(Phrase(p, tokens, weight, exclude, ordered, frozenset(tokens), negative))
    return PhraseSet(out)


def _rule_tokens(text: str, memo: dict[str, tuple[Token, ...]]) -> tuple[str, ...]:
    tokens: list[str] = []
    for k, piece in enumerate(CONCEPT_REF.split(text)):  # literal, name, literal, name, …
        if k % 2:
            tokens.append("@" + piece)
        elif piece.strip():
            tokens.extend(t.stem for t in words(piece, memo))
    return tuple(tokens)


@dataclass(frozen=True, slots=True)
class ConceptIndex:
    """Which concept classes a reply's words express: single-word terms by stem, longer terms by first stem."""

    single: dict[str, tuple[str, ...]]
    multi: dict[str, tuple[tuple[tuple[str, ...], str], ...]]
    words: dict[str, str]  # every term word as written (5+ letters) → its stem, for typo matching

    @classmethod
    def build(cls, memo: dict[str, tuple[Token, ...]]) -> ConceptIndex:
        vocab = vocabulary()
        single: dict[str, list[str]] = {}
        multi: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        written: dict[str, str] = {}
        for name in vocab.concepts:
            key = "@" + name
            for term in vocab.terms(name):
                tokens = words(term, memo)
                stems = tuple(t.stem for t in tokens)
                if not stems:
                    continue
                if len(stems) == 1:
                    if key not in single.setdefault(stems[0], []):
                        single[stems[0]].append(key)
                else:
                    multi.setdefault(stems[0], []).append((stems[1:], key))
                for t in tokens:
                    if len(t.word) >= FUZZY_MIN_LEN:
                        written.setdefault(t.word, t.stem)
        return cls({k: tuple(v) for k, v in single.items()}, {k: tuple(v) for k, v in multi.items()}, written)

    def mark(self, tokens: tuple[Token, ...], positions: dict[str, list[int]]) -> None:
        """Add each concept a clause expresses to its word → positions index, at the term's first word."""
        for i, t in enumerate(tokens):
            if t.stem[:1].isdigit():  # {quantity}: "3", "80ms", "2.6gb"; {number}: a bare "3"
                positions.setdefault("@quantity", []).append(i)
                if t.stem.isdigit():
                    positions.setdefault("@number", []).append(i)
            for key in self.single.get(t.stem, ()):
                positions.setdefault(key, []).append(i)
            for rest, key in self.multi.get(t.stem, ()):
                if _follows(tokens, i, rest):
                    positions.setdefault(key, []).append(i)


def _follows(tokens: tuple[Token, ...], i: int, rest: tuple[str, ...]) -> bool:
    """The stems of `rest` come right after token i, in order (a stop word or two may sit between)."""
    at = tokens[i].position
    j = i + 1
    for stem in rest:
        if j >= len(tokens) or tokens[j].stem != stem or tokens[j].position - at > MULTI_GAP:
            return False
        at = tokens[j].position
        j += 1
    return True
