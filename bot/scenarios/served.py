"""The physics of one served model on one GPU: shapes, weight and KV-cache bytes, and the kernels of one engine
iteration with durations from their FLOPs and bytes (a roofline with a realistic efficiency, never above peak).

A serving iteration runs every layer once over the tokens scheduled in it: the decode streams' one token each plus
any prefill tokens. Decode is weight-streaming (every weight is read once per iteration whatever the batch); a
prefill chunk adds FLOPs on the same weights. Kernel lists follow what the stacks launch per layer: a compiled
engine ~11 fused kernels (norm, QKV, rotary, KV write, attention, O, norm, gate-up, SiLU·mul, down), an eager
loop ~40 (every norm, rotary and cast its own kernel).
"""

from __future__ import annotations

from dataclasses import dataclass

from . import kernels as K
from .model import Hardware

BF16 = 2.0
GPU_FLOOR_US = 1.8  # a kernel's fixed cost on the device: launch latency, ramp and tail of the grid


@dataclass(frozen=True, slots=True)
class ServedModel:
    name: str
    layers: int
    hidden: int
    inter: int
    heads: int
    kv_heads: int
    vocab: int
    tied: bool = False  # the LM head shares the embedding's weights

    @property
    def head_dim(self) -> int:
        return self.hidden // self.heads

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    @property
    def layer_params(self) -> int:
        h = self.hidden
        return h * (h + 2 * self.kv_dim) + h * h + 3 * h * self.inter

    @property
    def params(self) -> int:
        return self.layers * self.layer_params + self.vocab * self.hidden * (1 if self.tied else 2)

    @property
    def kv_bytes_per_token(self) -> float:
        """K and V of one token in every layer, BF16."""
        return 2.0 * self.layers * self.kv_dim * BF16


# Llama-2-7B (MHA), Llama-3-8B (GQA, 128k vocabulary), Qwen2.5-3B (GQA, tied embeddings): 6.7, 8.0, 3.1 B.
SERVED_MODELS: tuple[ServedModel, ...] = (
    ServedModel("Llama-style 7B chat", 32, 4096, 11008, 32, 32, 32000),
    ServedModel("Llama-style 8B chat", 32, 4096, 14336, 32, 8, 128256),
    ServedModel("Qwen-style 3B chat", 36, 2048, 11008, 16, 2, 151936, tied=True),
)


@dataclass(frozen=True, slots=True)
class Precision:
    label: str  # as the model line says it
    weight_bytes: float  # per parameter
    fp8_compute: bool  # W8A8 on FP8 tensor cores (else the weights are dequantised to BF16 in the GEMM)


PRECISIONS: tuple[Precision, ...] = (
    Precision("INT8 weight-only", 1.0, False),
    Precision("FP8", 1.0, True),
    Precision("BF16", 2.0, False),
)


def gemm_peak_tflops(hw: Hardware, p: Precision) -> float:
    """FP8 GEMMs run on FP8 tensor cores where the GPU has them; an A100 dequantises FP8 weights to BF16."""
    return hw.fp8_tflops if p.fp8_compute and hw.fp8_tflops else hw.bf16_tflops


# Efficiencies: the fraction of peak a kernel of each class sustains (GEMMs ~62% of FLOPs or ~82% of bandwidth;
# decode attention reads the KV cache at ~72%; small elementwise kernels reach ~60% of bandwidth).
GEMM_COMPUTE, GEMM_MEMORY = 0.62, 0.82
ATTN_COMPUTE, ATTN_MEMORY = 0.45, 0.72
ELEMENTWISE_MEMORY = 0.6


@dataclass(frozen=True, slots=True)
class KernelCost:
    name: str
    kind: str  # sim.METRICS key: which hardware levels the kernel reaches
    flops: float
    nbytes: float
    us: float  # duration on the device


def roofline_us(flops: float, nbytes: float, peak_tflops: float, gbps: float, ce: float, me: float) -> float:
    return max(flops / (peak_tflops * 1e12 * ce), nbytes / (gbps * 1e9 * me)) * 1e6 + GPU_FLOOR_US


