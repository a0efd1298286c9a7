"""The analysis worker: `python -m bot.analyze.worker MEMORY_BYTES CPU_SECONDS`, a pickled Job on stdin, a pickled
("ok", AnalysisResult) or ("error", one line) on stdout. Limits are set before anything heavy is imported."""

from __future__ import annotations

import pickle
import resource
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .bounded import Job


def _limit(memory: int, cpu: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main() -> int:
    memory = int(sys.argv[1])
    _limit(memory, int(sys.argv[2]))
    # Imported once the limits hold, so whatever the analysis loads (numpy, ijson; matplotlib for a picture) is
    # fenced with it.
    from .service import AnalysisError, analyze_job

    job: Job = pickle.loads(sys.stdin.buffer.read())  # from our own parent process
    answer: tuple[str, object]
    try:
        answer = ("ok", analyze_job(job))
    except MemoryError:
        answer = (
            "error",
            f"{job.filename}: this trace needs more than {memory // 2**20} MB to analyse (profile fewer steps)",
        )
    except AnalysisError as exc:
        answer = ("error", str(exc))
    sys.stdout.buffer.write(pickle.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
