"""The calculations are pure: nothing under ``local_backend/queries`` reaches HTTP, directly or through the
package modules it imports (imports are read from the source, so a lazy import inside a function counts)."""

from __future__ import annotations

import ast
from pathlib import Path

import local_backend

SOURCE_ROOT = Path(local_backend.__file__).parent.parent
FORBIDDEN = ("fastapi", "starlette", "local_backend.routes", "local_backend.web")


def _module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE_ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _source(module: str) -> Path | None:
    base = SOURCE_ROOT.joinpath(*module.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(path: Path, module: str) -> set[str]:
    """Every module the source imports, relative imports made absolute (``from . import x`` names ``pkg.x``)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], *([base] if base else [])])
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names if _source(f"{base}.{alias.name}"))
    return found


def _is_forbidden(module: str) -> bool:
    return any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN)


def _forbidden_chains(starts: list[str]) -> list[list[str]]:
    """Import chains from ``starts`` to a forbidden module, following the modules of ``local_backend``."""
    chains: list[list[str]] = []
    seen: set[str] = set()
    stack = [[name] for name in starts]
    while stack:
        chain = stack.pop()
        source = _source(chain[-1])
        if chain[-1] in seen or source is None:
            continue
        seen.add(chain[-1])
        for imported in sorted(_imports(source, chain[-1])):
            if _is_forbidden(imported):
                chains.append([*chain, imported])
            elif imported.startswith("local_backend."):
                stack.append([*chain, imported])
    return chains


def _queries_modules() -> list[str]:
    return sorted(_module_name(path) for path in (SOURCE_ROOT / "local_backend" / "queries").rglob("*.py"))


def test_queries_reach_no_http_module():
    assert _forbidden_chains(_queries_modules()) == []


def test_a_chain_to_fastapi_is_found():
    """The walk itself: reading a request's filter needs FastAPI, and the walk sees it."""
    assert ["local_backend.web.filter_request", "fastapi"] in _forbidden_chains(["local_backend.web.filter_request"])


def test_a_lazy_relative_import_counts(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "def f():\n    from fastapi import Request\n    from ..web.filter_params import read_filter_params\n"
    )
    assert {"fastapi", "local_backend.web.filter_params"} <= _imports(probe, "local_backend.queries.probe")


def test_every_queries_module_is_walked():
    modules = _queries_modules()
    assert "local_backend.queries.base_filter" in modules and len(modules) > 20