@dataclass(frozen=True, slots=True)
class Batch:
    """What one iteration computes: `decodes` streams one token each over `ctx` cached tokens on average, and
    `prefill` prompt tokens after `prefix` tokens of the same prompt already cached."""

    decodes: int
    ctx: int
    prefill: int = 0
    prefix: float = 0.0  # of several prompts' pieces: the one prefix with the same attention work (may be < 0)

    @property
    def tokens(self) -> int:
        return self.decodes + self.prefill

    @property
    def seqs(self) -> int:
        return self.decodes + (1 if self.prefill else 0)


class Costs:
    """Kernel costs of `model` at `precision` on `hw`."""

    def __init__(self, hw: Hardware, model: ServedModel, precision: Precision) -> None:
        self.hw, self.m, self.p = hw, model, precision
        self.peak = gemm_peak_tflops(hw, precision)
        self.ridge = self.peak * 1e12 / (hw.dram_gbps * 1e9)
        self.names = gemm_names(hw, precision)

    def gemm(self, tokens: int, k: int, n: int) -> KernelCost:
        flops = 2.0 * tokens * k * n
        nbytes = k * n * self.p.weight_bytes + tokens * (k + n) * BF16
        us = roofline_us(flops, nbytes, self.peak, self.hw.dram_gbps, GEMM_COMPUTE, GEMM_MEMORY)
        bound = flops / nbytes >= self.ridge
        name = self.names[0] if bound else self.names[1]
        return KernelCost(name, "gemm" if bound else "skinny_gemm", flops, nbytes, us)

    def elementwise(
        self, name: str, tokens: int, width: int, passes: float = 3.0, kind: str = "elementwise"
    ) -> KernelCost:
        nbytes = passes * tokens * width * BF16
        us = roofline_us(0.0, nbytes, 1.0, self.hw.dram_gbps, 1.0, ELEMENTWISE_MEMORY)
        return KernelCost(name, kind, 0.0, nbytes, us)

    def decode_attention(self, b: Batch) -> list[KernelCost]:
        if not b.decodes:
            return []
        m = self.m
        kv = b.decodes * b.ctx * m.kv_dim * 2 * BF16  # this layer's K and V of every stream
        flops = 4.0 * b.decodes * b.ctx * m.hidden
        us = roofline_us(flops, kv, self.hw.bf16_tflops, self.hw.dram_gbps, ATTN_COMPUTE, ATTN_MEMORY)
        combine = self.elementwise(K_COMBINE, b.decodes, m.hidden, 4.0)
        return [KernelCost(K.FLASH_DECODE, "attn", flops, kv, us), combine]

    def prefill_attention(self, b: Batch) -> list[KernelCost]:
        if not b.prefill:
            return []
        m = self.m
        flops = 4.0 * b.prefill * (b.prefix + b.prefill / 2) * m.hidden  # causal: QKᵀ and PV
        nbytes = (max(b.prefix, 0.0) + b.prefill) * m.kv_dim * 2 * BF16 + 2 * b.prefill * m.hidden * BF16
        us = roofline_us(flops, nbytes, self.hw.bf16_tflops, self.hw.dram_gbps, ATTN_COMPUTE, ATTN_MEMORY)
        return [KernelCost(K.FLASH_FWD, "attn", flops, nbytes, us)]

    def layer(self, b: Batch, fused: bool) -> list[KernelCost]:
        """One transformer layer's kernels over batch `b`, in launch order."""
        m, t, h = self.m, b.tokens, self.m.hidden
        qkv = self.gemm(t, h, h + 2 * m.kv_dim)
        o, gate_up, down = self.gemm(t, h, h), self.gemm(t, h, 2 * m.inter), self.gemm(t, m.inter, h)
        attention = [*self.prefill_attention(b), *self.decode_attention(b)]
        if fused:
            ew = self.elementwise
            return [
                ew(K.RMSNORM, t, h, 3.0, "norm"),
                qkv,
                ew(K.ROTARY, t, h + m.kv_dim, 2.0),
                ew(K_KV_WRITE, t, 2 * m.kv_dim, 2.0),
                *attention,
                o,
                ew(K.RMSNORM, t, h, 3.0, "norm"),
                gate_up,
                ew(K.SILU, t, m.inter, 3.0),
                down,
            ]
        return self._eager_layer(b, qkv, o, gate_up, down, attention)

    def _eager_layer(
        self,
        b: Batch,
        qkv: KernelCost,
        o: KernelCost,
        gate_up: KernelCost,
        down: KernelCost,
        attention: list[KernelCost],
    ) -> list[KernelCost]:
        """The same layer as an eager PyTorch module: separate q/k/v and gate/up projections, every norm, rotary
        and residual step its own kernel."""
        m, t, h = self.m, b.tokens, self.m.hidden

        def tiny(name: str, width: int, passes: float = 2.0) -> KernelCost:
            c = self.elementwise(name, t, width, passes)
            return KernelCost(c.name, "tiny", c.flops, c.nbytes, c.us)

        def split(g: KernelCost, parts: int) -> list[KernelCost]:
            return [
                KernelCost(
                    g.name, g.kind, g.flops / parts, g.nbytes / parts, (g.us - GPU_FLOOR_US) / parts + GPU_FLOOR_US
                )
            ] * parts

        norm = [tiny(n, h) for n in (K.CAST, K_POW, K_MEAN, K_ADD_SCALAR, K_RSQRT, K_MUL, K.CAST, K_MUL)]
        rotary = [tiny(n, w) for w in (h, m.kv_dim) for n in (K_MUL, K_NEG, K_CAT, K_MUL, K.ADD)]
        return [
            *norm,
            *split(qkv, 3),
            *rotary,
            tiny(K_INDEX_COPY, m.kv_dim),
            tiny(K_INDEX_COPY, m.kv_dim),
            *attention,
            tiny(K_COPY, h),
            o,
            tiny(K.ADD, h),
            *norm,
            *split(gate_up, 2),
            tiny(K_SILU_EAGER, m.inter),
            tiny(K_MUL, m.inter),
            down,
            tiny(K.ADD, h),
        ]

    def head(self, b: Batch, fused: bool) -> list[KernelCost]:
        """After the last layer: final norm, the LM head over the rows that sample, and sampling."""
        m = self.m
        rows = b.seqs
        lm = self.gemm(rows, m.hidden, m.vocab)
        sample = [
            self.elementwise(K_SOFTMAX if fused else K.SOFTMAX_XENT, rows, m.vocab, 3.0),
            self.elementwise(K_TOPK, rows, m.vocab, 1.0),
            self.elementwise(K_EXPONENTIAL, rows, m.vocab, 1.0),
            self.elementwise(K_ARGMAX, rows, m.vocab, 1.0),
        ]
        norm = self.elementwise(K.RMSNORM, b.tokens, m.hidden, 3.0, "norm")
        return [norm, lm, *sample]

    def embed(self, b: Batch) -> KernelCost:
        return self.elementwise(K_EMBED, b.tokens, self.m.hidden, 2.0)

    def iteration(self, b: Batch, fused: bool) -> list[KernelCost]:
        """Every kernel of one iteration, in order."""
        layer = self.layer(b, fused)
        return [self.embed(b), *(layer * self.m.layers), *self.head(b, fused)]


