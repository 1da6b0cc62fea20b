"""Paths: the per-person pass that turns ordered path items into weighted edges.

Given each person's path items in time order (the page, screen or event name of each event), a path is
built per session as PostHog does:

1. a new session starts after 30 minutes without events (``session_gap_ms``; a funnel's conversion window for
   paths restricted by a funnel);
2. consecutive repeats of the same item collapse into one (the last of the run keeps its time);
3. with a start point the path begins at its first occurrence; with an end point it stops at its first
   occurrence (with both, the end point is looked for after the start point); a session lacking a point
   it needs is left out;
4. the path keeps ``step_limit`` items: the first ones, or the last ones when only an end point is set.
   With both points a longer path keeps both ends: its first and last ``step_limit // 2`` items around one
   ``...`` item, which stands at the time of the first item it hides.

Each pair of neighbouring items ``(k, k+1)`` is an edge ``"k_<item>" -> "k+1_<item>"``; its value is how many
sessions made that transition, its ``average_conversion_time`` the mean time between the two, in ms.
Edges come ordered by value (descending), then source, then target; edges outside ``min_edge_weight`` ..
``max_edge_weight`` are dropped, the first ``edge_limit`` kept, and then every kept edge that cannot be
reached from a first step through kept edges is dropped too (it would hang in the air in a diagram).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

__all__ = [
    "PathOptions",
    "PathEdge",
    "compute_path_edges",
    "session_paths",
    "path_nodes",
    "compile_groupings",
    "group_path_item",
    "SESSION_GAP_MS",
    "FOLDED_ITEM",
]

SESSION_GAP_MS = 30 * 60 * 1000
# The item standing for the middle of a path folded between a start and an end point.
FOLDED_ITEM = "..."


@dataclass(frozen=True)
class PathOptions:
    step_limit: int = 5
    start_point: str | None = None
    end_point: str | None = None
    edge_limit: int | None = 50
    min_edge_weight: int | None = None
    max_edge_weight: int | None = None
    session_gap_ms: int = SESSION_GAP_MS


@dataclass(frozen=True)
class PathEdge:
    source: str
    target: str
    value: int
    average_conversion_time: float

    def as_dict(self) -> dict[str, object]:
        return {
            "source": self.source,
            "target": self.target,
            "value": self.value,
            "average_conversion_time": self.average_conversion_time,
        }


@dataclass(frozen=True)
class Grouping:
    """A ``path_groupings`` pattern: its text, and the literal pieces between its ``*`` wildcards."""

    pattern: str
    pieces: tuple[str, ...]

    def match_end(self, item: str) -> int:
        """Where the earliest-ending match of the pattern anywhere in ``item`` ends, or -1 without one.

        Taking each piece at its first occurrence after the previous one gives the earliest possible end.
        """
        at = 0
        for piece in self.pieces:
            found = item.find(piece, at)
            if found < 0:
                return -1
            at = found + len(piece)
        return at


def compile_groupings(groupings: Iterable[str]) -> list[Grouping]:
    """Grouping patterns use ``*`` as a wildcard; everything else matches literally."""
    return [Grouping(pattern, tuple(pattern.split("*"))) for pattern in groupings]


def group_path_item(item: str, groupings: list[Grouping]) -> str:
    """An item containing a grouping pattern anywhere is shown as the pattern itself.

    When several patterns match, the one whose match ends first wins (the first listed on a tie), as
    ClickHouse's ``multiMatchAnyIndex`` picks for PostHog: ``/2/3?q=1`` is grouped by ``/3*`` before
    ``/3?q=1``.
    """
    best: tuple[int, str] | None = None
    for grouping in groupings:
        end = grouping.match_end(item)
        if end >= 0 and (best is None or end < best[0]):
            best = (end, grouping.pattern)
    return item if best is None else best[1]


def _sessions(rows: list[tuple[int, str]], gap_ms: int) -> Iterator[list[tuple[int, str]]]:
    session: list[tuple[int, str]] = []
    for at, item in rows:
        if session and at - session[-1][0] >= gap_ms:
            yield session
            session = []
        session.append((at, item))
    if session:
        yield session


def _compact(session: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """Collapse runs of the same item, keeping the last of each run."""
    last = len(session) - 1
    return [entry for index, entry in enumerate(session) if index == last or session[index + 1][1] != entry[1]]


def _index(path: list[tuple[int, str]], item: str) -> int:
    return next((i for i, entry in enumerate(path) if entry[1] == item), -1)


def _fold(path: list[tuple[int, str]], step_limit: int) -> list[tuple[int, str]]:
    """A path between a start and an end point longer than ``step_limit``: both ends kept around ``...``."""
    if len(path) <= step_limit:
        return path
    half = step_limit // 2
    return [*path[:half], (path[half][0], FOLDED_ITEM), *path[-half:]]


def _limit(path: list[tuple[int, str]], options: PathOptions) -> list[tuple[int, str]] | None:
    if options.start_point is not None:
        start = _index(path, options.start_point)
        if start < 0:
            return None
        path = path[start:]
    if options.end_point is not None:
        end = _index(path, options.end_point)
        if end < 0:
            return None
        path = path[: end + 1]
        if options.start_point is None:
            return path[-options.step_limit :]
        return _fold(path, options.step_limit)
    return path[: options.step_limit]


def _reachable(edges: list[PathEdge]) -> list[PathEdge]:
    """The edges whose source can be reached from a first step (``1_...``) through the given edges."""
    targets: dict[str, list[str]] = {}
    for edge in edges:
        targets.setdefault(edge.source, []).append(edge.target)
    seen: set[str] = set()
    stack = [source for source in targets if source.startswith("1_")]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        stack.extend(target for target in targets.get(node, ()) if target not in seen)
    return [edge for edge in edges if edge.source in seen]


def session_paths(rows: list[tuple[int, str]], options: PathOptions) -> Iterator[list[tuple[int, str]]]:
    """The paths one person's ``[(timestamp_ms, item), ...]`` (sorted by time) makes: one per session that
    has one, cut to the points and the step limit (module docstring, steps 1-4)."""
    for session in _sessions(rows, options.session_gap_ms):
        path = _limit(_compact(session), options)
        if path:
            yield path


def path_nodes(path: list[tuple[int, str]]) -> list[str]:
    """The nodes of a path: ``"1_<item>"``, ``"2_<item>"``, ...

    >>> path_nodes([(0, "/home"), (5, "/pricing")])
    ['1_/home', '2_/pricing']
    """
    return [f"{step}_{item}" for step, (_, item) in enumerate(path, start=1)]


def compute_path_edges(persons: Iterable[list[tuple[int, str]]], options: PathOptions) -> list[PathEdge]:
    """Edges over every person's ``[(timestamp_ms, item), ...]`` list (each sorted by time)."""
    counts: dict[tuple[str, str], list[int]] = {}
    for rows in persons:
        for path in session_paths(rows, options):
            for step in range(1, len(path)):
                key = (f"{step}_{path[step - 1][1]}", f"{step + 1}_{path[step][1]}")
                totals = counts.setdefault(key, [0, 0])
                totals[0] += 1
                totals[1] += path[step][0] - path[step - 1][0]
    edges = [
        PathEdge(source, target, value, total_ms / value)
        for (source, target), (value, total_ms) in counts.items()
        if (options.min_edge_weight is None or value >= options.min_edge_weight)
        and (options.max_edge_weight is None or value <= options.max_edge_weight)
    ]
    edges.sort(key=lambda edge: (-edge.value, edge.source, edge.target))
    return _reachable(edges[: options.edge_limit] if options.edge_limit else edges)
