"""Running a data-parallel training scenario: ranks, the loop, and the per-rank breakdown."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .common import TrainingSetup, finish
from .figures import mean_breakdown
from .model import Annotation, Context, Hardware, Rank, Reveal, Scenario
from .sim import RankSim
from .training import DataLoaderSpec, LoopSpec, Op, run_loop

N_STEPS = 5
COMPILED_LAUNCH_US = (2.5, 4.0)
COMPILED_HOST_US = (1.0, 3.0)  # four steady steps for HTA (it drops the last) plus the one it drops


@dataclass(slots=True)
class DPRun:
    ranks: list[Rank]
    windows: list[list[tuple[float, float]]]  # per rank
    breakdown: list[dict[str, float]]  # per rank, mean over steps
    first_step_number: int

    @property
    def rank0(self) -> dict[str, float]:
        return self.breakdown[0]


def run_dp(
    setup: TrainingSetup,
    rng: np.random.Generator,
    program: list[Op],
    *,
    simulated_ranks: int = 1,
    dataloader: DataLoaderSpec | None = None,
    slow_factor: dict[int, float] | None = None,
    with_nccl: bool = True,
    queue_depth: int = 96,
    compiled: bool = False,
    distractors: bool = False,
) -> DPRun:
    """`compiled`: a torch.compile'd step, whose generated wrapper launches each kernel in a few µs instead of
    eager PyTorch's ~10–30 µs of Python and dispatch."""
    sims = [
        RankSim(
            r,
            rng,
            dataloader_workers=dataloader.workers if dataloader else 0,
            with_nccl=with_nccl,
            queue_depth=queue_depth,
            launch_us=COMPILED_LAUNCH_US if compiled else (4.0, 8.0),
        )
        for r in range(simulated_ranks)
    ]
    spec = LoopSpec(
        N_STEPS,
        program,
        dataloader,
        slow_factor or {},
        first_step_number=int(rng.integers(20, 400)),
        host_us=COMPILED_HOST_US if compiled else (8.0, 20.0),
        distractors=distractors,
    )
    windows = run_loop(sims, setup.hw, spec)
    ranks = [s.rank_model() for s in sims]
    # Steady state: the first window opens on the lead-in, which a reader cannot see the start of.
    breakdown = [mean_breakdown(r, w[1:]) for r, w in zip(ranks, windows, strict=True)]
    return DPRun(ranks, windows, breakdown, spec.first_step_number)


def finish_training(
    signature: str,
    seed: int,
    difficulty: str,
    hw: Hardware,
    context: Context,
    run: DPRun,
    figures: dict[str, float],
    reveal: Reveal,
    annotations: list[Annotation],
) -> Scenario:
    """A data-parallel training drill: rank 0's windows are the steps a reader counts."""
    return finish(
        signature,
        seed,
        difficulty,
        hw,
        context,
        run.ranks,
        "training",
        run.windows[0],
        figures,
        reveal,
        annotations,
        run.first_step_number,
    )
