"""Light and dark themes; one colour per event category, the same in every picture."""

from __future__ import annotations

from dataclasses import dataclass

from ..scenarios.model import Category

THEMES = ("light", "dark")


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    background: str
    panel: str
    text: str
    muted: str
    grid: str
    row_alt: str
    highlight: str
    callout_bg: str
    categories: dict[Category, str]
    counter: str


_CATEGORIES_LIGHT = {
    Category.COMPUTE: "#2b6cb0",
    Category.NCCL: "#d9480f",
    Category.MEMCPY: "#2f9e44",
    Category.LAUNCH: "#868e96",
    Category.SYNC: "#ae3ec9",
    Category.MALLOC: "#a61e4d",
    Category.CPU_OP: "#1098ad",
    Category.DATALOADER: "#f08c00",
    Category.STEP: "#ced4da",
    Category.RANGE: "#a5d8ff",
    Category.MARKER: "#c92a2a",
}
_CATEGORIES_DARK = {
    Category.COMPUTE: "#4dabf7",
    Category.NCCL: "#ff8787",
    Category.MEMCPY: "#69db7c",
    Category.LAUNCH: "#adb5bd",
    Category.SYNC: "#da77f2",
    Category.MALLOC: "#f783ac",
    Category.CPU_OP: "#3bc9db",
    Category.DATALOADER: "#ffd43b",
    Category.STEP: "#495057",
    Category.RANGE: "#1c7ed6",
    Category.MARKER: "#ff6b6b",
}

LIGHT = Theme("light", "#ffffff", "#f8f9fa", "#212529", "#6c757d", "#dee2e6", "#f1f3f5", "#fa5252",
              "#fff9db", _CATEGORIES_LIGHT, "#5c7cfa")
DARK = Theme("dark", "#1a1b1e", "#25262b", "#e9ecef", "#909296", "#373a40", "#202125", "#ff6b6b",
             "#2c2e33", _CATEGORIES_DARK, "#91a7ff")


def theme(name: str) -> Theme:
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}; choose one of: {', '.join(THEMES)}")
    return LIGHT if name == "light" else DARK
