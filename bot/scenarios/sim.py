"""A small discrete simulation of one rank: a Python thread launching work onto CUDA streams.

The host cursor advances with every API call; a kernel starts once it has been launched, its stream is
free and its dependencies are done. Host waits (synchronize, cudaMalloc, the dataloader) and a bounded
launch queue fall out of the same rules, so the pathologies are produced by mechanism, not painted on.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from .model import Category, Event, Rank, Track, TrackKind

COMPUTE_STREAM = 7
MEMCPY_STREAM = 14
NCCL_STREAM = 20

MAIN_THREAD = "python (main)"
CUDA_API = "CUDA API"
NVTX = "NVTX"
COMPUTE = f"Stream {COMPUTE_STREAM} (compute)"
MEMCPY = f"Stream {MEMCPY_STREAM} (memcpy)"
NCCL = f"Stream {NCCL_STREAM} (NCCL)"

# Hardware metric levels (SM active, tensor active, DRAM bandwidth) while a kernel of a kind runs.
METRICS: dict[str, tuple[float, float, float]] = {
    "gemm": (0.93, 0.72, 0.30),
    "attn": (0.90, 0.55, 0.35),
    "elementwise": (0.55, 0.0, 0.78),
    "norm": (0.60, 0.0, 0.70),
    "optimizer": (0.70, 0.0, 0.85),
    "nccl": (0.10, 0.0, 0.22),
    "memcpy": (0.0, 0.0, 0.10),
    "skinny_gemm": (0.88, 0.24, 0.88),
    "tiny": (0.20, 0.03, 0.15),
}


@dataclass(slots=True)
class PendingCollective:
    """A collective launched on this rank whose end depends on every rank."""

    name: str
    ready: float  # earliest start on this rank
    xfer_us: float  # time the wire needs once every rank has arrived
    correlation: int
    args: dict[str, object]


class Uniform:
    """Scalar uniforms drawn from a numpy Generator in blocks: scalar draws are the simulation's hot path.

    `buf[i:]` holds the draws not yet used. A block is drawn only when a value is asked for and none is left,
    so several sims sharing one Generator interleave their blocks the same way however the draws are read."""

    def __init__(self, rng: np.random.Generator, block: int = 4096) -> None:
        self.rng = rng
        self.block = block
        self.buf: list[float] = rng.random(block).tolist()
        self.i = 0

    def raw(self) -> float:
        """The next draw in [0, 1)."""
        i = self.i
        if i == len(self.buf):  # the same draws, block by block, as one long stream
            self.buf = self.rng.random(self.block).tolist()
            i = 0
        self.i = i + 1
        return self.buf[i]

    def __call__(self, lo: float, hi: float) -> float:
        i = self.i  # raw(), inlined: pipeline and serving drills call this hundreds of thousands of times
        if i == len(self.buf):
            self.buf = self.rng.random(self.block).tolist()
            i = 0
        self.i = i + 1
        return lo + (hi - lo) * self.buf[i]


class RankSim:
    def __init__(
        self,
        rank: int,
        rng: np.random.Generator,
        *,
        launch_us: tuple[float, float] = (4.0, 8.0),
        queue_depth: int = 96,
        dataloader_workers: int = 0,
        with_memcpy: bool = True,
        with_nccl: bool = False,
    ) -> None:
        self.rank = rank
        self.rng = rng
        self.u = Uniform(rng)
        self.launch_us = launch_us
        self.queue_depth = queue_depth
        self.cpu = 0.0
        self._correlation = rank * 1_000_000
        self.main = Track(MAIN_THREAD, TrackKind.CPU_THREAD)
        self.workers = [Track(f"dataloader worker {i}", TrackKind.CPU_THREAD) for i in range(dataloader_workers)]
        self.api = Track(CUDA_API, TrackKind.CUDA_API)
        self.nvtx = Track(NVTX, TrackKind.ANNOTATION)
        self.streams: dict[int, Track] = {COMPUTE_STREAM: Track(COMPUTE, TrackKind.GPU_STREAM, stream=7)}
        if with_memcpy:
            self.streams[MEMCPY_STREAM] = Track(MEMCPY, TrackKind.GPU_STREAM, stream=MEMCPY_STREAM)
        if with_nccl:
            self.streams[NCCL_STREAM] = Track(NCCL, TrackKind.GPU_STREAM, stream=NCCL_STREAM)
        self.free = {s: 0.0 for s in self.streams}
        self._queued: deque[float] = deque()  # start times of recently launched compute kernels

    # -- host side -------------------------------------------------------------------------------
    def next_correlation(self) -> int:
        self._correlation += 1
        return self._correlation

    def take_correlations(self, n: int) -> int:
        """`n` consecutive correlation ids, as `n` calls of next_correlation would give; returns the first."""
        first = self._correlation + 1
        self._correlation += n
        return first

    def cpu_op(self, name: str, dur: float, category: Category = Category.CPU_OP) -> Event:
        ev = Event(name, self.cpu, dur, category)
        self.main.events.append(ev)
        self.cpu += dur
        return ev

    def idle_host(self, dur: float) -> None:
        """Python work between launches that is not worth a bar (dispatch, autograd bookkeeping)."""
        self.cpu += dur

    def annotate(self, name: str, start: float, end: float, category: Category = Category.RANGE) -> None:
        self.nvtx.events.append(Event(name, start, end - start, category))

    def _api(self, name: str, dur: float, category: Category, correlation: int = 0) -> Event:
        ev = Event(name, self.cpu, dur, category, correlation)
        self.api.events.append(ev)
        self.cpu += dur
        return ev

    def gpu_drained_at(self) -> float:
        return max(self.free.values())

    # -- launches --------------------------------------------------------------------------------
    def launch(
        self,
        name: str,
        gpu_us: float,
        kind: str = "gemm",
        *,
        stream: int = COMPUTE_STREAM,
        after: float = 0.0,
        api: str = "cudaLaunchKernel",
        category: Category = Category.COMPUTE,
        args: dict[str, object] | None = None,
    ) -> Event:
        """Launch one kernel (or copy); returns the GPU event."""
        u = self.u
        lo, hi = self.launch_us
        cost = u(lo, hi)
        queued = self._queued
        cpu = self.cpu
        compute = stream == COMPUTE_STREAM
        if compute and len(queued) >= self.queue_depth:
            # The launch queue is full: the call blocks until the oldest queued kernel starts.
            oldest = queued.popleft()
            cost = max(cost, oldest - cpu + cost)
        self._correlation += 1
        corr = self._correlation
        self.api.events.append(Event(api, cpu, cost, Category.LAUNCH, corr))
        cpu += cost
        self.cpu = cpu
        free = self.free
        start = max(cpu + 1.5, free[stream] + u(0.8, 2.5), after)
        ev = Event(name, start, gpu_us, category, corr, args, kind)
        self.streams[stream].events.append(ev)
        free[stream] = start + gpu_us
        if compute:
            queued.append(start)
            if len(queued) > self.queue_depth:
                queued.popleft()
        return ev

    def launch_run(
        self,
        kernels: list[tuple[str, float, str, dict[str, object] | None]],
        slow: float,
        spread: float,
        host_us: tuple[float, float],
    ) -> None:
        """Compute kernels `(name, gpu_us, kind, args)`, each followed by host time: the hot path of training drills.

        The same draws, floats and events as `launch(name, gpu_us * slow * u(1 - spread, 1 + spread), kind,
        args=dict(args))` then `idle_host(u(*host_us))` per kernel, with the four draws read straight from the block."""
        u = self.u
        buf, i = u.buf, u.i
        n = len(buf)
        jit_lo, jit_w = 1.0 - spread, (1.0 + spread) - (1.0 - spread)
        (cost_lo, cost_hi), (host_lo, host_hi) = self.launch_us, host_us
        cost_w, host_w, gap_lo, gap_w = cost_hi - cost_lo, host_hi - host_lo, 0.8, 2.5 - 0.8
        depth = self.queue_depth
        queued = self._queued
        api_events = self.api.events
        gpu_events = self.streams[COMPUTE_STREAM].events
        free = self.free[COMPUTE_STREAM]
        cpu = self.cpu
        corr = self._correlation
        launch, compute = Category.LAUNCH, Category.COMPUTE
        for name, gpu_us, kind, args in kernels:
            if i + 4 <= n:
                x0, x1, x2, x3 = buf[i], buf[i + 1], buf[i + 2], buf[i + 3]
                i += 4
            else:  # across a block boundary: draw one by one, so the next block comes at the same moment
                u.i = i
                x0, x1, x2, x3 = u.raw(), u.raw(), u.raw(), u.raw()
                buf, i = u.buf, u.i
                n = len(buf)
            dur = gpu_us * slow * (jit_lo + jit_w * x0)
            cost = cost_lo + cost_w * x1
            if len(queued) >= depth:  # the launch queue is full: block until the oldest queued kernel starts
                blocked = queued.popleft() - cpu + cost  # max(cost, blocked), as max() picks between equals
                if blocked > cost:
                    cost = blocked
            corr += 1
            api_events.append(Event("cudaLaunchKernel", cpu, cost, launch, corr))
            cpu += cost
            # max(cpu + 1.5, free + gap, 0.0), spelled out: the first of equal values, as max() returns
            start = cpu + 1.5
            after_free = free + (gap_lo + gap_w * x2)
            if after_free > start:
                start = after_free
            if start < 0.0:
                start = 0.0
            gpu_events.append(Event(name, start, dur, compute, corr, dict(args) if args else None, kind))
            free = start + dur
            queued.append(start)  # at most `depth` long: one was popped above if it was full
            cpu += host_lo + host_w * x3
        u.i = i
        self.free[COMPUTE_STREAM] = free
        self.cpu = cpu
        self._correlation = corr

    def memcpy(self, name: str, gpu_us: float, nbytes: int, *, after: float = 0.0) -> Event:
        return self.launch(
            name,
            gpu_us,
            "memcpy",
            stream=MEMCPY_STREAM,
            after=after,
            api="cudaMemcpyAsync",
            category=Category.MEMCPY,
            args={"bytes": nbytes},
        )

    def wait_stream(self, stream: int, until: float) -> None:
        """cudaStreamWaitEvent: later work on `stream` starts no earlier than `until`."""
        self.free[stream] = max(self.free[stream], until)

    def synchronize(self, api: str = "cudaStreamSynchronize") -> Event:
        """The host blocks until the GPU has drained everything queued so far."""
        drained = self.gpu_drained_at()
        dur = max(drained - self.cpu, 0.0) + (self.u(6.0, 14.0))
        self._queued.clear()
        return self._api(api, dur, Category.SYNC)

    def malloc(self, alloc_us: float, api: str = "cudaMalloc") -> Event:
        """cudaMalloc / cudaFree synchronise the device, then pay for the allocation itself."""
        drained = self.gpu_drained_at()
        dur = max(drained - self.cpu, 0.0) + alloc_us
        self._queued.clear()
        return self._api(api, dur, Category.MALLOC)

    def collective(self, name: str, xfer_us: float, nbytes: int, *, after: float | None = None) -> PendingCollective:
        """Launch a collective on the NCCL stream; it may start once the compute work before it is done."""
        lo, hi = self.launch_us
        cost = self.u(lo, hi)
        corr = self.next_correlation()
        cpu = self.cpu  # _api(), inlined: data-parallel drills launch one collective per gradient bucket
        self.api.events.append(Event("cudaLaunchKernel", cpu, cost, Category.LAUNCH, corr))
        self.cpu = cpu + cost
        dep = self.free[COMPUTE_STREAM] if after is None else after
        ready = max(cpu + cost + 1.5, dep)
        return PendingCollective(name, ready, xfer_us, corr, {"bytes": nbytes})

    def rank_model(self) -> Rank:
        tracks = [self.main, *self.workers, self.api, self.nvtx, *self.streams.values()]
        return Rank(self.rank, tracks)


def resolve_collectives(sims: list[RankSim], pendings: list[list[PendingCollective]]) -> list[float]:
    """Collectives are barriers: the k-th one ends at the same time on every rank.

    `pendings[r]` is rank r's list, in issue order. Each rank's kernel starts when that rank arrives
    (and its NCCL stream is free); the transfer begins once the last rank arrives. Returns the end times.
    """
    ends: list[float] = []
    streams = [sim.streams[NCCL_STREAM].events for sim in sims]
    free = [sim.free[NCCL_STREAM] for sim in sims]  # after the first collective, its end on every rank
    for column in zip(*pendings, strict=True):  # the k-th collective of every rank
        starts = [max(p.ready, f) for p, f in zip(column, free, strict=True)]
        end = max(starts) + column[0].xfer_us
        for events, p, start in zip(streams, column, starts, strict=True):
            events.append(Event(p.name, start, end - start, Category.NCCL, p.correlation, dict(p.args), "nccl"))
        free = [end] * len(sims)
        ends.append(end)
    for sim, f in zip(sims, free, strict=True):
        sim.free[NCCL_STREAM] = f
    return ends


def jitter(u: Uniform, value: float, spread: float) -> float:
    """`value` scaled by a factor in [1 - spread, 1 + spread]."""
    return value * u(1.0 - spread, 1.0 + spread)
