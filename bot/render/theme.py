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
    counter: str  # GPU-metrics fill: a neutral, so it never reads as a category
    compute_light: str  # elementwise / norm / optimizer kernels


# Okabe–Ito hues plus neutrals: every pair of categories stays apart (CIEDE2000) under normal vision and under
# simulated deuteranopia, protanopia and tritanopia; tests/test_render.py measures it. Twins get far-apart hues:
# sync (reddish purple) vs malloc (orange), NCCL (vermillion) vs dataloader (yellow).
_CATEGORIES_LIGHT = {
    Category.COMPUTE: "#0072B2",
    Category.NCCL: "#D55E00",
    Category.MEMCPY: "#009E73",
    Category.LAUNCH: "#B5B5B5",
    Category.SYNC: "#CC79A7",
    Category.MALLOC: "#E69F00",
    Category.CPU_OP: "#3C3C3C",
    Category.DATALOADER: "#F0E442",
    Category.STEP: "#E6E6E6",
    Category.RANGE: "#CBBFEA",
    Category.MARKER: "#000000",
}
_CATEGORIES_DARK = {
    Category.COMPUTE: "#3A8FD9",
    Category.NCCL: "#F26B1D",
    Category.MEMCPY: "#1FBF8A",
    Category.LAUNCH: "#6E6E6E",
    Category.SYNC: "#E69BCB",
    Category.MALLOC: "#F0A020",
    Category.CPU_OP: "#B8B8B8",
    Category.DATALOADER: "#F0E442",
    Category.STEP: "#3A3A40",
    Category.RANGE: "#4E4770",
    Category.MARKER: "#FFFFFF",
}
# Lighter kernels (elementwise, norm, optimizer, tiny) are a lighter shade of compute, kept apart from the rest.
_LIGHT_COMPUTE = {"light": "#6FA8D6", "dark": "#9CCAF0"}

LIGHT = Theme(
    "light",
    "#ffffff",
    "#f8f9fa",
    "#212529",
    "#6c757d",
    "#dee2e6",
    "#f4f5f7",
    "#e03131",
    "#fff9db",
    _CATEGORIES_LIGHT,
    "#7b8794",
    _LIGHT_COMPUTE["light"],
)
DARK = Theme(
    "dark",
    "#1a1b1e",
    "#25262b",
    "#e9ecef",
    "#909296",
    "#373a40",
    "#202125",
    "#ff6b6b",
    "#2c2e33",
    _CATEGORIES_DARK,
    "#8d99a6",
    _LIGHT_COMPUTE["dark"],
)


def theme(name: str) -> Theme:
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}; choose one of: {', '.join(THEMES)}")
    return LIGHT if name == "light" else DARK
