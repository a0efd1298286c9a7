"""Analysis of user traces in a separate worker process with memory, CPU and wall-clock limits, behind a gate.

The bot serves Slack, Discord and the scheduler from one process; a hostile or huge upload must cost at most one
worker, never the bot. The worker is a fresh interpreter (not a fork of the bot: no inherited sockets, threads or
address space), so its 1 GB address-space limit measures the analysis alone. At most MAX_RUNNING workers run at a
time and at most MAX_WAITING requests queue for one; anything beyond gets a "busy, try again" line at once.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path

from .model import AnalysisError, AnalysisResult

MEMORY_BYTES = 2**30  # RLIMIT_AS of the worker
CPU_SECONDS = 40  # RLIMIT_CPU of the worker
WALL_SECONDS = 50.0  # the worker is killed after this, whatever it is doing
MAX_RUNNING = 1  # workers at once (the bot shares a small machine with its database)
MAX_WAITING = 4  # requests queued for a worker; more are told to try again
QUEUE_SECONDS = 120.0  # longest wait in the queue

_ROOT = str(Path(__file__).resolve().parents[2])  # the folder that holds the `bot` package


class AnalysisBusy(AnalysisError):
    """Every worker is busy and the queue is full."""


@dataclass(frozen=True, slots=True)
class Job:
    filename: str
    data: bytes | None  # None: read `path` from disk in the worker
    path: str | None
    picture: bool
    theme: str = "light"


class Gate:
    """A counting semaphore with a bounded queue: refuse at once rather than pile up work nobody waits for."""

    def __init__(self, running: int, waiting: int, queue_seconds: float) -> None:
        self._slots = threading.BoundedSemaphore(running)
        self._lock = threading.Lock()
        self._waiting = 0
        self._max_waiting = waiting
        self._queue_seconds = queue_seconds

    def __enter__(self) -> Gate:
        if self._slots.acquire(blocking=False):
            return self
        with self._lock:
            if self._waiting >= self._max_waiting:
                raise AnalysisBusy(BUSY)
            self._waiting += 1
        try:
            if not self._slots.acquire(timeout=self._queue_seconds):
                raise AnalysisBusy(BUSY)
        finally:
            with self._lock:
                self._waiting -= 1
        return self

    def __exit__(self, *exc: object) -> None:
        self._slots.release()


BUSY = "The trace analyser is busy with other uploads; please try again in a minute."
gate = Gate(MAX_RUNNING, MAX_WAITING, QUEUE_SECONDS)


def analyze_file(path: Path, *, picture: bool = False, theme: str = "light") -> AnalysisResult:
    """`tracedrill analyze`: a file or folder on disk, read by the worker."""
    return run(Job(path.name, None, str(path), picture, theme))


def analyze_upload(filename: str, data: bytes, *, picture: bool = True) -> AnalysisResult:
    """A chat upload: the bytes go to the worker over a pipe."""
    return run(Job(filename, data, None, picture))


def run(job: Job) -> AnalysisResult:
    with gate:
        return _run_worker(job)


def _run_worker(job: Job) -> AnalysisResult:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (_ROOT, env.get("PYTHONPATH", "")) if p)
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MPLBACKEND="Agg")  # no per-thread arenas
    try:
        done = subprocess.run(
            [sys.executable, "-m", "bot.analyze.worker", str(MEMORY_BYTES), str(CPU_SECONDS)],
            input=pickle.dumps(job),
            capture_output=True,
            timeout=WALL_SECONDS,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise AnalysisError(
            f"{job.filename}: analysis took longer than {WALL_SECONDS:.0f} s; stopped (profile fewer steps)"
        ) from exc
    if done.returncode == 0 and done.stdout:
        status, payload = pickle.loads(done.stdout)  # our own worker's answer
        if status == "ok":
            result: AnalysisResult = payload
            return result
        raise AnalysisError(str(payload))
    if done.returncode in (-9, -24, 152, 137):  # SIGKILL / SIGXCPU: a limit was hit outside Python's reach
        raise AnalysisError(
            f"{job.filename}: analysis went over its {CPU_SECONDS} s CPU or "
            f"{MEMORY_BYTES // 2**20} MB memory limit; stopped (profile fewer steps)"
        )
    tail = done.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
    raise AnalysisError(f"{job.filename}: the analysis worker failed ({tail[0][:120]})")
