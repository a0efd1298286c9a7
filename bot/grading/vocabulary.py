"""The shared vocabulary every rubric speaks: aliases, code identifiers and concept classes, defined once.

`vocabulary.toml` holds three tables:
- `aliases`: one written word → the canonical word (abbreviations, British spellings, plurals the stemmer misses);
- `compounds`: canonical token → regexes for multi-word or punctuated spellings and code identifiers, folded into
  that one token before tokenising (`next(it)`, `.item()`, `TORCH_DISTRIBUTED_DEBUG`, `cuda_api_sum`, …);
- `concepts`: a class name → the words and short phrases that express it ("slow": lagging, behind, dragging its
  feet, …). Rubric rules refer to a class as `{name}`; stemming and typo tolerance apply to every term.
"""

from __future__ import annotations

import re
import threading
import tomllib
from importlib import resources

from pydantic import BaseModel, ConfigDict, Field, field_validator

CONCEPT_NAME = re.compile(r"^[a-z][a-z0-9_]*$")


class Concept(BaseModel):
    model_config = ConfigDict(extra="forbid")

    about: str = ""  # what the class means, for a person adding terms
    terms: list[str] = Field(min_length=1)
    include: list[str] = []  # other classes whose terms belong here too

    @field_validator("terms")
    @classmethod
    def _non_blank(cls, values: list[str]) -> list[str]:
        if any(not v.strip() for v in values):
            raise ValueError("blank term")
        return values


class Vocabulary(BaseModel):
    model_config = ConfigDict(extra="forbid")

    aliases: dict[str, str] = {}
    compounds: dict[str, list[str]] = {}
    concepts: dict[str, Concept] = {}

    @field_validator("compounds")
    @classmethod
    def _patterns_compile(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
        for token, patterns in value.items():
            for p in patterns:
                try:
                    re.compile(p)
                except re.error as exc:
                    raise ValueError(f"compound {token!r}: bad pattern {p!r}: {exc}") from exc
        return value

    @field_validator("concepts")
    @classmethod
    def _names_and_includes(cls, value: dict[str, Concept]) -> dict[str, Concept]:
        for name, concept in value.items():
            if not CONCEPT_NAME.match(name):
                raise ValueError(f"concept name {name!r} must be lower_snake_case")
            for other in concept.include:
                if other not in value:
                    raise ValueError(f"concept {name!r} includes unknown concept {other!r}")
        return value

    def terms(self, name: str, _seen: frozenset[str] = frozenset()) -> list[str]:
        """Every term of a class, its includes' terms too (cycles are cut)."""
        concept = self.concepts[name]
        out = list(concept.terms)
        for other in concept.include:
            if other not in _seen:
                out.extend(self.terms(other, _seen | {name}))
        return out


def parse_vocabulary(text: str) -> Vocabulary:
    return Vocabulary.model_validate(tomllib.loads(text))


_LOCK = threading.Lock()
_LOADED: list[Vocabulary] = []


def vocabulary() -> Vocabulary:
    """The bundled vocabulary, parsed once (under a lock: threads never see a half-built one)."""
    if _LOADED:
        return _LOADED[0]
    with _LOCK:
        if not _LOADED:
            text = (resources.files(__package__) / "vocabulary.toml").read_text(encoding="utf-8")
            _LOADED.append(parse_vocabulary(text))
    return _LOADED[0]


def reset() -> None:
    """Forget what was loaded (see matcher.clear_caches)."""
    with _LOCK:
        _LOADED.clear()
