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


# Conclusions that must not appear in a trace's labels (event names, rows, NVTX ranges, counters, args) or in the
# text timeline. API and op names that are the evidence (cudaStreamSynchronize, aten::item, cudaMalloc) are not
# here: a real trace shows them, and reading them is the drill.
TRACE_GIVEAWAYS: dict[str, tuple[str, ...]] = {
    "unoverlapped_allreduce": ("unoverlap", "serialis", "serializ", "not overlapped", "exposed"),
    "input_starvation": ("starv", "dataloader is slow", "input pipeline", "waiting for data"),
    "launch_bound": ("launch-bound", "launch bound", "picket", "eager dispatch", "per-op python", "launch overhead"),
    "memory_bound_kernel": ("memory-bound", "memory bound", "bandwidth-bound", "bandwidth bound", "skinny"),
    "straggler": ("straggl", "throttl", "slow rank", "slow gpu"),
    "pipeline_bubbles": ("bubble", "fill", "drain"),
    "sync_stall": ("sync stall", "stall", "drains the"),
    "alloc_stall": ("allocator miss", "fragment", "alloc stall", "stall"),
    "healthy": ("healthy", "nothing wrong"),
    "prefill_blocks_decode": ("head-of-line", "blocks decode", "+ 0 decode", "0 decode", "blocked", "stall"),
}


def trace_words_for(signature: str) -> tuple[str, ...]:
    return (*TRACE_GIVEAWAYS[signature], signature, signature.replace("_", " "))