def gemm_names(hw: Hardware, p: Precision) -> tuple[str, str]:
    """(compute-bound tile, small-M tile) GEMM kernel names for the weights' precision on `hw`."""
    if p.weight_bytes == 2.0:
        return K.gemms(hw)[0], K.skinny_gemm(hw)
    if p.fp8_compute and hw.fp8_tflops:
        return FP8_GEMM, FP8_GEMM_SMALL
    return MARLIN, MARLIN_SMALL  # weight-only: dequantised to BF16 inside the GEMM


FP8_GEMM = (
    "sm90_xmma_gemm_e4m3e4m3_bf16f32_f32_tn_n_tilesize128x128x128_warpgroupsize1x1x1_execute_segment_k_off_kernel"
    "__5x_cublas"
)
FP8_GEMM_SMALL = (
    "sm90_xmma_gemm_e4m3e4m3_bf16f32_f32_tn_n_tilesize64x64x128_warpgroupsize1x1x1_execute_segment_k_off_kernel"
    "__5x_cublas"
)
MARLIN = "void marlin::Marlin<256, 4, 16, 4, 4, 8>"
MARLIN_SMALL = "void marlin::Marlin<256, 1, 8, 8, 4, 8>"
K_COMBINE = (
    "flash_fwd_splitkv_combine_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, "
    "cutlass::bfloat16_t>, 4, 7, true>"
)
K_KV_WRITE = "triton_poi_fused_index_put_3"
K_SOFTMAX = "triton_red_fused__softmax_div_4"
K_TOPK = "void at::native::sbtopk::gatherTopK<float, unsigned int, 2, false>"
K_EXPONENTIAL = "void at::native::(anonymous namespace)::distribution_elementwise_grid_stride_kernel<float, 4>"
K_ARGMAX = (
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::ArgMaxOps<float>, "
    "unsigned int, long, 4>>"
)
K_EMBED = (
    "void at::native::(anonymous namespace)::indexSelectLargeIndex<c10::BFloat16, long, unsigned int, 2, 2, -2, true>"
)
K_POW = "void at::native::vectorized_elementwise_kernel<4, at::native::pow_tensor_scalar_kernel<float>>"
K_MEAN = (
    "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float, "
    "float, float, float>, unsigned int, float, 4>>"
)
K_ADD_SCALAR = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
    "at::native::binary_internal::AddFunctor<float>>>"
)
K_RSQRT = "void at::native::vectorized_elementwise_kernel<4, at::native::rsqrt_kernel_cuda<float>>"
K_MUL = (
    "void at::native::vectorized_elementwise_kernel<4, at::native::BinaryFunctor<c10::BFloat16, "
    "c10::BFloat16, c10::BFloat16, at::native::binary_internal::MulFunctor<float>>>"
)
K_NEG = "void at::native::vectorized_elementwise_kernel<4, at::native::neg_kernel_cuda<c10::BFloat16>>"
K_CAT = (
    "void at::native::(anonymous namespace)::CatArrayBatchedCopy<at::native::(anonymous namespace)::OpaqueType<2>, "
    "unsigned int, 4, 64, 64>"
)
K_INDEX_COPY = (
    "void at::native::index_elementwise_kernel<128, 4, "
    "at::native::gpu_index_kernel<at::native::index_put_kernel_impl<at::native::OpaqueType<2>>>>"
)
K_COPY = (
    "void at::native::unrolled_elementwise_kernel<at::native::direct_copy_kernel_cuda, at::detail::Array<char*, 2>>"
)
K_SILU_EAGER = "void at::native::vectorized_elementwise_kernel<4, at::native::silu_kernel<c10::BFloat16>>"

WORKSPACE_GB = 4.0  # CUDA context, activations of one iteration, sampler and cuBLAS workspaces
MEMORY_HEADROOM = 0.9  # the engine's memory-utilisation cap


def memory_gb(model: ServedModel, p: Precision, cached_tokens: int) -> float:
    """Weights, the KV cache of every cached token, and the workspace."""
    return (model.params * p.weight_bytes + cached_tokens * model.kv_bytes_per_token) / 1e9 + WORKSPACE_GB


def fits(hw: Hardware, model: ServedModel, p: Precision, cached_tokens: int) -> bool:
    return memory_gb(model, p, cached_tokens) <= MEMORY_HEADROOM * hw.memory_gb
