"""GPUs the generators draw from: one table, with the vendors' published dense figures.

Sources: NVIDIA H100 / H200 / A100 / L40S / B200 (HGX) datasheets. Peaks are dense (no 2:4 sparsity); NVLink is
per GPU in one direction (half the datasheet's bidirectional figure); PCIe is x16 in one direction (Gen4 ~32,
Gen5 ~64, Gen6 ~128 GB/s); the NIC is one 400 Gb/s (50 GB/s) port per GPU for the Hopper/Blackwell systems and
200 Gb/s (25 GB/s) for A100. The L40S has GDDR6, not HBM, and no NVLink: rings run over PCIe.
"""

from __future__ import annotations

from .model import Hardware

H100 = Hardware(
    "H100 SXM 80GB",
    "sm90",
    989.0,
    3350.0,
    450.0,
    "NVLink",
    80,
    1980,
    memory_type="HBM3",
    fp8_tflops=1979.0,
    nvlink_gbps=450.0,
    pcie_gbps=64.0,
    ib_gbps=50.0,
    sms=132,
    compute_capability=(9, 0),
)
H200 = Hardware(
    "H200 SXM 141GB",
    "sm90",
    989.0,
    4800.0,
    450.0,
    "NVLink",
    141,
    1980,
    memory_type="HBM3e",
    fp8_tflops=1979.0,
    nvlink_gbps=450.0,
    pcie_gbps=64.0,
    ib_gbps=50.0,
    sms=132,
    compute_capability=(9, 0),
)
A100 = Hardware(
    "A100 SXM 80GB",
    "sm80",
    312.0,
    2039.0,
    300.0,
    "NVLink",
    80,
    1410,
    memory_type="HBM2e",
    fp8_tflops=0.0,
    nvlink_gbps=300.0,
    pcie_gbps=32.0,
    ib_gbps=25.0,
    sms=108,
    compute_capability=(8, 0),
)
L40S = Hardware(
    "L40S 48GB",
    "sm89",
    362.0,
    864.0,
    32.0,
    "PCIe",
    48,
    2520,
    memory_type="GDDR6",
    fp8_tflops=733.0,
    nvlink_gbps=0.0,
    pcie_gbps=32.0,
    ib_gbps=25.0,
    sms=142,
    compute_capability=(8, 9),
)
B200 = Hardware(
    "B200 180GB",
    "sm100",
    2250.0,
    8000.0,
    900.0,
    "NVLink",
    180,
    1965,
    memory_type="HBM3e",
    fp8_tflops=4500.0,
    nvlink_gbps=900.0,
    pcie_gbps=128.0,
    ib_gbps=50.0,
    sms=148,
    compute_capability=(10, 0),
)

TRAINING_GPUS: tuple[Hardware, ...] = (H100, H200, A100, B200)
ALL_GPUS: tuple[Hardware, ...] = (H100, H200, A100, L40S, B200)

# Ring all-reduce bus bandwidth a healthy job reaches at large message sizes, as a fraction of link peak.
ACHIEVABLE_BUSBW_FRACTION = 0.8
# Fraction of peak FLOP/s the best kernels of a well-tuned training step sustain; MFU above it is not physical.
MAX_MFU = 0.75
