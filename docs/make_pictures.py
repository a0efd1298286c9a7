"""Render the README's sample pictures at full size (1600×900) and at chat-preview size (360 px wide).

Run from the repository root: PYTHONPATH=. python docs/make_pictures.py
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

from PIL import Image

from bot.analyze.service import analyze_path
from bot.render.png import render_png
from bot.scenarios.registry import generate

DOCS = Path(__file__).resolve().parent
REAL = DOCS.parent / "tests" / "data" / "real-traces"
PREVIEW_WIDTH = 360


def save(name: str, png: bytes) -> None:
    (DOCS / f"{name}.png").write_bytes(png)
    with Image.open(io.BytesIO(png)) as img:
        small = img.resize((PREVIEW_WIDTH, round(img.height * PREVIEW_WIDTH / img.width)), Image.Resampling.LANCZOS)
        small.save(DOCS / f"{name}-{PREVIEW_WIDTH}.png", optimize=True)


def main() -> None:
    straggler = generate("straggler", 3)
    save("sample-drill-straggler", render_png(straggler))
    save("sample-reveal-straggler", render_png(straggler, reveal=True))
    save("sample-drill-unoverlapped-allreduce", render_png(generate("unoverlapped_allreduce", 3)))
    save("sample-drill-launch-bound", render_png(generate("launch_bound", 3)))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "dlrm"
        folder.mkdir()
        for n in ("sampled_rank-0.json.gz", "sampled_rank-1.json.gz"):
            shutil.copy(REAL / n, folder / n)
        png = analyze_path(folder, picture=True).png
        assert png is not None
        save("sample-analysis-dlrm", png)


if __name__ == "__main__":
    main()
