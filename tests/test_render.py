"""Pictures: structure, sizes, no answer in the drill header, ground-truth numbers in the reveal."""

from __future__ import annotations

import io
import itertools
import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from PIL import Image

from bot.analyze.importer import load
from bot.analyze.picture import as_scenario
from bot.analyze.reading import read
from bot.cli import main
from bot.render.bars import SEPARATOR_PX, boxes, extents
from bot.render.cache import RenderCache
from bot.render.encode import png_bytes
from bot.render.png import Renderer, draw, header_lines, render_png
from bot.render.rows import Row, layout
from bot.render.text import FULL, NAMES, _cells, render_text
from bot.render.theme import theme
from bot.render.timeline import LEGEND_NAMES, LIGHT_COMPUTE, legend_label
from bot.scenarios.model import Category, Event, TrackKind

from .colour_distance import VISIONS, delta_e
from .giveaways import words_for
from .memo import scenario

NUMBER = re.compile(r"\d[\d,]*\.?\d*")


@pytest.mark.parametrize("theme", ["light", "dark"])
@pytest.mark.parametrize("reveal", [False, True])
def test_every_signature_renders_a_phone_sized_png(signature_id: str, theme: str, reveal: bool) -> None:
    seed = 3 if (theme == "light") == reveal else 17  # each seed in each theme and each mode, once
    data = render_png(scenario(signature_id, seed), theme_name=theme, reveal=reveal)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) < 1_000_000
    with Image.open(io.BytesIO(data)) as img:
        assert img.size == (1600, 900)


def test_drill_header_never_names_the_answer(signature_id: str) -> None:
    for seed in range(5):
        text = " ".join(header_lines(scenario(signature_id, seed))).lower()
        for word in words_for(signature_id):
            assert word not in text, word


def test_rows_are_grouped_like_nsight(signature_id: str) -> None:
    s = scenario(signature_id, 5)
    rows = layout(s).rows
    labels = [r.label for r in rows]
    groups = [r.group for r in rows]
    assert "CUDA API" in labels
    assert "SM Active %" in labels
    assert "DRAM Bandwidth %" in labels
    assert "Tensor Active %" in labels
    metrics = next(g for g in groups if g.startswith("GPU metrics"))
    assert groups.index("CUDA API") < groups.index("GPU") < groups.index(metrics)
    if s.trace.world_size > 1:
        noun = "stage" if "pipeline" in s.context.parallelism else "rank"  # a pipeline's ranks are its stages
        for r in range(s.trace.world_size):
            assert f"{noun} {r} · compute" in labels
        assert not any(label.startswith("Stream") for label in labels)  # rank 0's streams are its lanes
    else:
        assert any(label.startswith("Stream 7") for label in labels)
    if signature_id == "prefill_blocks_decode":
        assert "ITL (ms)" in labels
        assert "requests" in labels
    assert all(r.kind is not TrackKind.COUNTER or r.values for r in rows)


def test_launch_bound_has_a_zoomed_inset() -> None:
    s = scenario("launch_bound", 2)
    assert s.zoom is not None
    assert 2000 <= s.zoom[1] - s.zoom[0] <= 4000


def _numbers(text: str) -> list[float]:
    return [float(n.replace(",", "")) for n in NUMBER.findall(text)]


def test_reveal_annotations_carry_this_scenarios_figures(signature_id: str) -> None:
    for seed in (1, 8):
        s = scenario(signature_id, seed)
        assert s.annotations
        figures = list(s.figures.values())
        for a in s.annotations:
            nums = _numbers(a.label)
            assert nums, a.label
            matches = [
                n for n in nums for f in figures if abs(n - f) <= max(0.51, 0.02 * abs(f)) or abs(n - f / 1000) <= 0.51
            ]
            assert matches, f"{a.label!r} quotes no ground-truth figure"


def test_text_timeline_fits_the_width(signature_id: str) -> None:
    s = scenario(signature_id, 4)
    for width in (60, 100, 140):
        text = render_text(s, width)
        assert all(len(line) <= width for line in text.splitlines())
        assert "CUDA API" in text
        assert "time (ms)" in text
    assert "█" in render_text(s) or "▌" in render_text(s)


