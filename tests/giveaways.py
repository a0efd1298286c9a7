"""Words that would give a signature away if they appeared in what a person is told before the reveal."""

from __future__ import annotations

GIVEAWAYS: dict[str, tuple[str, ...]] = {
    "unoverlapped_allreduce": ("unoverlap", "serialis", "serializ", "bucket"),
    "input_starvation": ("starv", "dataloader is slow", "input pipeline"),
    "launch_bound": ("launch-bound", "launch bound", "picket", "cuda graph"),
    "memory_bound_kernel": ("memory-bound", "memory bound", "bandwidth-bound", "roofline ridge"),
    "straggler": ("straggl", "throttl", "slow rank", "reprovision"),
    "pipeline_bubbles": ("bubble",),
    "sync_stall": ("synchroni", ".item()", "sync stall"),
    "alloc_stall": ("cudamalloc", "allocator", "fragment", "empty_cache"),
    "healthy": ("healthy", "nothing wrong"),
    "prefill_blocks_decode": ("head-of-line", "blocks decode", "chunked"),
}


def words_for(signature: str) -> tuple[str, ...]:
    return (*GIVEAWAYS[signature], signature, signature.replace("_", " "))
