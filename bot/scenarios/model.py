"""A platform-free, renderer-free model of a profiler trace and of a drill scenario.

Times are microseconds from the start of the trace. The model is plain data: generators build it, the
renderer draws it, the exporter writes it as Kineto JSON, and ground truth is computed from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from operator import attrgetter
from typing import Any

import numpy as np


class TrackKind(StrEnum):
    CPU_THREAD = "cpu_thread"
    CUDA_API = "cuda_api"
    ANNOTATION = "annotation"
    GPU_STREAM = "gpu_stream"
    COUNTER = "counter"


class Category(StrEnum):
    """What an event is; the renderer colours by it and the exporter maps it to a Kineto category."""

    COMPUTE = "compute"  # a kernel on a compute stream
    NCCL = "nccl"  # a collective kernel
    MEMCPY = "memcpy"  # a copy on the GPU
    LAUNCH = "launch"  # cudaLaunchKernel / cudaMemcpyAsync on the CUDA API row
    SYNC = "sync"  # cudaStreamSynchronize / cudaDeviceSynchronize
    MALLOC = "malloc"  # cudaMalloc / cudaFree
    CPU_OP = "cpu_op"  # python / aten work on a CPU thread
    DATALOADER = "dataloader"  # worker decode, or the main thread waiting on next(dataloader)
    STEP = "step"  # ProfilerStep#N
    RANGE = "range"  # other annotations: forward, backward, optimizer, scheduler iterations
    MARKER = "marker"  # an instant event, e.g. a request arrival


@dataclass(slots=True)
class Event:
    name: str
    start: float
    dur: float
    category: Category
    correlation: int = 0  # links a CUDA API launch to the kernel it launched; 0 = none
    args: dict[str, Any] | None = None
    kind: str = ""  # for kernels: what hardware levels it reaches (sim.METRICS key)

    @property
    def end(self) -> float:
        return self.start + self.dur


@dataclass(slots=True)
class Track:
    name: str
    kind: TrackKind
    events: list[Event] = field(default_factory=list)
    stream: int | None = None  # CUDA stream id for GPU streams
    # Counter tracks: sample times (µs, left edge of each sample) and values (percent, or the unit).
    sample_times: list[float] = field(default_factory=list)
    sample_values: list[float] = field(default_factory=list)
    unit: str = ""


@dataclass(slots=True)
class Rank:
    rank: int
    tracks: list[Track]

    def track(self, name: str) -> Track:
        for t in self.tracks:
            if t.name == name:
                return t
        raise KeyError(name)

    def tracks_of(self, kind: TrackKind) -> list[Track]:
        return [t for t in self.tracks if t.kind is kind]

    def kernels(self) -> list[Event]:
        return [e for t in self.tracks_of(TrackKind.GPU_STREAM) for e in t.events]


_START, _DUR = attrgetter("start"), attrgetter("dur")


@dataclass(slots=True)
class Trace:
    """One profile: one or more ranks on a shared clock.

    `steps` are the GPU-side step windows (start, end) in µs on rank 0's clock; for a serving trace they
    are scheduler iterations.
    """

    ranks: list[Rank]
    kind: str  # "training" | "serving"
    steps: list[tuple[float, float]]
    first_step_number: int = 0

    @property
    def world_size(self) -> int:
        return len(self.ranks)

    @property
    def end(self) -> float:
        # Tracks hold tens of thousands of events: sum and max in numpy (same floats as Event.end).
        ends = [
            float(
                (
                    np.fromiter(map(_START, t.events), float, len(t.events))
                    + np.fromiter(map(_DUR, t.events), float, len(t.events))
                ).max()
            )
            for r in self.ranks
            for t in r.tracks
            if t.events
        ]
        return max(ends, default=0.0)


@dataclass(frozen=True, slots=True)
class Hardware:
    """One GPU model's published datasheet figures (dense, i.e. without 2:4 sparsity). See hardware.py."""

    name: str
    arch: str  # "sm90", "sm80", "sm89", "sm100": picks kernel name families
    bf16_tflops: float  # dense peak
    hbm_gbps: float  # device-memory bandwidth, GB/s (HBM or GDDR: see memory_type)
    link_gbps: float  # per-GPU scale-up bandwidth a ring uses, GB/s, one direction (NVLink, else PCIe)
    link: str  # "NVLink" | "PCIe"
    memory_gb: int
    sm_clock_mhz: int
    memory_type: str = "HBM3"  # "HBM2e" | "HBM3" | "HBM3e" | "GDDR6"
    fp8_tflops: float = 0.0  # dense FP8 peak; 0 where the tensor cores have no FP8 (A100)
    nvlink_gbps: float = 0.0  # NVLink per GPU, GB/s, one direction; 0 without NVLink
    pcie_gbps: float = 0.0  # PCIe x16 to the host, GB/s, one direction
    ib_gbps: float = 0.0  # scale-out NIC per GPU (InfiniBand / RoCE), GB/s, one direction
    sms: int = 0
    compute_capability: tuple[int, int] = (9, 0)

    @property
    def ridge_flop_per_byte(self) -> float:
        """Arithmetic intensity where the roofline turns from memory- to compute-bound."""
        return self.bf16_tflops * 1e12 / (self.hbm_gbps * 1e9)

    @property
    def dram_gbps(self) -> float:
        """Device-memory bandwidth whatever the memory type (the field keeps its historical name)."""
        return self.hbm_gbps


@dataclass(frozen=True, slots=True)
class Context:
    """What a person would be told in the interview: never the answer."""

    title: str  # e.g. "8×H100 · 8B dense · DDP fine-tune"
    hardware: str
    model: str
    parallelism: str
    complaint: str
    details: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [
            f"Hardware: {self.hardware}",
            f"Model: {self.model}",
            f"Parallelism: {self.parallelism}",
            *self.details,
            f"Complaint: {self.complaint}",
        ]


@dataclass(frozen=True, slots=True)
class Reveal:
    """The explanation posted after the deadline, with this scenario's own numbers."""

    headline: str  # the signature, named
    read: tuple[tuple[str, str], ...]  # (reading step, what it shows), in the reading order
    wrong_hypothesis: str
    measurement: str
    fix: str
    arithmetic: tuple[str, ...]  # before → after lines
    spoken: str  # the 60-second version
    tell: str  # how to tell it from its twin (or a near-miss)

    def as_text(self) -> str:
        parts = [self.headline, ""]
        parts += [f"{step}. {text}" for step, text in self.read]
        parts += ["", f"Wrong hypothesis: {self.wrong_hypothesis}", "", f"Confirm: {self.measurement}"]
        parts += ["", f"Fix: {self.fix}", *[f"  {line}" for line in self.arithmetic]]
        parts += ["", f"Tell: {self.tell}", "", f"In 60 seconds: “{self.spoken}”"]
        return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class Annotation:
    """Evidence the reveal image marks: a time span on one rank's track, with a callout."""

    rank: int
    track: str
    start: float
    end: float
    label: str


@dataclass(slots=True)
class Scenario:
    signature: str
    seed: int
    difficulty: str
    hardware: Hardware
    context: Context
    trace: Trace
    figures: dict[str, float]
    reveal: Reveal
    annotations: list[Annotation] = field(default_factory=list)
    zoom: tuple[float, float] | None = None  # a window worth an inset (launch_bound's picket fence)

    @property
    def key(self) -> tuple[str, int, str]:
        return (self.signature, self.seed, self.difficulty)
