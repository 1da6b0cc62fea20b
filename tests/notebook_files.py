"""The example notebooks the suite checks (nbval, the browser tests), in reading order."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_DIR = ROOT / "notebooks"
# the nine notebooks of the documentation, one topic each
NOTEBOOKS = [
    "01_quickstart.ipynb",
    "02_trends.ipynb",
    "03_funnels.ipynb",
    "04_builders.ipynb",
    "05_saved_insights_and_plugins.ipynb",
    "06_connecting_to_posthog.ipynb",
    "07_large_data.ipynb",
    "08_retention_paths_stickiness_lifecycle.ipynb",
    "09_sql.ipynb",
]
