"""The pipeline-parallel family: one job draw and one context for every signature it hosts.

Every pipeline drill (pipeline_bubbles, healthy, straggler, memory_bound_kernel) draws its GPU, model and stage
count from the same pools and is told the same words; what differs — the micro-batch count per step, the tokens per
micro-batch, one stage's clock — is only in the trace (NVTX ranges per micro-batch, the bytes each send/recv carries,
per-stage kernel times, the GPU-metrics rows), never in the context. The context names no sequence length: a
memory-bound pipeline runs micro-batches of a few dozen tokens, the others one 2,048- or 4,096-token sequence each.

Physics: each of the p stages holds L/p blocks, split over TP=8 GPUs of one node; a micro-batch's forward on a
stage costs 2·(params per GPU)·tokens FLOPs at the drawn kernel efficiency, backward twice that. The last stage
also runs the LM head. Memory per GPU: 16 bytes per parameter (BF16 weights and grads, FP32 master and Adam moments,
no data parallelism to shard them over) plus the activations 1F1B keeps in flight (stage 0 holds p micro-batches of
L/p blocks: 34·s·h bytes per block and micro-batch with sequence parallelism, over TP).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .common import ACTIVATION_BYTES, ADAM_BYTES_PER_PARAM, MEMORY_HEADROOM, WORKSPACE_GB, Model, pick
from .hardware import TRAINING_GPUS
from .model import Context, Hardware

TP = 8  # tensor parallelism inside a node: a stage is one 8-GPU node
PIPE_MODELS: tuple[Model, ...] = (
    Model("34B dense", 34.0, 48, 8192),
    Model("70B dense", 70.0, 80, 8192),
    Model("175B GPT-style", 175.0, 96, 12288),
)
PIPE_STAGES: tuple[int, ...] = (4, 4, 8)
PIPE_SEQS: tuple[int, ...] = (2048, 4096)
# The LM head on the last stage: Llama-2's 32,000-token vocabulary, GPT-3's 50,257.
VOCAB = {"34B dense": 32_000, "70B dense": 32_000, "175B GPT-style": 50_257}
EFFICIENCY = (0.45, 0.58)  # fraction of peak the GEMM-heavy stage kernels deliver
# FusedAdam per parameter: reads FP32 master, both moments and the BF16 grad, writes master, moments, BF16 weight.
ADAM_BYTES_MOVED = 28.0
# Megatron's scatter-gather p2p: each TP rank sends 1/TP of a micro-batch's activations over its own NIC.
P2P_LATENCY_US = 30.0
ACHIEVABLE_NIC_FRACTION = 0.8

NVIDIA_SMI_DETAIL = "nvidia-smi shows 100% GPU-Util on every GPU."
# No figure and no schedule word in a complaint: the step time and the micro-batch count depend on what is injected.
_COMPLAINTS = (
    "Before the run is scaled up, the lead wants a read of the profile: is anything left to win?",
    "Throughput is below the team's estimate. Someone wants more nodes; the lead wants the profile read first.",
    "A new hire says the profile proves the GPUs are 'fully used'. Are they?",
    "After last week's changes nobody agrees whether this step time is as good as it gets.",
    "The team blames the cluster for slow steps and wants to file a ticket. Read the profile first.",
    "The team wants to add pipeline stages for the next model size; the lead wants this profile read first.",
)


@dataclass(frozen=True, slots=True)
class PipeJob:
    hw: Hardware
    model: Model
    stages: int
    seq: int  # tokens per micro-batch (one sequence)
    efficiency: float
    micros: int  # micro-batches per step: set by the signature, read from the trace

    def with_micros(self, micros: int) -> PipeJob:
        return replace(self, micros=micros)

    def with_seq(self, seq: int) -> PipeJob:
        return replace(self, seq=seq)

    @property
    def vocab(self) -> int:
        return VOCAB[self.model.name]

    @property
    def params_per_gpu(self) -> float:
        return self.model.params_b * 1e9 / (self.stages * TP)

    def _us(self, flops: float) -> float:
        return flops / (self.hw.bf16_tflops * 1e12 * self.efficiency) * 1e6

    @property
    def fwd_us(self) -> float:
        """One micro-batch's forward through one stage's blocks, on one GPU of its TP group."""
        return self._us(2.0 * self.params_per_gpu * self.seq)

    @property
    def head_fwd_us(self) -> float:
        return self._us(2.0 * self.vocab * self.model.hidden / TP * self.seq)

    @property
    def optimizer_us(self) -> float:
        return self.params_per_gpu * ADAM_BYTES_MOVED / (self.hw.dram_gbps * 1e9) * 1e6

    @property
    def p2p_bytes(self) -> float:
        return self.seq * self.model.hidden * 2.0 / TP

    @property
    def p2p_us(self) -> float:
        return P2P_LATENCY_US + self.p2p_bytes / (self.hw.ib_gbps * ACHIEVABLE_NIC_FRACTION * 1e9) * 1e6

    @property
    def flops_per_step(self) -> float:
        """Model FLOPs of one step over every GPU of the pipeline: 6·N·tokens, N the blocks plus the LM head."""
        return 6.0 * (self.model.params_b * 1e9 + self.vocab * self.model.hidden) * self.seq * self.micros

    def mfu(self, step_us: float) -> float:
        gpus = self.stages * TP
        return self.flops_per_step / (gpus * step_us * 1e-6 * self.hw.bf16_tflops * 1e12)

    @property
    def memory_gb(self) -> float:
        states = ADAM_BYTES_PER_PARAM * self.params_per_gpu
        activations = ACTIVATION_BYTES * self.seq * self.model.hidden * self.model.blocks / TP
        return (states + activations) / 1e9 + WORKSPACE_GB

    @property
    def fits(self) -> bool:
        return self.memory_gb <= MEMORY_HEADROOM * self.hw.memory_gb


def draw_pipe_job(rng: np.random.Generator) -> PipeJob:
    """GPU, model, stages and sequence from the family's pools (a pair that does not fit is redrawn); the
    micro-batch count is left at 0 for the signature to set."""
    for _ in range(200):
        job = PipeJob(
            pick(rng, TRAINING_GPUS),
            pick(rng, PIPE_MODELS),
            int(pick(rng, PIPE_STAGES)),
            int(pick(rng, PIPE_SEQS)),
            float(rng.uniform(*EFFICIENCY)),
            0,
        )
        if job.fits:
            return job
    raise RuntimeError("no drawn pipeline job fits in memory")  # a table error, not bad luck


def pipeline_context(rng: np.random.Generator, job: PipeJob, difficulty: str) -> Context:
    """What every pipeline drill is told: the job, never the micro-batch count, its tokens or a stage's health."""
    hw, model = job.hw, job.model
    details = (NVIDIA_SMI_DETAIL,) if difficulty == "hard" else ()
    return Context(
        title=f"{job.stages * TP}×{hw.name} · {model.name} · LLM pre-training",
        hardware=f"{job.stages} nodes × 8 {hw.name} ({hw.link} inside a node)",
        model=f"{model.name}, BF16, AdamW",
        parallelism=f"{job.stages}-stage pipeline (1F1B) × TP=8 (traces: one rank per stage)",
        complaint=str(pick(rng, _COMPLAINTS)),
        details=details,
    )
