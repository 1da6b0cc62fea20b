"""Event ingestion: how events enter a project (capture API, bulk load, demo data), under one set of rules.

    report = ingest_events(conn, project, events, now=clock.now(), received_at=datetime.now(UTC))

See :mod:`.ingest` for the stages, :mod:`.timestamps` for clock-skew correction, :mod:`.wire` for the event
format, :mod:`.bulk` for storing checked events as columns (bulk load's writer, and the last stage of
``ingest_events``), :mod:`.person_events` and :mod:`local_backend.store.person_book` for persons and merges,
:mod:`.groups` and :mod:`.definitions`.
"""

from __future__ import annotations

from .ingest import MAX_REJECTIONS, CheckedEvents, IngestReport, check_events, ingest_events, store_events

__all__ = ["CheckedEvents", "IngestReport", "check_events", "ingest_events", "store_events", "MAX_REJECTIONS"]
