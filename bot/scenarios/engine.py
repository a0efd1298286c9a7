"""An online LLM serving engine, one scheduler iteration at a time, on RankSim's host cursor and compute stream.

Every iteration: the host schedules the batch and copies its inputs in, launches the model's kernels (a compiled
engine replays a CUDA graph for a batch of up to 512 tokens and launches fused kernels one by one otherwise; an
eager loop dispatches every unfused op from Python), copies the sampled token ids out and processes them
(detokenize, stop checks). How the host waits for those ids is the engine's loop:

- overlapped: it launches iteration k, then waits on an event for iteration k−1's ids, so the GPU always has the
  next iteration queued while Python works;
- blocking: it reads iteration k's ids with a synchronous copy right after launching k, so the GPU drains and
  waits while Python processes the ids and schedules k+1.

The pathologies follow from these mechanics and from the batch plan (serving.py builds both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .kernels import MEMCPY_D2H, MEMCPY_H2D
from .model import Category, Event, Rank, Track, TrackKind
from .served import Batch, Costs, KernelCost
from .sim import COMPUTE_STREAM, RankSim

SCHEDULER = "scheduler (engine core)"
REQUESTS = "requests"
ITL = "ITL (ms)"
MEMCPY_D2H_PAGEABLE = "Memcpy DtoH (Device -> Pageable)"
GRAPH_GAP_US = (0.4, 1.0)  # between kernels of a replayed graph: no launch in between
GRAPH_MAX_TOKENS = 512  # batches up to this size replay a captured graph; bigger ones launch kernel by kernel
COMPILED_PY_US = (1.0, 3.0)  # host time of a compiled wrapper per kernel, besides the launch call


@dataclass(frozen=True, slots=True)
class Loop:
    """How the engine drives the GPU."""

    blocking: bool  # read the sampled ids back synchronously before scheduling the next iteration
    eager: bool  # per-op Python dispatch of unfused kernels, no CUDA graphs
    python_us: float = 0.0  # eager: host time per op besides the launch call
    readback_op: str = "aten::item"  # the Python op above the blocking copy


@dataclass(frozen=True, slots=True)
class Step:
    """One planned iteration: the batch, its host work (µs) and the prompts that arrive just before it."""

    batch: Batch
    schedule_us: float
    process_us: float
    arrivals: tuple[tuple[int, int], ...] = ()  # (request id, prompt tokens)


@dataclass(slots=True)
class Done:
    """One iteration as run."""

    batch: Batch
    window: tuple[float, float]  # GPU: previous iteration's end → this one's end
    first_kernel: float
    kernels: int
    kernel_us: float  # Σ compute-kernel durations
    flops: float
    nbytes: float
    graphed: bool


@dataclass(slots=True)
class EngineRun:
    rank: Rank
    steps: list[Done] = field(default_factory=list)
    itl_times: list[float] = field(default_factory=list)
    itl_values: list[float] = field(default_factory=list)  # ms
    first_step: int = 0

    @property
    def windows(self) -> list[tuple[float, float]]:
        return [d.window for d in self.steps]


def iteration_label(b: Batch) -> str:
    """The NVTX range an engine puts around an iteration: what was scheduled, in counts."""
    return f"iteration: {b.seqs} seqs, {b.tokens:,} tokens"


class Engine:
    def __init__(self, sim: RankSim, costs: Costs, loop: Loop, first_step: int) -> None:
        self.sim, self.costs, self.loop = sim, costs, loop
        sim.main.name = SCHEDULER
        self.requests = Track(REQUESTS, TrackKind.ANNOTATION)
        self.first_step = first_step
        self.done: list[Done] = []
        self._copy_end: list[float] = []  # when each iteration's sampled ids reached the host buffer

    def run(self, plan: list[Step]) -> EngineRun:
        for k, step in enumerate(plan):
            self._iteration(k, step)
        if not self.loop.blocking:  # drain the last iteration's ids
            self._event_sync(self._copy_end[-1])
            self.sim.cpu_op("process outputs / detokenize", plan[-1].process_us)
        rank = self.sim.rank_model()
        rank.tracks.insert(1, self.requests)
        run = EngineRun(rank, self.done, first_step=self.first_step)
        _itl(run)
        itl = Track(ITL, TrackKind.COUNTER, unit="ms")
        itl.sample_times = [round(t, 3) for t in run.itl_times]
        itl.sample_values = [round(v, 3) for v in run.itl_values]
        rank.tracks.append(itl)
        return run

    def _iteration(self, k: int, step: Step) -> None:
        sim, b = self.sim, step.batch
        for req, tokens in step.arrivals:
            at = max(sim.cpu - sim.u(100.0, 900.0), 0.0)  # the profile starts at 0
            self.requests.events.append(Event(f"req#{req} arrives · prompt {tokens:,} tok", at, 0.0, Category.MARKER))
        cpu_start = sim.cpu
        sim.cpu_op("schedule + prepare inputs", step.schedule_us)
        kernels = self.costs.iteration(b, fused=not self.loop.eager)
        ins = 16 * b.tokens + 4 * b.seqs * 64  # token ids, positions, slot mapping, block tables
        first = self._copy(MEMCPY_H2D, ins, "cudaMemcpyAsync").start
        graphed = not self.loop.eager and b.tokens <= GRAPH_MAX_TOKENS
        events = self._graph(kernels) if graphed else self._launch_each(kernels)
        out = self._copy(MEMCPY_D2H_PAGEABLE if self.loop.blocking else MEMCPY_D2H, 8 * b.seqs, "cudaMemcpyAsync")
        self._copy_end.append(out.end)
        if self.loop.blocking:
            sim.cpu_op(self.loop.readback_op, sim.u(15.0, 30.0))
            sim.synchronize()
            sim.cpu_op("process outputs / detokenize", step.process_us)
        elif k:
            self._event_sync(self._copy_end[k - 1])
            sim.cpu_op("process outputs / detokenize", step.process_us)
        sim.annotate(iteration_label(b), cpu_start, sim.cpu, Category.RANGE)
        sim.annotate(f"ProfilerStep#{self.first_step + k}", cpu_start, sim.cpu, Category.STEP)
        end = out.end
        start = self.done[-1].window[1] if self.done else first
        self.done.append(
            Done(
                b,
                (start, end),
                events[0].start,
                len(events),
                sum(e.dur for e in events),
                sum(c.flops for c in kernels),
                sum(c.nbytes for c in kernels),
                graphed,
            )
        )

    def _copy(self, name: str, nbytes: int, api: str) -> Event:
        us = 1.6 + nbytes / (self.sim.u(8.0, 12.0) * 1e3)  # small copies: latency-bound, ~10 GB/s effective
        return self.sim.launch(
            name, us, "memcpy", stream=COMPUTE_STREAM, api=api, category=Category.MEMCPY, args={"bytes": nbytes}
        )

    def _launch_each(self, kernels: list[KernelCost]) -> list[Event]:
        """Each kernel launched on its own, 3 % off its cost, then the wrapper's host time: RankSim.launch_run's
        loop (the same draws and floats as `launch(c.name, c.us * u(0.97, 1.03), c.kind)` then `idle_host`)."""
        sim = self.sim
        host = (self.loop.python_us * 0.7, self.loop.python_us * 1.3) if self.loop.eager else COMPILED_PY_US
        events = sim.streams[COMPUTE_STREAM].events
        first = len(events)
        sim.launch_run([(c.name, c.us, c.kind, None) for c in kernels], 1.0, 0.03, host)
        return events[first:]

    def _graph(self, kernels: list[KernelCost]) -> list[Event]:
        """cudaGraphLaunch: one API call; the captured kernels run back to back and carry its correlation."""
        sim, u = self.sim, self.sim.u
        corr = sim.next_correlation()
        cost = u(12.0, 22.0)
        sim.api.events.append(Event("cudaGraphLaunch", sim.cpu, cost, Category.LAUNCH, corr))
        sim.cpu += cost
        stream = sim.streams[COMPUTE_STREAM]
        t = max(sim.cpu + 1.5, sim.free[COMPUTE_STREAM] + u(0.8, 2.5))
        out = []
        for c in kernels:
            ev = Event(c.name, t, c.us * u(0.97, 1.03), Category.COMPUTE, corr, None, c.kind)
            stream.events.append(ev)
            out.append(ev)
            t = ev.end + u(*GRAPH_GAP_US)
        sim.free[COMPUTE_STREAM] = out[-1].end
        return out

    def _event_sync(self, until: float) -> None:
        """cudaEventSynchronize on an earlier iteration's copy: the host waits for that, not for the queue."""
        sim = self.sim
        dur = max(until - sim.cpu, 0.0) + sim.u(4.0, 10.0)
        sim.api.events.append(Event("cudaEventSynchronize", sim.cpu, dur, Category.SYNC))
        sim.cpu += dur


def _itl(run: EngineRun) -> None:
    """Inter-token latency of the decode streams: the time between consecutive iterations that give them a
    token (a prefill-only iteration gives none)."""
    last = 0.0
    for d in run.steps:
        if not d.batch.decodes:
            continue
        end = d.window[1]
        if last:
            run.itl_times.append(end)
            run.itl_values.append((end - last) / 1000.0)
        last = end
