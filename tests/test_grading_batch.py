"""`tracedrill grade --batch` shares a large batch among worker processes: the results must be exactly the serial
ones, in order, and a worker that dies must lose no line. Run in a fresh interpreter: forking is only done with no
other thread running, and a pytest-xdist worker has its own threads."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

SCRIPT = """
import json, os, sys
from bot.grading import batch
from bot.grading.corpus import load_rows

rows = load_rows()[:700]
lines = [json.dumps({"signature": r["signature"], "answer": r["answer"]}) for r in rows]
lines[5] = "not json"
lines.insert(9, "   ")
serial = list(batch.grade_lines(lines, workers=1))
parent, plain = os.getpid(), batch._numbered_line

def traced(item):
    if os.getpid() != parent and item[0] == int(sys.argv[1]):
        os._exit(1)  # a worker killed in the middle of the batch
    return {**plain(item), "pid": os.getpid()}

batch._numbered_line = traced
shared = list(batch.grade_lines(lines, workers=2))
pids = {r.pop("pid", None) for r in shared}
print(json.dumps({"same": shared == serial, "n": len(shared), "lines": len(lines), "workers": len(pids - {parent}),
                  "here": parent in pids, "error_at": [r.get("line") for r in shared if "error" in r]}))
"""


def _run(kill_at: int) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(kill_at)], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_large_batch_shared_among_workers_grades_exactly_as_one_process() -> None:
    got = _run(kill_at=0)
    assert got["same"] is True and got["n"] == got["lines"] - 1 == 700  # the blank line gets no result
    assert got["workers"] == 2 and got["here"] is False  # every line was graded by a worker
    assert got["error_at"] == [6]  # the bad line keeps its number


def test_a_worker_killed_mid_batch_loses_no_line() -> None:
    got = _run(kill_at=300)
    assert got["same"] is True and got["n"] == 700
    assert got["here"] is True  # the block the dead worker held was graded in the parent


def test_workers_follow_the_cgroup_cpu_quota(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from bot.grading import batch

    monkeypatch.setattr(batch.os, "sched_getaffinity", lambda _pid: set(range(64)), raising=False)
    cpu_max = tmp_path / "cpu.max"
    monkeypatch.setattr(batch, "CPU_MAX", cpu_max)
    cpu_max.write_text("150000 100000\n")
    assert batch._workers() == 2  # 1.5 CPUs of quota: two workers, not 64
    cpu_max.write_text("max 100000\n")
    assert batch._workers() == 64
    cpu_max.unlink()
    monkeypatch.setattr(batch, "CFS_QUOTA", tmp_path / "cfs_quota_us")
    monkeypatch.setattr(batch, "CFS_PERIOD", tmp_path / "cfs_period_us")
    assert batch._workers() == 64  # no quota in either cgroup version
    (tmp_path / "cfs_period_us").write_text("100000\n")
    (tmp_path / "cfs_quota_us").write_text("300000\n")
    assert batch._workers() == 3  # cgroup v1: three CPUs of quota
    (tmp_path / "cfs_quota_us").write_text("-1\n")
    assert batch._workers() == 64  # v1's "no limit"
