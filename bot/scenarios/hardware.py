"""GPUs the generators draw from, with their published dense BF16 peaks and bandwidths."""

from __future__ import annotations

from .model import Hardware

H100 = Hardware("H100 SXM 80GB", "sm90", 989.0, 3350.0, 450.0, "NVLink", 80, 1980)
H200 = Hardware("H200 SXM 141GB", "sm90", 989.0, 4800.0, 450.0, "NVLink", 141, 1980)
A100 = Hardware("A100 SXM 80GB", "sm80", 312.0, 2039.0, 300.0, "NVLink", 80, 1410)
L40S = Hardware("L40S 48GB", "sm89", 362.0, 864.0, 32.0, "PCIe", 48, 2520)
B200 = Hardware("B200 180GB", "sm100", 2250.0, 8000.0, 900.0, "NVLink", 180, 1965)

TRAINING_GPUS: tuple[Hardware, ...] = (H100, H200, A100, B200)
ALL_GPUS: tuple[Hardware, ...] = (H100, H200, A100, L40S, B200)

# Ring all-reduce bus bandwidth a healthy job reaches at large message sizes, as a fraction of link peak.
ACHIEVABLE_BUSBW_FRACTION = 0.8
