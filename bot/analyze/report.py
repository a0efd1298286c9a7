"""The reading as text (the same words as the reveals) and as JSON."""

from __future__ import annotations

from typing import Any

from ..render.names import short_name
from .model import Reading


def report_text(r: Reading, source: str) -> str:
    m = r.main
    f = m.figures
    lines = [f"Trace: {source} · {len(r.ranks)} rank(s)", ""]
    if m.step_numbers == [-1]:
        lines.append(
            f"Step boundary. No ProfilerStep#N annotations, so the whole {f['step_ms']:.1f} ms of GPU "
            "activity is read as one window (call prof.step() each iteration for a per-step read)."
        )
    else:
        lines.append(
            f"Step boundary. {f['steps']:.0f} steady ProfilerSteps "
            f"(#{m.step_numbers[0]}–#{m.step_numbers[-1]}); step ≈ {f['step_ms']:.1f} ms "
            f"(median {f['step_median_ms']:.1f}, max {f['step_max_ms']:.1f})."
        )
    lines.append(
        f"Gaps. GPU busy {f['gpu_busy_pct']:.0f}%, idle {f['gpu_idle_pct']:.0f}% "
        f"({f['idle_host_wait_ms']:.1f} ms/step waiting on the host, {f['idle_between_kernels_ms']:.1f} ms "
        f"between queued kernels; {f['idle_at_step_start_ms']:.1f} ms at step start). "
        f"Syncs/step {f['syncs_per_step']:.1f}, cudaMalloc/Free per step {f['mallocs_per_step']:.1f}."
    )
    if f["comm_ms"] > 0:
        lines.append(
            f"Overlap. Communication {f['comm_ms']:.1f} ms/step, {f['comm_hidden_pct']:.0f}% hidden under "
            f"compute ({f['comm_exposed_ms']:.1f} ms exposed, {f['collectives_per_step']:.0f} "
            f"collectives/step)."
        )
    else:
        lines.append("Overlap. No communication kernels in this trace.")
    tops = ", ".join(f"{short_name(n)} {100 * share:.0f}%" for n, _, share in m.top_kernels[:3])
    lines.append(
        f"Top kernels. {f['kernels_per_step']:.0f} kernels/step, mean {f['mean_kernel_us']:.1f} µs; top: {tops}."
    )
    if len(r.ranks) > 1:
        per = ", ".join(f"rank {x.rank}: {x.figures['compute_ms']:.0f} ms" for x in r.ranks)
        lines.append(f"Per-rank compute. {per}.")
    lines += ["", "Most likely:"]
    lines += [f"  {i}. {x.signature} ({x.confidence:.2f}) — {x.evidence}" for i, x in enumerate(r.findings[:3], 1)]
    hta = m.hta
    lines += [
        "",
        f"HTA-comparable (whole span): idle {hta['idle_pct']:.1f}%, compute {hta['compute_pct']:.1f}%, "
        f"comm/compute overlap {hta['overlap_pct']:.1f}%.",
    ]
    return "\n".join(lines)


def report_json(r: Reading, source: str) -> dict[str, Any]:
    return {
        "source": source,
        "ranks": [
            {
                "rank": x.rank,
                "figures": {k: round(v, 4) for k, v in x.figures.items()},
                "hta": {k: round(v, 4) for k, v in x.hta.items()},
                "steps": [x.step_numbers[0], x.step_numbers[-1]],
                "top_kernels": [
                    {"name": n, "ms_per_step": round(us / 1000, 4), "share": round(s, 4)} for n, us, s in x.top_kernels
                ],
            }
            for x in r.ranks
        ],
        "signature": r.top.signature,
        "findings": [
            {"signature": x.signature, "confidence": x.confidence, "evidence": x.evidence} for x in r.findings
        ],
    }