def test_a_text_cell_shows_its_biggest_category_and_the_first_of_equals() -> None:
    """Columns 10 µs wide: a column two categories fill equally shows the one that reached it first; an instant
    event marks its column outright; a stream busy for under 60% of a column is drawn as partly busy."""
    compute, nccl = FULL[Category.COMPUTE], FULL[Category.NCCL]

    def cells(*events: Event) -> tuple[str, set[str]]:
        drawn: set[str] = set()
        row = Row("s", "GPU", TrackKind.GPU_STREAM, 0, "s", list(events))
        return _cells(row, 0.0, 10.0, 4, drawn), drawn

    a, b = Event("a", 0.0, 10.0, Category.COMPUTE), Event("b", 0.0, 10.0, Category.NCCL)
    assert cells(a, b)[0] == compute + "   "
    assert cells(b, a)[0] == nccl + "   "
    mostly_nccl = Event("c", 10.0, 4.0, Category.COMPUTE), Event("d", 14.0, 6.0, Category.NCCL)
    assert cells(*mostly_nccl)[0] == " " + nccl + "  "
    text, drawn = cells(Event("m", 25.0, 0.0, Category.MARKER), Event("e", 30.0, 3.0, Category.COMPUTE))
    assert text == "  " + FULL[Category.MARKER] + "▌"
    assert drawn == {Category.MARKER.value, "▌"}


