"""The 1F1B pipeline schedule as a dependency simulation: start times of every forward and backward."""

from __future__ import annotations

from dataclasses import dataclass

from .kernels import NCCL_SENDRECV
from .model import Category, Trace


@dataclass(frozen=True, slots=True)
class PipeOp:
    stage: int
    micro: int
    backward: bool
    start: float
    end: float


def one_f_one_b_order(stage: int, stages: int, micros: int) -> list[tuple[bool, int]]:
    """(is_backward, micro-batch) in the order one stage runs them under 1F1B."""
    warmup = min(stages - stage - 1, micros)
    order: list[tuple[bool, int]] = [(False, m) for m in range(warmup)]
    f, b = warmup, 0
    while f < micros:
        order.append((False, f))
        order.append((True, b))
        f += 1
        b += 1
    order += [(True, m) for m in range(b, micros)]
    return order


def schedule(
    stages: int, micros: int, fwd_us: list[float], bwd_us: list[float], p2p_us: float, t0: float = 0.0
) -> list[PipeOp]:
    """Place every op: a stage runs its ops in 1F1B order; F(s, m) needs F(s−1, m), B(s, m) needs B(s+1, m)
    (the last stage's backward needs its own forward); activations and gradients cross in `p2p_us`."""
    orders = [one_f_one_b_order(s, stages, micros) for s in range(stages)]
    done: dict[tuple[int, int, bool], float] = {}
    cursor = [0] * stages
    free = [t0] * stages
    placed: list[PipeOp] = []
    remaining = sum(len(o) for o in orders)
    while remaining:
        progressed = False
        for s in range(stages):
            while cursor[s] < len(orders[s]):
                backward, m = orders[s][cursor[s]]
                if backward:
                    dep = done.get((s + 1, m, True)) if s < stages - 1 else done.get((s, m, False))
                else:
                    dep = done.get((s - 1, m, False)) if s > 0 else t0
                if dep is None:
                    break
                ready = dep + (p2p_us if (backward and s < stages - 1) or (not backward and s > 0) else 0.0)
                start = max(free[s], ready)
                end = start + (bwd_us[s] if backward else fwd_us[s])
                done[(s, m, backward)] = end
                free[s] = end
                placed.append(PipeOp(s, m, backward, start, end))
                cursor[s] += 1
                remaining -= 1
                progressed = True
        if not progressed:
            raise RuntimeError("1F1B schedule deadlocked")
    return placed


def ideal_bubble_fraction(stages: int, micros: int) -> float:
    return (stages - 1) / (micros + stages - 1)


def is_pipeline(trace: Trace) -> bool:
    """Ranks that are pipeline stages: more than one, exchanging activations point to point. Read from the trace,
    so every drill of the pipeline family is drawn and named alike whatever is injected."""
    if trace.world_size < 2:
        return False
    return any(e.name == NCCL_SENDRECV for e in trace.ranks[0].kernels() if e.category is Category.NCCL)
