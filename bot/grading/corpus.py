"""The labelled corpus of replies (tests/data/corpus/*.jsonl), its fixed dev/test split, and agreement figures.

The split is a pure function of the reply text, so it cannot drift with file order or new rows: a row is in the
TEST split iff sha256(answer.strip())[0] % 5 < 2 (about 40 %), else in DEV. Rubrics are tuned on dev only; the test
split is read only by the evaluation, which reports aggregate figures and never individual rows.

    python -m bot.grading.corpus --split dev [--misses]
    python -m bot.grading.corpus --split test
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from .scorer import grade

PARTS = ("signature", "measurement", "fix")
CORPUS_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "corpus"
Split = Literal["dev", "test"]


def _digest(answer: str) -> bytes:
    return hashlib.sha256(answer.strip().encode("utf-8")).digest()


def split_of(answer: str) -> Split:
    """The split a reply belongs to, fixed by its text."""
    return "test" if _digest(answer)[0] % 5 < 2 else "dev"


def answer_key(answer: str) -> str:
    """A short stable name for a reply (files that label corpus rows again refer to rows by it)."""
    return _digest(answer).hex()[:16]


def load_rows(folder: Path = CORPUS_DIR) -> list[dict[str, Any]]:
    """Every labelled row of every *.jsonl file in the folder; raises if there are none or a row is malformed."""
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        raise FileNotFoundError(f"no corpus files (*.jsonl) in {folder}")
    rows: list[dict[str, Any]] = []
    for path in files:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            row = json.loads(line)
            if not isinstance(row, dict) or not isinstance(row.get("answer"), str) or "expect" not in row:
                raise ValueError(f"{path.name}:{number}: not a labelled row")
            rows.append(row)
    return rows


def rows_in(split: Split, rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    return [r for r in rows if split_of(r["answer"]) == split]


def credited(value: float) -> bool:
    return value >= 0.5


@dataclass
class Figures:
    rows: int = 0
    per_part: dict[str, float] = field(default_factory=dict)  # credit ≥ ½ on both sides, or 0 on both
    exact: dict[str, float] = field(default_factory=dict)  # same credit: 0, ½ or 1
    stuffing_rows: int = 0
    stuffing_scored: int = 0  # stuffing rows that earned anything
    misses: list[str] = field(default_factory=list)  # filled only when asked for (dev)

    def lines(self) -> list[str]:
        def fmt(d: dict[str, float]) -> str:
            return " / ".join(f"{p} {d[p]:.3f}" for p in PARTS)

        return [
            f"rows: {self.rows}",
            f"per-part agreement (credit >= 1/2 counts as credit): {fmt(self.per_part)}",
            f"exact credit agreement (0, 1/2, 1): {fmt(self.exact)}",
            f"stuffing rows earning anything: {self.stuffing_scored} of {self.stuffing_rows}",
        ]


def evaluate(rows: Sequence[dict[str, Any]], *, keep_misses: bool = False) -> Figures:
    """Grade every row and compare with its labels."""
    figures = Figures(rows=len(rows))
    if not rows:
        return figures
    per_part = dict.fromkeys(PARTS, 0)
    exact = dict.fromkeys(PARTS, 0)
    for r in rows:
        g = grade(r["signature"], r["answer"])
        got = {"signature": g.signature.credit, "measurement": g.measurement.credit, "fix": g.fix.credit}
        for part in PARTS:
            want = float(r["expect"][part])
            if credited(got[part]) == credited(want):
                per_part[part] += 1
            if got[part] == want:
                exact[part] += 1
            elif keep_misses:
                answer = r["answer"].replace("\n", " ⏎ ")
                note = r.get("note", "")
                figures.misses.append(f"{r['signature']}/{part}: want {want:g} got {got[part]:g} [{note}] {answer}")
        if str(r.get("note", "")).startswith("stuffing"):
            figures.stuffing_rows += 1
            figures.stuffing_scored += g.score > 0
    figures.per_part = {p: per_part[p] / len(rows) for p in PARTS}
    figures.exact = {p: exact[p] / len(rows) for p in PARTS}
    return figures


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.grading.corpus", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--dir", type=Path, default=CORPUS_DIR, help="folder of *.jsonl corpus files")
    parser.add_argument("--misses", action="store_true", help="list the disagreements (dev split only)")
    args = parser.parse_args(argv)
    if args.misses and args.split == "test":
        parser.error("--misses is for the dev split only: the test split is never read row by row")
    try:
        rows = rows_in(args.split, load_rows(args.dir))
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    figures = evaluate(rows, keep_misses=args.misses)
    print(f"{args.split} split")
    for line in figures.lines():
        print(line)
    for miss in figures.misses:
        print(miss)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
