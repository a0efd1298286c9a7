"""The analysis worker: `python -m bot.analyze.worker MEMORY_BYTES CPU_SECONDS`, a pickled Job on stdin, a pickled
("ok", AnalysisResult) or ("error", one line) on stdout. Limits are set before anything heavy is imported."""

from __future__ import annotations

import pickle
import resource
import sys
import tempfile
from pathlib import Path


def _limit(memory: int, cpu: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main() -> int:
    _limit(int(sys.argv[1]), int(sys.argv[2]))
    job = pickle.loads(sys.stdin.buffer.read())  # from our own parent process
    try:
        answer = ("ok", _analyze(job))
    except MemoryError:
        answer = (
            "error",
            f"{job.filename}: this trace needs more than {int(sys.argv[1]) // 2**20} MB to analyse "
            "(profile fewer steps)",
        )
    except Exception as exc:
        from .service import AnalysisError

        if not isinstance(exc, AnalysisError):
            raise
        answer = ("error", str(exc))
    sys.stdout.buffer.write(pickle.dumps(answer))
    return 0


def _analyze(job):  # type: ignore[no-untyped-def]
    from .service import analyze_path, check_upload

    if job.data is None:
        return analyze_path(Path(job.path), picture=job.picture, theme=job.theme)
    check_upload(job.filename, len(job.data))
    safe = Path(job.filename).name or "trace.json"
    with tempfile.TemporaryDirectory(prefix="tracedrill-") as tmp:
        path = Path(tmp) / safe
        path.write_bytes(job.data)
        return analyze_path(path, picture=job.picture, theme=job.theme)


if __name__ == "__main__":
    sys.exit(main())
