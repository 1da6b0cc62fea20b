"""Execute the example notebooks in place and store their outputs; optionally save their screenshots.

    .venv/bin/python docs/run_notebooks.py                      # every notebooks/*.ipynb
    .venv/bin/python docs/run_notebooks.py notebooks/02_trends.ipynb
    .venv/bin/python docs/run_notebooks.py --screenshots        # also write docs/images/<name>.png

Each notebook runs top to bottom in its own folder with the ``python3`` kernel of this interpreter, the
kernel nbval uses in ``make test``, which then compares its fresh outputs with the ones stored here.
Widget state is stored (``metadata.widgets``), so a notebook opened without running shows its builders as the
run left them: controls, plot and table.

A code cell tagged ``screenshot:<name>`` shows a matplotlib figure; ``--screenshots`` writes that figure's
PNG (rendered by matplotlib's inline backend in the run) to ``docs/images/<name>.png``.
"""

from __future__ import annotations

import argparse
import base64
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
IMAGES = ROOT / "docs" / "images"
SCREENSHOT_TAG = "screenshot:"
# seconds. Every cell takes a few (the first, seeding the backend, the longest); nbclient sometimes waits out
# the whole timeout after a cell that updates widgets (jupyter/nbclient#312), then carries on.
CELL_TIMEOUT = 120


def execute(path: Path) -> nbformat.NotebookNode:
    """Run ``path`` from a fresh kernel, in its own folder, and write it back with its outputs."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        kernel_name="python3",
        timeout=CELL_TIMEOUT,
        resources={"metadata": {"path": str(path.parent)}},
        store_widget_state=True,
    ).execute()
    nbformat.write(notebook, path)
    return notebook


def screenshots(notebook: nbformat.NotebookNode) -> dict[str, bytes]:
    """The PNG of every cell tagged ``screenshot:<name>``, by name."""
    found: dict[str, bytes] = {}
    for cell in notebook.cells:
        tags = cell.metadata.get("tags", [])
        names = [tag[len(SCREENSHOT_TAG) :] for tag in tags if tag.startswith(SCREENSHOT_TAG)]
        outputs = cell.get("outputs", [])
        pictures = [output["data"]["image/png"] for output in outputs if "image/png" in output.get("data", {})]
        if names and not pictures:
            raise SystemExit(f"cell tagged {names[0]!r} shows no figure")
        for name in names:
            found[name] = base64.b64decode(pictures[-1])
    return found


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("notebooks", nargs="*", type=Path, help="notebooks to run (default: notebooks/*.ipynb)")
    parser.add_argument("--screenshots", action="store_true", help="write the tagged figures to docs/images/")
    args = parser.parse_args(argv)
    paths = [path.resolve() for path in args.notebooks] or sorted(NOTEBOOKS.glob("*.ipynb"))
    for path in paths:
        if path.suffix != ".ipynb" or not path.is_file():
            parser.error(f"not a notebook file: {path}")
    for path in paths:
        started = time.monotonic()
        notebook = execute(path)
        shown = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        print(f"{shown}: {time.monotonic() - started:.1f} s", flush=True)
        if args.screenshots:
            for name, picture in screenshots(notebook).items():
                (IMAGES / f"{name}.png").write_bytes(picture)
                print(f"  docs/images/{name}.png", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
