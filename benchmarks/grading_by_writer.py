"""Dev-split agreement per corpus writer: a leave-one-writer-out view of whether a grader change generalises.

When a change fixes misses of one writer, the other writers' figures show whether it was a general mechanism or a
phrase that only fits that writer. Reads the dev split only (rows with split_of(answer) == "dev").
    PYTHONPATH=. python benchmarks/grading_by_writer.py
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from bot.grading.corpus import PARTS, Figures, evaluate, load_rows, rows_in


def line(name: str, f: Figures) -> str:
    per_part = " / ".join(f"{f.per_part[p]:.3f}" for p in PARTS)
    exact = " / ".join(f"{f.exact[p]:.3f}" for p in PARTS)
    return (
        f"{name:5} {f.rows:4} rows  per-part {per_part}  exact {exact}  "
        f"stuffing earning {f.stuffing_scored} of {f.stuffing_rows}"
    )


def main() -> None:
    rows = rows_in("dev", load_rows())
    by_writer: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_writer[str(r.get("writer", "?"))].append(r)
    print("dev split, signature / measurement / fix")
    print(line("all", evaluate(rows)))
    for writer in sorted(by_writer):
        print(line(writer, evaluate(by_writer[writer])))


if __name__ == "__main__":
    main()
