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
# Every row gets a uuid derived from its content and position, so sending the same frame twice (a
# re-run notebook cell) is deduplicated by the server instead of doubling the data.
_UUID_NAMESPACE = uuid.UUID("6f1c4f52-3b7e-4d51-9f0c-2f4b1c8e5a10")


@dataclass
class CaptureResult:
    """What happened to the rows of a `Client.capture_frame` call.

    Attributes
    ----------
    accepted : int
        Rows the server acknowledged.
    rejected : int
        Rows refused: without an event name or distinct id (not sent), in a batch the server refused, or
        counted as rejected by the server.
    errors : list of str
        One message per refused batch or invalid row (the first 100).
    """

    accepted: int = 0
    rejected: int = 0
    errors: list[str] = field(default_factory=list)


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
    for name in (event, distinct_id):
        if name not in df.columns:
            raise KeyError(f"the frame has no {name!r} column")
    flat = [column for column in df.columns if column not in {event, distinct_id, timestamp, properties, "uuid"}]
    events: list[dict[str, Any]] = []
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
        stamp = _timestamp(row.get(timestamp)) if timestamp in row else None
        if stamp is not None:
            item["timestamp"] = stamp
        given = _plain(row.get("uuid"))
        content = json.dumps([position, item], sort_keys=True, default=str)
        item["uuid"] = str(given) if given else str(uuid.uuid5(_UUID_NAMESPACE, content))
        events.append(item)
    return events, errors


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
            ``accepted`` and ``rejected`` counts and the error messages.

        Examples
        --------
        >>> df = pd.DataFrame({"event": ["signup"], "distinct_id": ["u1"], "timestamp": ["2026-01-05T10:00:00Z"]})
        >>> client.capture_frame(df).accepted  # doctest: +SKIP
        1
        """
        if batch_size < 1:
            raise ValueError("batch_size must be at least 1")
        events, errors = frame_to_events(
            df, event=event, distinct_id=distinct_id, timestamp=timestamp, properties=properties
        )
        result = CaptureResult(rejected=len(errors), errors=errors[:100])
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
                    result.rejected += len(batch)
                    if len(result.errors) < 100:
                        result.errors.append(f"batch at row {start}: {error}")
                else:
                    refused = answer.get("rejected") if isinstance(answer, dict) else None
                    refused = int(refused) if isinstance(refused, int) and not isinstance(refused, bool) else 0
                    result.rejected += refused
                    result.accepted += len(batch) - refused
                bar.update(len(batch))
        return result

    def load_events(self, df: pd.DataFrame, **options: Any) -> CaptureResult:
        """Load a DataFrame of events into the project; the same as `capture_frame`.

        Examples
        --------
        >>> client.load_events(pd.read_csv("events.csv"))  # doctest: +SKIP
        CaptureResult(accepted=1200, rejected=0, errors=[])
        """
        return self.capture_frame(df, **options)
