"""Realistic kernel names by architecture, so a trace reads like the ones people meet at work."""

from __future__ import annotations

from .model import Hardware

_GEMM = {
    "sm90": (
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x256x64_warpgroupsize2x1x1_execute_segment_k_off_kernel__5x_cublas",
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_nt_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
        "nvjet_tst_192x192_64x4_2x1_v_bz_coopA_TNT",
    ),
    "sm100": (
        "nvjet_tst_256x128_64x4_2x1_2cta_v_bz_TNT",
        "sm100_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize256x128x64_cluster2x1x1_execute_kernel__5x_cublas",
        "nvjet_tst_128x256_64x4_1x2_h_bz_coopB_NNT",
    ),
    "sm80": (
        "ampere_bf16_s16816gemm_bf16_256x128_ldg8_f2f_stages_64x3_tn",
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_64x3_nt",
        "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_nn",
    ),
    "sm89": (
        "ampere_bf16_s16816gemm_bf16_128x128_ldg8_f2f_stages_32x5_tn",
        "sm89_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x32_stage4_warpsize2x2x1_tensor16x8x16_kernel",
        "ampere_bf16_s16816gemm_bf16_64x64_sliced1x2_ldg8_f2f_stages_64x6_tn",
    ),
}

SKINNY_GEMM = {
    "sm90": (
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x128x64_warpgroupsize1x1x1_"
        "execute_segment_k_off_kernel__5x_cublas"
    ),
    "sm100": "nvjet_tst_64x128_64x8_1x1_v_bz_TNT",
    "sm80": "ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x3_tn",
    "sm89": "ampere_bf16_s16816gemm_bf16_64x64_ldg8_f2f_stages_64x5_tn",
}

FLASH_FWD = "flash_fwd_kernel<Flash_fwd_kernel_traits<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>"
FLASH_BWD = "flash_bwd_dq_dk_dv_loop_seqk_parallel_kernel<Flash_bwd_kernel_traits<128, 64, 128, 8, 2, 4, 2>>"
FLASH_DECODE = "flash_fwd_splitkv_kernel<Flash_fwd_kernel_traits<128, 64, 128, 4, false, false, cutlass::bfloat16_t>>"
RMSNORM = "triton_red_fused__to_copy_add_mean_mul_pow_rsqrt_0"
RMSNORM_BWD = "triton_red_fused__to_copy_add_mul_native_layer_norm_backward_3"
ADD = "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<c10::BFloat16>>"
SILU = "triton_poi_fused_mul_silu_1"
SILU_BWD = "triton_poi_fused_mul_silu_silu_backward_4"
ROTARY = "triton_poi_fused_add_cat_mul_rotary_2"
INDEX_PUT = "void at::native::(anonymous namespace)::indexing_backward_kernel<c10::BFloat16, 4>"
CAST = "void at::native::vectorized_elementwise_kernel<4, at::native::bfloat16_copy_kernel_cuda>"
FILL = "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<c10::BFloat16>>"
SOFTMAX_XENT = "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>"
ADAM = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<FusedAdamMathFunctor<c10::BFloat16, 4>>"
GRAD_NORM = "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<LpNormFunctor<float, 2>>"
REDUCE = "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float>>>"
MEMCPY_H2D = "Memcpy HtoD (Pinned -> Device)"
MEMCPY_H2D_PAGEABLE = "Memcpy HtoD (Pageable -> Device)"
MEMCPY_D2H = "Memcpy DtoH (Device -> Pinned)"
NCCL_ALLREDUCE = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL"
NCCL_ALLREDUCE_SIMPLE = "ncclDevKernel_AllReduce_Sum_bf16_RING_SIMPLE"
NCCL_ALLREDUCE_LL128 = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL128"
NCCL_SENDRECV = "ncclDevKernel_SendRecv"
NCCL_ALLGATHER = "ncclDevKernel_AllGather_RING_LL"


# NCCL picks a protocol by message size: LL for small messages (latency), LL128 in the middle, SIMPLE for
# large ones (bandwidth). The thresholds are NCCL's tuning model in round numbers, for ring all-reduce on one node.
LL_MAX_BYTES = 64 * 2**10
LL128_MAX_BYTES = 8 * 2**20


def nccl_allreduce(nbytes: float) -> str:
    """The ring all-reduce kernel NCCL launches for a message of `nbytes`."""
    if nbytes <= LL_MAX_BYTES:
        return NCCL_ALLREDUCE
    if nbytes <= LL128_MAX_BYTES:
        return NCCL_ALLREDUCE_LL128
    return NCCL_ALLREDUCE_SIMPLE


def gemms(hw: Hardware) -> tuple[str, str, str]:
    names = _GEMM[hw.arch]
    return names[0], names[1], names[2]


def skinny_gemm(hw: Hardware) -> str:
    return SKINNY_GEMM[hw.arch]
