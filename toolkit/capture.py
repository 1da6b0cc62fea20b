"""Send a DataFrame of events through the capture API (``POST /batch/``), the way PostHog's SDKs do."""

from __future__ import annotations

import json
import math
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from .errors import ValidationError
from .transport import Transport

__all__ = ["DEFAULT_BATCH_SIZE", "CaptureMixin", "CaptureResult", "frame_to_events"]

DEFAULT_BATCH_SIZE = 1000
MAX_ERRORS = 100
"""At most this many messages are kept in `CaptureResult.errors`."""
# Every row gets a uuid derived from its content and position, so sending the same frame twice (a
# re-run notebook cell) is deduplicated by the server instead of doubling the data.
_UUID_NAMESPACE = uuid.UUID("6f1c4f52-3b7e-4d51-9f0c-2f4b1c8e5a10")


_SERVER_COUNTS = ("accepted", "duplicates", "dropped")


@dataclass(repr=False)
class CaptureResult:
    """What happened to the rows of a `Client.capture_frame` call, as the server answered, summed over batches.

    The local backend says what became of every event; PostHog's capture API answers only ``{"status": 1}``
    (it stores events later, in its ingestion pipeline), so against it ``accepted``, ``duplicates`` and
    ``dropped`` are None: ``sent`` events were received, and how many get stored is not known yet.

    Attributes
    ----------
    sent : int
        Rows sent in batches the server took (invalid rows and refused batches are not counted); on the
        local backend ``sent = accepted + duplicates + dropped`` plus the rows it rejected one by one.
    accepted : int or None
        Events stored by this call; None when the server did not say.
    duplicates : int or None
        Events already stored (the same ``uuid``: a frame loaded again), not stored twice; None when not said.
    dropped : int or None
        Events a plugin of the project dropped (a bot filter, ...); None when not said.
    rejected : int
        Rows refused: without an event name or a distinct id (not sent), in a batch the server refused, or
        refused by the server one by one (invalid timestamp, ...).
    errors : list of str
        Why rows were refused, one message per row or refused batch (the first 100).

    Examples
    --------
    >>> CaptureResult(sent=50, accepted=0, duplicates=50, dropped=0)
    CaptureResult(sent=50, accepted=0, duplicates=50, dropped=0, rejected=0): 0 stored, 50 already stored
    >>> CaptureResult(sent=4).summary()
    '4 received (the server gives no counts)'
    """

    sent: int = 0
    accepted: int | None = None
    duplicates: int | None = None
    dropped: int | None = None
    rejected: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def counted(self) -> bool:
        """Whether the server said what became of every event sent (the local backend does, PostHog does not)."""
        return self.accepted is not None

    def summary(self) -> str:
        """One line for people: what was stored, already there, dropped and refused."""
        if self.accepted is None:
            parts = [f"{self.sent} received (the server gives no counts)"]
        else:
            parts = [f"{self.accepted} stored"]
            if self.duplicates:
                parts.append(f"{self.duplicates} already stored")
            if self.dropped:
                parts.append(f"{self.dropped} dropped by plugins")
        if self.rejected:
            parts.append(f"{self.rejected} rejected")
        return ", ".join(parts)

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{name}={getattr(self, name)}" for name in ("sent", "accepted", "duplicates", "dropped", "rejected")
        )
        return f"CaptureResult({counts}): {self.summary()}"


@dataclass
class _Tally:
    """Counts summed over the batches the server took; one answer without them makes them unknown."""

    sent: int = 0
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_SERVER_COUNTS, 0))
    counted: bool = True

    def add(self, answer: Any, batch: int) -> tuple[int, list[tuple[int, str]]]:
        """Count one batch's answer; returns its rejected count and its ``(index in the batch, reason)`` list."""
        answer = answer if isinstance(answer, dict) else {}
        self.sent += batch
        numbers = {name: _count(answer.get(name)) for name in _SERVER_COUNTS}
        if any(number is None for number in numbers.values()):
            self.counted = False
        else:
            for name, number in numbers.items():
                self.counts[name] += number or 0
        reasons = answer.get("rejections") if isinstance(answer.get("rejections"), list) else []
        rejections = [
            (int(item["index"]), str(item.get("reason") or "rejected"))
            for item in reasons
            if isinstance(item, dict) and _count(item.get("index")) is not None
        ]
        return _count(answer.get("rejected")) or 0, rejections


