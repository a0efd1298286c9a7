"""Short kernel names for labels inside bars, the way profilers abbreviate them."""

from __future__ import annotations

import re

_VOID = re.compile(r"^void\s+")
_NAMESPACE = re.compile(r"^(?:[\w]+::|\(anonymous namespace\)::)+")


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