def test_cache_draws_each_picture_once() -> None:
    cache = RenderCache()
    s = scenario("straggler", 4)
    calls = []

    def draw(scenario, theme, reveal):  # type: ignore[no-untyped-def]
        calls.append((theme, reveal))
        return render_png(scenario, theme_name=theme, reveal=reveal)

    threads = [threading.Thread(target=cache.png, args=(s, "light", "drill", draw)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert cache.renders == 1
    assert len(calls) == 1
    cache.png(s, "dark", "drill", draw)
    cache.png(s, "dark", "reveal", draw)
    cache.png(s, "light", "drill", draw)
    assert cache.renders == 3


@pytest.mark.long
def test_concurrent_renders_are_byte_identical_to_serial_ones() -> None:
    """Text state belongs to one picture and one thread: pictures drawn at once on several threads, sharing one
    renderer, come out exactly as when drawn one by one."""
    scenarios = [scenario(sig, 5) for sig in ("sync_stall", "straggler")]  # one rank and many
    jobs = [(s, th, reveal) for s in scenarios for th in ("light", "dark") for reveal in (False, True)]
    serial = [render_png(s, theme_name=th, reveal=reveal) for s, th, reveal in jobs]
    renderer = Renderer()
    start = threading.Barrier(4)

    def draw_all(offset: int) -> list[bytes]:
        start.wait()
        order = [(i + offset * 3) % len(jobs) for i in range(len(jobs))]  # each thread in its own order
        out: dict[int, bytes] = {}
        for i in order:
            s, th, reveal = jobs[i]
            out[i] = renderer.png(s, theme_name=th, reveal=reveal)
        return [out[i] for i in range(len(jobs))]

    with ThreadPoolExecutor(4) as pool:
        for result in pool.map(draw_all, range(4)):
            assert result == serial


def test_cache_on_disk_survives_a_new_process(tmp_path: Path) -> None:
    s = scenario("healthy", 4)
    first = RenderCache(directory=tmp_path)
    data = first.png(s)
    second = RenderCache(directory=tmp_path)
    assert second.png(s) == data
    assert second.renders == 0


def test_cli_render_png_and_text(tmp_path: Path) -> None:
    runner = CliRunner()
    png = tmp_path / "d.png"
    result = runner.invoke(
        main, ["render", "--signature", "sync_stall", "--seed", "3", "--reveal", "--theme", "dark", "--out", str(png)]
    )
    assert result.exit_code == 0, result.output
    assert png.read_bytes()[:4] == b"\x89PNG"
    txt = tmp_path / "d.txt"
    result = runner.invoke(
        main, ["render", "--signature", "sync_stall", "--seed", "3", "--format", "text", "--out", str(txt)]
    )
    assert result.exit_code == 0, result.output
    assert "CUDA API" in txt.read_text(encoding="utf-8")
    bad = runner.invoke(
        main, ["render", "--signature", "sync_stall", "--seed", "3", "--theme", "neon", "--out", str(txt)]
    )
    assert bad.exit_code == 2


def test_each_rank_once_and_no_empty_rows(signature_id: str) -> None:
    for seed in (2, 5, 11):
        lay = layout(scenario(signature_id, seed))
        lo, hi = lay.window
        for row in lay.rows:
            if row.kind is TrackKind.COUNTER:
                assert row.values, row.label
            else:
                assert any(e.end > lo and e.start < hi for e in row.events), row.label
        drawn = [(r.rank, r.track, r.label) for r in lay.rows if r.kind is TrackKind.GPU_STREAM]
        assert len({(rank, track) for rank, track, _ in drawn}) == len(drawn), drawn
        assert len({label for _, _, label in drawn}) == len(drawn)


def test_stream_rows_are_named_by_what_runs_on_them() -> None:
    s = scenario("input_starvation", 3)
    labels = {r.track: r.label for r in layout(s).rows if r.kind is TrackKind.GPU_STREAM}
    assert "memcpy" in labels["Stream 14 (memcpy)"]
    for sig in ("straggler", "pipeline_bubbles"):
        for row in layout(scenario(sig, 3)).rows:
            if row.kind is TrackKind.GPU_STREAM:
                lane = row.label.split(" · ")[1]
                cats = {e.category.value for e in row.events}
                assert {"NCCL": {"nccl"}, "compute": {"compute"}, "memcpy": {"memcpy"}}[lane] >= cats, row.label


def test_step_marks_name_the_profiler_step_whose_kernels_run() -> None:
    for sig in ("straggler", "sync_stall", "healthy"):
        s = scenario(sig, 3)
        lay = layout(s)
        names = {e.name for t in s.trace.ranks[0].tracks for e in t.events if e.name.startswith("ProfilerStep#")}
        assert lay.step_marks
        for _t, label in lay.step_marks:
            assert label.removesuffix(" (GPU)") in names, label


def test_interconnect_row_is_near_zero_while_a_collective_waits() -> None:
    s = scenario("straggler", 3)
    lay = layout(s)
    link = next(r for r in lay.rows if r.unit == "GB/s")
    assert link.label.startswith("NVLink")
    assert link.scale == s.hardware.link_gbps
    assert max(link.values) <= s.hardware.link_gbps + 1e-6
    # Rank 0's long all-reduce waits for the straggler: most of its span moves nothing.
    nccl = next(r for r in lay.rows if r.rank == 0 and r.label.endswith("NCCL"))
    longest = max(nccl.events, key=lambda e: e.dur)
    inside = [v for t, v in zip(link.times, link.values, strict=True) if longest.start <= t < longest.end - 1]
    assert sum(v < 1.0 for v in inside) > 0.6 * len(inside)
    assert max(link.values) > 50  # and the transfer itself shows
    # Bytes moved add up: what the row integrates equals the collectives' wire bytes in the window.
    width = link.times[1] - link.times[0]
    moved = sum(link.values) * width * 1e3
    lo, hi = lay.window
    factor = 2 * (s.trace.world_size - 1) / s.trace.world_size
    expected = sum(float(e.args["bytes"]) * factor for e in nccl.events if e.start >= lo and e.end <= hi if e.args)
    assert moved >= expected * 0.99


def test_text_timeline_has_a_top_kernels_table_and_an_honest_key(signature_id: str) -> None:
    s = scenario(signature_id, 6)
    text = render_text(s, 120)
    body, table = text.split("Top kernels", 1)
    rows = [line for line in table.splitlines()[2:] if line.strip()]
    assert len(rows) >= 3
    shares = [float(m) for m in re.findall(r"(\d+\.\d)%", table)]
    assert len(shares) == len(rows)
    assert shares == sorted(shares, reverse=True)
    assert sum(shares) <= 100 + 0.05 * len(shares)
    key = next(line for line in body.splitlines() if line.startswith("Key:"))
    timeline = "\n".join(line.split("│", 1)[1] for line in body.splitlines() if "│" in line)
    for category, glyph in FULL.items():
        named = f"{glyph} {NAMES[category]}" in key or f"/{NAMES[category]}" in key
        if named:
            assert glyph in timeline, (category, key)
    assert "rank 0 · compute" not in body or body.count("rank 0 · compute") == 1


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("reveal", [False, True])
def test_png_layout_has_no_overlapping_labels_or_callouts(signature_id: str, reveal: bool) -> None:
    for seed in (3, 17):
        pic = draw(scenario(signature_id, seed), theme_name="dark" if seed == 17 else "light", reveal=reveal)
        W, H = pic.fig.bbox.width, pic.fig.bbox.height
        texts = pic.texts
        assert len(texts) > 20
        for i, a in enumerate(texts):
            assert a.box[0] >= 0 and a.box[2] <= W and a.box[1] >= 0 and a.box[3] <= H, a.text
            for b in texts[i + 1 :]:
                assert not _overlap(a.box, b.box), (a.text, b.text)
        if not reveal:
            assert not pic.callouts
            continue
        assert pic.callouts
        for i, c in enumerate(pic.callouts):
            assert c.evidence[2] - c.evidence[0] >= 9.5  # a sliver still gets a visible highlight
            for other in pic.callouts:
                assert not _overlap(c.box, other.evidence), (c.label, other.label)
            for d in pic.callouts[i + 1 :]:
                assert not _overlap(c.box, d.box), (c.label, d.label)
            for t in texts:
                if t.role != "callout":
                    assert not _overlap(c.box, t.box), (c.label, t.text)
        pic.fig.clf()


def test_key_names_only_what_is_drawn(signature_id: str) -> None:
    s = scenario(signature_id, 3)
    lay = layout(s)
    expected = {legend_label(e.category, e.kind) for r in lay.rows for e in r.events}
    pic = draw(s)
    bars = {k for k in pic.legend if k in set(LEGEND_NAMES.values()) | {LIGHT_COMPUTE}}
    assert bars == expected
    assert ("interconnect, 0 → link peak" in pic.legend) == any(r.unit == "GB/s" for r in lay.rows)
    assert ("step boundary (GPU)" in pic.legend) == bool(lay.step_marks)
    # One rank of a DDP job does have an NCCL stream (issue 13); without a collective drawn, no NCCL key.
    if not any(e.category is Category.NCCL for r in lay.rows for e in r.events):
        assert LEGEND_NAMES[Category.NCCL] not in pic.legend
    pic.fig.clf()


@pytest.mark.parametrize("theme_name", ["light", "dark"])
def test_category_colours_stay_apart_for_colour_blind_readers(theme_name: str) -> None:
    th = theme(theme_name)
    colours = {c.value: v for c, v in th.categories.items()} | {"compute (light)": th.compute_light}
    worst: dict[str, float] = {}
    for vision in VISIONS:
        worst[vision] = min(delta_e(a, b, vision) for a, b in itertools.combinations(colours.values(), 2))
    assert worst["normal"] >= 11, worst
    assert min(worst[v] for v in VISIONS if v != "normal") >= 6, worst
    # The twins' colours are far apart for the common (red-green) deficiencies too.
    for a, b in ((Category.SYNC, Category.MALLOC), (Category.NCCL, Category.DATALOADER)):
        for vision in ("normal", "deuteranopia", "protanopia"):
            assert delta_e(th.categories[a], th.categories[b], vision) >= 15


@pytest.mark.parametrize("names", [("alexnet_a100.json.gz",), ("sampled_rank-0.json.gz", "sampled_rank-1.json.gz")])
def test_analysis_picture_labels_streams_by_their_work_and_overprints_nothing(
    names: tuple[str, ...], tmp_path: Path
) -> None:
    real = Path(__file__).resolve().parent / "data" / "real-traces"
    folder = tmp_path / "trace"
    folder.mkdir()
    for n in names:
        (folder / n).write_bytes((real / n).read_bytes())
    raws = load(folder)
    s = as_scenario(read(raws), folder.name, "")
    lanes = {"NCCL": "nccl", "memcpy": "memcpy", "compute": "compute"}
    for row in layout(s).rows:
        if row.kind is TrackKind.GPU_STREAM:
            named = {lanes[w] for w in lanes if w in row.label}
            assert named, row.label
            time: dict[str, float] = {}
            for e in row.events:
                time[e.category.value] = time.get(e.category.value, 0.0) + max(e.dur, 1e-3)
            assert max(time, key=lambda c: time[c]) in named, (row.label, time)
            assert all(c in named for c, t in time.items() if t >= 0.2 * sum(time.values())), (row.label, time)
    pic = draw(s, reveal=True)
    texts = pic.texts
    for i, a in enumerate(texts):
        for b in texts[i + 1 :]:
            assert not _overlap(a.box, b.box), (a.text, b.text)
    for c in pic.callouts:
        assert not any(_overlap(c.box, t.box) for t in texts if t.role != "callout")


def test_png_encoder_round_trips_exactly() -> None:
    pixels = np.random.default_rng(7).integers(0, 256, (37, 53, 4), dtype=np.uint8)
    with Image.open(io.BytesIO(png_bytes(pixels))) as img:
        img.load()
        assert img.size == (53, 37) and img.mode == "RGB"
        assert np.array_equal(np.asarray(img), pixels[..., :3])


def _bars(events: list[Event], px_per_ms: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts, ends = extents(Row("r", "GPU", TrackKind.GPU_STREAM, 0, "t", events), 0, 1e6)
    codes = np.array([1 if e.category is Category.NCCL else 0 for e in events])  # one colour per category
    return boxes(starts, ends, codes, px_per_ms)


def test_touching_bars_get_a_gap_and_nested_ones_keep_their_length() -> None:
    px_per_ms = 1.0  # 1 px per ms: every bar below is countable
    back_to_back = [Event("a", 0, 434_700, Category.NCCL), Event("b", 434_700, 57_800, Category.NCCL)]
    starts, ends, _ = _bars(back_to_back, px_per_ms)
    assert len(starts) == 2 and (starts[1] - ends[0]) * px_per_ms >= SEPARATOR_PX - 1e-9  # two collectives
    nested = [Event("outer", 0, 100_000, Category.RANGE), Event("inner", 10_000, 20_000, Category.RANGE)]
    starts, ends, _ = _bars(nested, px_per_ms)
    assert ends[0] == pytest.approx(100.0)
    dense = [Event(str(i), i * 100.0, 100.0, Category.COMPUTE) for i in range(50)]  # 0.1 px each
    starts, ends, _ = _bars(dense, px_per_ms)
    assert all(e > s for s, e in zip(starts, ends, strict=True))  # too thin to separate: still drawn
    # ... and merged: 50 sub-pixel kernels back to back fill 5 px, one rectangle, not fifty.
    assert len(starts) == 1 and starts[0] == 0 and ends[0] == pytest.approx(5.0)


def test_sub_pixel_merging_keeps_countable_bars_and_colours_apart() -> None:
    px_per_ms = 1.0
    # Wide collectives back to back between bursts of sub-pixel kernels: the collectives stay separate bars.
    events = [Event("k", i * 100.0, 100.0, Category.COMPUTE) for i in range(20)]  # 0–2 ms, 0.1 px each
    events += [
        Event("ar1", 2_000, 10_000, Category.NCCL),
        Event("ar2", 12_000, 10_000, Category.NCCL),
        Event("ar3", 22_000, 10_000, Category.NCCL),
    ]
    starts, ends, _ = _bars(events, px_per_ms)
    order = np.argsort(starts)
    starts, ends = starts[order], ends[order]
    assert len(starts) == 4  # one merged burst + three countable collectives
    gaps = (starts[2:] - ends[1:-1]) * px_per_ms
    assert (gaps >= SEPARATOR_PX - 1e-9).all()
    # Two colours interleaved at sub-pixel scale: a bar of the other colour between two keeps them apart,
    # so the mix still shows; runs of one colour merge.
    mixed = [Event("x", i * 100.0, 100.0, Category.COMPUTE if i % 2 else Category.NCCL) for i in range(40)]
    assert len(_bars(mixed, px_per_ms)[0]) == 40
    runs = [Event("x", i * 100.0, 100.0, Category.COMPUTE if i // 10 % 2 else Category.NCCL) for i in range(40)]
    starts, ends, codes = _bars(runs, px_per_ms)
    assert codes.tolist() == [1, 0, 1, 0] and ends[0] == pytest.approx(1.0)
    # Bars more than a pixel apart are not merged.
    apart = [Event("k", i * 3_000.0, 100.0, Category.COMPUTE) for i in range(10)]
    assert len(_bars(apart, px_per_ms)[0]) == 10