def _count(value: Any) -> int | None:
    return int(value) if isinstance(value, int) and not isinstance(value, bool) else None


def _plain(value: Any) -> Any:
    """A pandas/numpy cell as a JSON-able value; None for missing values."""
    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, np.generic):
        return _plain(value.item())
    if isinstance(value, pd.Timestamp | datetime):
        return _timestamp(value)
    return value


def _timestamp(value: Any) -> str | None:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NaT:
        return None
    stamp = pd.Timestamp(value)
    stamp = stamp.tz_localize(UTC) if stamp.tzinfo is None else stamp.tz_convert(UTC)
    return stamp.isoformat().replace("+00:00", "Z")


def frame_to_events(
    df: pd.DataFrame,
    *,
    event: str = "event",
    distinct_id: str = "distinct_id",
    timestamp: str = "timestamp",
    properties: str = "properties",
) -> tuple[list[dict[str, Any]], list[str]]:
    """Turn frame rows into capture events; returns ``(events, errors)`` for rows that cannot be sent.

    Columns: ``event`` and ``distinct_id`` (required per row), ``timestamp`` (optional; naive times are
    UTC), ``properties`` (optional dict column), ``uuid`` (optional); every other column becomes a
    property (missing values are left out).

    Examples
    --------
    >>> df = pd.DataFrame({"event": ["signup", None], "distinct_id": ["u1", "u2"], "plan": ["pro", "free"]})
    >>> events, errors = frame_to_events(df)
    >>> events[0]["properties"], errors
    ({'plan': 'pro'}, ['row 1: no event name'])
    """
    events, _, errors = _frame_events(
        df, event=event, distinct_id=distinct_id, timestamp=timestamp, properties=properties
    )
    return events, errors


def _frame_events(
    df: pd.DataFrame, *, event: str, distinct_id: str, timestamp: str, properties: str
) -> tuple[list[dict[str, Any]], list[int], list[str]]:
    """`frame_to_events` plus each event's row position, so the server's rejections can name their rows."""
    for name in (event, distinct_id):
        if name not in df.columns:
            raise KeyError(f"the frame has no {name!r} column")
    flat = [column for column in df.columns if column not in {event, distinct_id, timestamp, properties, "uuid"}]
    events: list[dict[str, Any]] = []
    positions: list[int] = []
    errors: list[str] = []
    for position, row in enumerate(df.to_dict("records")):
        name = _plain(row.get(event))
        person = _plain(row.get(distinct_id))
        if not name:
            errors.append(f"row {position}: no event name")
            continue
        if person is None or str(person) == "":
            errors.append(f"row {position}: no distinct_id")
            continue
        props: dict[str, Any] = {}
        nested = row.get(properties)
        if isinstance(nested, Mapping):
            props.update(nested)
        for column in flat:
            value = _plain(row[column])
            if value is not None:
                props[str(column)] = value
        item: dict[str, Any] = {"event": str(name), "distinct_id": str(person), "properties": props}
        try:
            stamp = _timestamp(row.get(timestamp)) if timestamp in row else None
        except (ValueError, TypeError):
            errors.append(f"row {position}: timestamp {row.get(timestamp)!r} is not a date-time")
            continue
        if stamp is not None:
            item["timestamp"] = stamp
        given = _plain(row.get("uuid"))
        content = json.dumps([position, item], sort_keys=True, default=str)
        item["uuid"] = str(given) if given else str(uuid.uuid5(_UUID_NAMESPACE, content))
        events.append(item)
        positions.append(position)
    return events, positions, errors


