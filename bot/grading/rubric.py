"""Rubric data: one TOML file per signature, loaded through a typed, validated model."""

from __future__ import annotations

import tomllib
from functools import lru_cache
from importlib import resources
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..scenarios.ids import SIGNATURE_IDS

PART_WEIGHTS = {"signature": 0.5, "measurement": 0.25, "fix": 0.25}


class Part(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hint: str = Field(min_length=10)  # what would have earned the part, in words a person reads
    phrases: list[str] = Field(min_length=1)  # any one earns the part
    weak: list[str] = []  # signature only: symptom descriptions that count when nothing stronger is named
    wrong: list[str] = []  # fix only: fixes that belong to another signature

    @field_validator("phrases", "weak", "wrong")
    @classmethod
    def _non_blank(cls, values: list[str]) -> list[str]:
        if any(not v.strip() for v in values):
            raise ValueError("blank phrase")
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


@lru_cache(maxsize=1)
def load_rubrics() -> dict[str, Rubric]:
    """Every bundled rubric by signature id; fails loudly if one is missing or malformed."""
    folder = resources.files(__package__) / "rubrics"
    rubrics = {}
    for sig in SIGNATURE_IDS:
        rubric = parse_rubric((folder / f"{sig}.toml").read_text(encoding="utf-8"))
        if rubric.id != sig:
            raise ValueError(f"rubrics/{sig}.toml declares id {rubric.id!r}")
        rubrics[sig] = rubric
    return rubrics
