"""The backend's imports run down the layers and close no circle (docs/architecture.md, "Layers").

Every ``import`` of a ``local_backend`` module counts, at the top of a module or inside a function alike: a
deferred import that would close a circle is a module in the wrong place. Layers, top down::

    __main__ and its commands -> app -> routes -> results, web, auth, demo_data -> loading, ingestion, queries
    -> models -> plugins -> store (store/engine inside it) -> the ground floor (every other top-level module)
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "local_backend"

LAYERS = [
    ("__main__", "materialize_command", "migrate_events_command"),
    ("app",),
    ("routes",),
    ("results", "web", "auth", "demo_data"),
    ("loading", "ingestion", "queries"),
    ("models",),
    ("plugins",),
    ("store",),
]
GROUND = len(LAYERS)


def _modules() -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if package else parts)] = (path, package)
    return found


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module ``name`` is, or the package it is an attribute of."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def _imports() -> dict[str, set[str]]:
    """Each module's imports of other ``local_backend`` modules (a ``from package import name`` counts the
    submodule ``name`` when there is one, else the package)."""
    edges: dict[str, set[str]] = defaultdict(set)
    for module, (path, package) in MODULES.items():
        base = module if package else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    parts = base.split(".")
                    source = ".".join(parts[: len(parts) - node.level + 1])
                    source += f".{node.module}" if node.module else ""
                else:
                    source = node.module or ""
                names = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in MODULES else source for alias in node.names
                ]
            for name in names:
                target = _known(name) if name.startswith("local_backend") else None
                if target is not None and target not in (module, "local_backend"):
                    edges[module].add(target)
    return edges


IMPORTS = _imports()


def _layer(module: str) -> int:
    first = module.split(".")[1] if "." in module else ""
    for index, names in enumerate(LAYERS):
        if first in names:
            return index
    return GROUND


def _circles(edges: dict[str, set[str]], nodes: set[str]) -> list[list[str]]:
    """The strongly connected groups of more than one node (Tarjan's algorithm, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for root in sorted(nodes):
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    circles.append(sorted(group))
    return circles


def test_no_module_imports_one_that_imports_it_back():
    assert _circles(IMPORTS, set(MODULES)) == []


def test_no_package_imports_one_that_imports_it_back():
    """Packages (``queries``, ``models``, ``web``, ...) and top-level modules, taken whole."""

    def unit(module: str) -> str:
        return ".".join(module.split(".")[:2])

    edges: dict[str, set[str]] = defaultdict(set)
    for module, targets in IMPORTS.items():
        edges[unit(module)].update(unit(target) for target in targets if unit(target) != unit(module))
    assert _circles(edges, {unit(module) for module in MODULES}) == []


def test_imports_run_down_the_layers():
    upward = sorted(
        f"{module} -> {target}"
        for module, targets in IMPORTS.items()
        for target in targets
        if _layer(target) < _layer(module)
    )
    assert upward == []


def test_the_engine_interface_and_spec_know_no_engine():
    """Only ``store/engine/choice.py`` imports both engines; the interface and the spec import neither."""
    engines = ("local_backend.store.engine.sqlite", "local_backend.store.engine.clickhouse")
    neutral = [
        module
        for module in IMPORTS
        if module.startswith(("local_backend.store.engine.interface", "local_backend.store.engine.spec"))
    ]
    assert "local_backend.store.engine.interface.reads" in neutral, neutral  # the package's modules are walked
    for module in neutral:
        assert not [target for target in IMPORTS[module] if target.startswith(engines)], module
    both = [
        module
        for module, targets in IMPORTS.items()
        if all(any(target.startswith(engine) for target in targets) for engine in engines)
        and not module.startswith(engines)
    ]
    assert both == ["local_backend.store.engine.choice"]