class CaptureMixin(Transport):
    """The capture functions of `toolkit.Client`."""

    def project_token(self) -> str:
        """The project API token (``phc_...``) that the capture API authenticates with (read once, then kept).

        Examples
        --------
        >>> client.project_token()  # doctest: +SKIP
        'phc_...'
        """
        cached = self.__dict__.get("_project_token")
        if cached is None:
            cached = self.request("GET", self.project_path())["api_token"]
            self.__dict__["_project_token"] = cached
        return str(cached)

    def capture_frame(
        self,
        df: pd.DataFrame,
        *,
        event: str = "event",
        distinct_id: str = "distinct_id",
        timestamp: str = "timestamp",
        properties: str = "properties",
        batch_size: int = DEFAULT_BATCH_SIZE,
        token: str | None = None,
        progress: bool = True,
    ) -> CaptureResult:
        """Send the rows of a DataFrame as events through ``POST /batch/``, in batches, with a progress bar.

        Parameters
        ----------
        df : pandas.DataFrame
            One row per event; see `frame_to_events` for the columns.
        event, distinct_id, timestamp, properties : str
            Names of those columns in ``df``.
        batch_size : int
            Events per request.
        token : str, optional
            The project API token; read from the project when omitted.
        progress : bool
            Show a tqdm progress bar.

        Returns
        -------
        CaptureResult
            What the server answered, summed over the batches: ``accepted`` (stored now), ``duplicates``
            (already stored), ``dropped`` (by a plugin), ``rejected`` (refused, with ``errors`` saying why);
            the first three are None when the server does not count them (PostHog itself).

        Examples
        --------
        >>> df = pd.DataFrame({"event": ["signup"], "distinct_id": ["u1"], "timestamp": ["2026-01-05T10:00:00Z"]})
        >>> client.capture_frame(df)  # doctest: +SKIP
        CaptureResult(sent=1, accepted=1, duplicates=0, dropped=0, rejected=0): 1 stored
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        events, positions, errors = _frame_events(
            df, event=event, distinct_id=distinct_id, timestamp=timestamp, properties=properties
        )
        rejected = len(errors)
        tally = _Tally()
        api_key = token or self.project_token()
        with tqdm(total=len(df), unit="event", disable=not progress, desc="capture") as bar:
            bar.update(len(errors))
            for start in range(0, len(events), batch_size):
                batch = events[start : start + batch_size]
                try:
                    answer = self.request(
                        "POST", "/batch/", json={"api_key": api_key, "batch": batch}, authenticate=False
                    )
                except ValidationError as error:
                    rejected += len(batch)
                    errors.append(f"batch at row {positions[start]}: {error}")
                else:
                    refused, reasons = tally.add(answer, len(batch))
                    rejected += refused
                    errors.extend(
                        f"row {positions[start + index]}: {reason}"
                        for index, reason in reasons
                        if 0 <= index < len(batch)
                    )
                bar.update(len(batch))
        # new event and property names are no longer "never seen" (see toolkit.unseen_names)
        self.__dict__.pop("_kept_definitions", None)
        counts: dict[str, int | None] = dict(tally.counts) if tally.counted else dict.fromkeys(_SERVER_COUNTS)
        return CaptureResult(sent=tally.sent, rejected=rejected, errors=errors[:MAX_ERRORS], **counts)

    def load_events(self, df: pd.DataFrame, **options: Any) -> CaptureResult:
        """Load a DataFrame of events into the project; the same as `capture_frame`.

        Examples
        --------
        >>> client.load_events(pd.read_csv("events.csv"))  # doctest: +SKIP
        CaptureResult(sent=1200, accepted=1150, duplicates=50, dropped=0, rejected=0): 1150 stored, 50 already stored
        """
        return self.capture_frame(df, **options)
