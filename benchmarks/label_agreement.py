"""How far apart are expert labels themselves? Three second labellers (tests/data/corpus_relabel/{A,B,C}.jsonl)
labelled a sample of dev rows by LABELLING.md, seeing only the reply and the drill's signature. Prints per-part
and exact agreement between the writers' own labels, each second labeller, their panel (the median per part) and
the grader: the ceiling the grader's targets sit under. Reads dev rows only.
    PYTHONPATH=. python -m benchmarks.label_agreement
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from bot.grading.corpus import PARTS, answer_key, load_rows, rows_in
from bot.grading.scorer import grade

RELABEL_DIR = Path(__file__).resolve().parents[1] / "tests" / "data" / "corpus_relabel"
Labels = list[dict[str, float]]


def load_relabels(folder: Path = RELABEL_DIR) -> dict[str, dict[str, dict[str, Any]]]:
    """{labeller: {answer key: row}} for every *.jsonl file in the folder."""
    return {
        path.stem: {row["answer_sha256"]: row for row in map(json.loads, path.read_text("utf-8").splitlines())}
        for path in sorted(folder.glob("*.jsonl"))
    }


def agreement(a: Labels, b: Labels) -> tuple[dict[str, float], dict[str, float]]:
    """(per part: credit ≥ ½ on both sides or on neither; exact: the same 0, ½ or 1)."""
    n = len(a)
    if n == 0:
        raise ValueError("no rows to compare")
    per_part = {p: sum((x[p] >= 0.5) == (y[p] >= 0.5) for x, y in zip(a, b, strict=True)) / n for p in PARTS}
    exact = {p: sum(x[p] == y[p] for x, y in zip(a, b, strict=True)) / n for p in PARTS}
    return per_part, exact


def sources(relabels: dict[str, dict[str, dict[str, Any]]]) -> dict[str, Labels]:
    """Each source's labels over the rows every second labeller labelled, in one order."""
    if not relabels:
        raise FileNotFoundError(f"no second labels (*.jsonl) in {RELABEL_DIR}")
    dev = {answer_key(r["answer"]): r for r in rows_in("dev", load_rows())}
    keys = sorted(set.intersection(*(set(v) for v in relabels.values())) & set(dev))

    def parts(expect: dict[str, Any]) -> dict[str, float]:
        return {p: float(expect[p]) for p in PARTS}

    out: dict[str, Labels] = {"writer": [parts(dev[k]["expect"]) for k in keys]}
    for name, rows in relabels.items():
        out[name] = [parts(rows[k]["expect"]) for k in keys]
    names = list(relabels)
    out["panel"] = [{p: sorted(out[n][i][p] for n in names)[len(names) // 2] for p in PARTS} for i in range(len(keys))]
    graded = [grade(dev[k]["signature"], dev[k]["answer"]) for k in keys]
    out["grader"] = [
        {"signature": g.signature.credit, "measurement": g.measurement.credit, "fix": g.fix.credit} for g in graded
    ]
    return out


def main() -> None:
    relabels = load_relabels()
    by = sources(relabels)
    people = ["writer", *relabels]
    pairs = [(a, b) for i, a in enumerate(people) for b in people[i + 1 :]]
    pairs += [("writer", "panel"), *((name, "grader") for name in [*people, "panel"])]
    print(f"{len(by['writer'])} dev rows labelled by the writer and by {', '.join(relabels)}")
    print("agreement per part and exact, signature / measurement / fix")
    for a, b in pairs:
        per_part, exact = agreement(by[a], by[b])
        pp = " / ".join(f"{per_part[p]:.3f}" for p in PARTS)
        ex = " / ".join(f"{exact[p]:.3f}" for p in PARTS)
        print(f"{a:>7} vs {b:<7} per part {pp}   exact {ex}")


if __name__ == "__main__":
    main()
