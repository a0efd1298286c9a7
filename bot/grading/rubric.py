"""Rubric data: one TOML file per signature, loaded through a typed, validated model."""

from __future__ import annotations

import re
import threading
import tomllib
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..scenarios.ids import SIGNATURE_IDS
from .vocabulary import vocabulary

CONCEPT_REF = re.compile(r"\{([a-z][a-z0-9_]*)\}")
BUILT_IN_CONCEPTS = frozenset({"number", "quantity"})  # {number}: "rank 3"; {quantity}: "80ms", "2.6GB", "3"

PART_WEIGHTS = {"signature": 0.5, "measurement": 0.25, "fix": 0.25}


class Part(BaseModel):
    """One part's rules. A rule is words and {concept} classes that must all appear close together in one clause,
    in any order ("{one} {rank} {slow}"); any one positive rule earns the part."""

    model_config = ConfigDict(extra="forbid")

    hint: str = Field(min_length=10)  # what would have earned the part, in words a person reads
    rules: list[str] = Field(min_length=1)
    weak: list[str] = []  # signature only: symptom descriptions that count when nothing stronger is named
    # signature only: the signature's own names ("sync stall", "straggler"); a reply that names one outright, as its
    # only named diagnosis, commits to it over words that merely point at another (".item()" beside "allocator stall")
    names: list[str] = []
    wrong: list[str] = []  # fix only: fixes that belong to another signature

    @field_validator("rules", "weak", "wrong", "names")
    @classmethod
    def _well_formed(cls, values: list[str]) -> list[str]:
        known = vocabulary().concepts
        for v in values:
            if not v.strip():
                raise ValueError("blank rule")
            if v.count("{") != v.count("}"):
                raise ValueError(f"unbalanced braces in rule {v!r}")
            for name in CONCEPT_REF.findall(v):
                if name not in known and name not in BUILT_IN_CONCEPTS:
                    raise ValueError(f"rule {v!r} uses unknown concept {{{name}}}")
        return values


class QuantityCheck(BaseModel):
    model_config = ConfigDict(extra="forbid")

    figure: str  # a key of Scenario.figures
    unit: Literal["ms", "us", "%", "gb/s", "x", "s", ""]
    tolerance: float = Field(default=0.06, gt=0, le=1)  # relative


class Rubric(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str
    title: str
    twin: str | None = None
    tell: str = Field(min_length=10)  # how to tell it from its twin or nearest miss
    signature: Part
    measurement: Part
    fix: Part
    quantities: list[QuantityCheck] = []

    @field_validator("id", "twin")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        if value is not None and value not in SIGNATURE_IDS:
            raise ValueError(f"unknown signature id {value!r}")
        return value


def parse_rubric(text: str) -> Rubric:
    return Rubric.model_validate(tomllib.loads(text))


_LOCK = threading.Lock()
_LOADED: list[dict[str, Rubric]] = []


def load_rubrics() -> dict[str, Rubric]:
    """Every bundled rubric by signature id, parsed once; fails loudly if one is missing or malformed."""
    if _LOADED:
        return _LOADED[0]
    with _LOCK:
        if not _LOADED:
            folder = resources.files(__package__) / "rubrics"
            rubrics = {}
            for sig in SIGNATURE_IDS:
                rubric = parse_rubric((folder / f"{sig}.toml").read_text(encoding="utf-8"))
                if rubric.id != sig:
                    raise ValueError(f"rubrics/{sig}.toml declares id {rubric.id!r}")
                rubrics[sig] = rubric
            _LOADED.append(rubrics)
    return _LOADED[0]


def reset() -> None:
    """Forget what was loaded (see matcher.clear_caches)."""
    with _LOCK:
        _LOADED.clear()
