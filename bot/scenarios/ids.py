"""The signature ids and difficulties: pinned names other parts of the product and outside checks use.

Kept free of heavy imports so the CLI can validate arguments without loading numpy.
"""

from __future__ import annotations

SIGNATURE_IDS: tuple[str, ...] = (
    "unoverlapped_allreduce",
    "input_starvation",
    "launch_bound",
    "memory_bound_kernel",
    "straggler",
    "pipeline_bubbles",
    "sync_stall",
    "alloc_stall",
    "healthy",
    "prefill_blocks_decode",
)

DIFFICULTIES: tuple[str, ...] = ("easy", "medium", "hard")

TWINS: dict[str, str] = {
    "straggler": "unoverlapped_allreduce",
    "unoverlapped_allreduce": "straggler",
    "sync_stall": "alloc_stall",
    "alloc_stall": "sync_stall",
    "healthy": "memory_bound_kernel",
    "memory_bound_kernel": "healthy",
}

MAX_SEED = 2**63 - 1
