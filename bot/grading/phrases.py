"""Rubric rules and vocabulary terms compiled to stems: the phrases a reply is matched against."""

from __future__ import annotations

from dataclasses import dataclass

from .rubric import CONCEPT_REF
from .text import Token, clauses, clean
from .vocabulary import vocabulary

FUZZY_MIN_LEN = 5  # typo tolerance only for longer words: acronyms (AR, DL, PP, ITL) must match exactly
MULTI_GAP = 3  # the words of a multi-word concept term sit at most 2 stop words apart
# a rule that says it itself ("not moving bytes", "instead of overlapping with backward")
_RULE_NEGATIONS = frozenset({"not", "no", "without", "never", "noth", "instead", "rather"})


@dataclass(frozen=True, slots=True)
class Phrase:
    text: str
    tokens: tuple[str, ...]  # stems, and "@name" for a concept class
    weight: float  # 1 = names the thing; 0.5 = a symptom description
    exclude: tuple[str, ...] = ()  # the rule does not fire in a clause holding any of these
    ordered: bool = False  # the tokens must appear in the order written
    needs: frozenset[str] = frozenset()  # every token, for a quick check before locating
    negative: bool = False  # the rule itself says "no …" / "not …"
    name: bool = False  # one of the signature's own names


def words(text: str, memo: dict[str, tuple[Token, ...]]) -> tuple[Token, ...]:
    """The tokens of a rubric or vocabulary snippet (one clause's worth), memoised while the rule book is built."""
    cached = memo.get(text)
    if cached is None:
        cached = memo[text] = tuple(t for c in clauses(clean(text)) for t in c.tokens)
    return cached


def compile_phrases(
    phrases: list[str], weight: float, memo: dict[str, tuple[Token, ...]], *, name: bool = False
) -> tuple[Phrase, ...]:
    """A rule is words and {concept} references, all to be found close together in one clause, in any order."""
    out = []
    for p in phrases:
        body, *excluded = p.split("!")  # "{slow} {rank} !{all}": not in a clause that says all/every
        ordered = body.startswith("^")  # "^{host} {waiting} {gpu}": in this order
        tokens = _rule_tokens(body.lstrip("^"), memo)
        exclude = tuple(t for x in excluded for t in _rule_tokens(x, memo))
        if tokens:
            negative = bool(_RULE_NEGATIONS & set(tokens))
            out.append(Phrase(p, tokens, weight, exclude, ordered, frozenset(tokens), negative, name))
    return tuple(out)


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
    """Which concept classes a reply's words express: every term by its first stem, with the stems that must follow
    it (none for a one-word term)."""

    terms: dict[str, tuple[tuple[tuple[str, ...], str], ...]]  # first stem → (the rest, "@class"), one-word first
    stems: frozenset[str]  # every stem of every term
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
        terms = {
            stem: tuple(((), key) for key in single.get(stem, ())) + tuple(multi.get(stem, ()))
            for stem in single.keys() | multi.keys()
        }
        every = set(terms) | {s for rest in multi.values() for tail, _key in rest for s in tail}
        return cls(terms, frozenset(every), written)

    def index(self, tokens: tuple[Token, ...]) -> dict[str, list[int]]:
        """A clause's word → positions index: every stem, then every concept class it expresses (at the term's first
        word). Rules are tried in this order."""
        positions: dict[str, list[int]] = {}
        for i, t in enumerate(tokens):
            at = positions.get(t.stem)
            if at is None:
                positions[t.stem] = [i]
            else:
                at.append(i)
        terms = self.terms
        for i, t in enumerate(tokens):
            stem = t.stem
            if stem[:1].isdigit():  # {quantity}: "3", "80ms", "2.6gb"; {number}: a bare "3"
                positions.setdefault("@quantity", []).append(i)
                if stem.isdigit():
                    positions.setdefault("@number", []).append(i)
            for rest, key in terms.get(stem, ()):
                if not rest or _follows(tokens, i, rest):
                    at = positions.get(key)
                    if at is None:
                        positions[key] = [i]
                    else:
                        at.append(i)
        return positions


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
