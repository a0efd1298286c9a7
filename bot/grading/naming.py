"""The naming set (tests/data/naming/*.txt): diagnosis sentences alone, each labelled with the signature credit it
earns — 1 for naming the signature in the writer's own words, ½ for offering it tentatively, 0 for a near miss (the
twin, a denial, a hedge between two, a bare question). Three writers who saw only signatures.md and the course
texts wrote 55 lines per signature each. It measures the signature part densely, where the corpus has one naming
per reply. Split into dev and test by the corpus's hash rule; only the evaluation reads test.

    python -m bot.grading.naming --split dev [--misses]
    python -m bot.grading.naming --split test
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from .corpus import Split, credited, split_of
from .scorer import grade

NAMING_DIR = Path(__file__).resolve().parents[2] / "tests" / "data" / "naming"


class Naming(NamedTuple):
    signature: str
    credit: float
    sentence: str
    source: str  # file:line


def load_naming(folder: Path = NAMING_DIR) -> list[Naming]:
    """Every `signature | credit | sentence` line of every *.txt file in the folder."""
    rows: list[Naming] = []
    for path in sorted(folder.glob("*.txt")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip() or line.startswith("#"):
                continue
            fields = [x.strip() for x in line.split("|", 2)]
            try:
                signature, credit, sentence = fields
                rows.append(Naming(signature, float(credit), sentence, f"{path.name}:{number}"))
            except ValueError as exc:
                raise ValueError(f"{path.name}:{number}: not 'signature | credit | sentence'") from exc
    if not rows:
        raise FileNotFoundError(f"no naming lines (*.txt) in {folder}")
    return rows


@dataclass
class NamingFigures:
    rows: int = 0
    per_part: float = 0.0  # credit ≥ ½ on both sides, or below on both
    exact: float = 0.0
    recall: float = 0.0  # of the lines that earn, the share credited
    misses: list[str] = field(default_factory=list)


def evaluate_naming(rows: Sequence[Naming], *, keep_misses: bool = False) -> NamingFigures:
    figures = NamingFigures(rows=len(rows))
    if not rows:
        return figures
    same = exact = earned = earning = 0
    for r in rows:
        got = grade(r.signature, r.sentence).signature.credit
        same += credited(got) == credited(r.credit)
        exact += got == r.credit
        if credited(r.credit):
            earning += 1
            earned += credited(got)
        if keep_misses and got != r.credit:
            figures.misses.append(f"{r.signature}: want {r.credit:g} got {got:g} [{r.source}] {r.sentence}")
    figures.per_part, figures.exact = same / len(rows), exact / len(rows)
    figures.recall = earned / earning if earning else 1.0
    return figures


def naming_in(split: Split, rows: Sequence[Naming]) -> list[Naming]:
    return [r for r in rows if split_of(r.sentence) == split]


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.grading.naming", description=__doc__.splitlines()[0])
    parser.add_argument("--split", choices=("dev", "test"), required=True)
    parser.add_argument("--misses", action="store_true", help="list the disagreements (dev split only)")
    args = parser.parse_args(argv)
    if args.misses and args.split == "test":
        parser.error("--misses is for the dev split only: the test split is never read line by line")
    f = evaluate_naming(naming_in(args.split, load_naming()), keep_misses=args.misses)
    print(f"{args.split} split, {f.rows} lines: signature per part {f.per_part:.3f}, exact {f.exact:.3f}, ", end="")
    print(f"recall of the lines that earn {f.recall:.3f}")
    for miss in f.misses:
        print(miss)
    return 0


if __name__ == "__main__":
    sys.exit(main())
