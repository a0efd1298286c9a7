"""Short kernel names for labels inside bars, the way profilers abbreviate them."""

from __future__ import annotations

import re
from functools import lru_cache

_VOID = re.compile(r"^void\s+")
_NAMESPACE = re.compile(r"^(?:[\w]+::|\(anonymous namespace\)::)+")


@lru_cache(maxsize=8192)
def short_name(name: str) -> str:
    """'void at::native::vectorized_elementwise_kernel<4, ...>' → 'vectorized_elementwise_kernel'."""
    out = _VOID.sub("", name)
    depth = 0
    cut = len(out)
    for i, ch in enumerate(out):  # drop the template arguments, which may nest
        if ch == "<":
            if depth == 0:
                cut = i
                break
            depth += 1
    out = _NAMESPACE.sub("", out[:cut])
    if len(out) > 42 and ("xmma" in out or "gemm" in out):
        out = out[:40] + "…"
    return out


_XMMA = re.compile(r"^(sm\d+)_xmma_gemm_.*?_(tn|nt|nn|tt)_n_tilesize(\d+x\d+x\d+)")
_AMPERE = re.compile(r"^ampere_(\w+?)_s\d+gemm_\w+?_(\d+x\d+)(?:_sliced\w+)?_ldg\d+_f2f_stages_(\d+x\d+)_(\w+)$")
_NCCL = re.compile(r"^ncclDevKernel_(\w+)$")
_FUNCTOR = re.compile(r"CUDAFunctor_(\w+)|(\w+?)Functor|(copy)_kernel")


@lru_cache(maxsize=8192)
def table_name(name: str, chars: int = 30) -> str:
    """A name for the top-kernels table: distinct for kernels that differ (GEMM tiles, elementwise functors),
    at most `chars` long, cut in the middle so both ends stay readable."""
    plain = re.sub(r"^void\s+", "", name)
    if m := _XMMA.match(plain):
        out = f"{m.group(1)} gemm {m.group(3)} {m.group(2)}"
    elif m := _AMPERE.match(plain):
        out = f"ampere gemm {m.group(2)} {m.group(3)} {m.group(4)}"
    elif m := _NCCL.match(plain):
        parts = m.group(1).split("_")
        algo = next((i for i, p in enumerate(parts) if p in ("RING", "TREE", "NVLS", "COLLNET")), len(parts))
        out = " ".join(["nccl", parts[0], "_".join(parts[algo:])]).strip()
    else:
        out = short_name(name).rstrip("…")
        if "<" in plain and (f := _FUNCTOR.search(plain[plain.index("<") :])):
            out = f"{out.removesuffix('_kernel')} ({next(g for g in f.groups() if g)})"
    if len(out) <= chars:
        return out
    head = (chars - 1) * 2 // 3
    return out[:head] + "…" + out[len(out) - (chars - 1 - head) :]
