"""Preparing a file's batches in a second process, so reading and storing run on two cores at once.

The writer (this process) stores batch *n* while the reader process prepares batch *n + 1*; a bounded queue
keeps at most a few batches in memory. The reader process does nothing but read the file and prepare, and
never touches the database. A file that turns unreadable part-way raises the reader's error here, after the
batches before it are stored; stopping early (an error or Ctrl-C here) stops the reader.
"""

from __future__ import annotations

import gc
import multiprocessing
import queue as queue_module
import signal
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ValidationError
from .loader import GC_THRESHOLD, batched
from .prepare import PreparedBatch
from .readers import EventsFile, open_events_file

__all__ = ["prepared_in_process", "worth_a_reader_process", "PARALLEL_MIN_BYTES", "PARALLEL_MIN_ROWS"]

# Smaller files load faster without starting a process (a tenth to a quarter of a second). The size is in
# rows where the format says how many (Parquet, compressed), else in bytes (about 15,000 rows of exports).
PARALLEL_MIN_BYTES = 8 * 1024 * 1024
PARALLEL_MIN_ROWS = 15_000
_QUEUED_BATCHES = 3
_POLL_SECONDS = 1.0


@dataclass
class _Failure:
    detail: str
    attr: str | None


def _produce(path: str, format: str, batch_size: int, received: int, out: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the writer's to handle; it stops this process
    # Records make no reference cycles; collecting after every 700 new objects would cost a sixth of the time.
    gc.set_threshold(GC_THRESHOLD)
    try:
        for batch in batched(open_events_file(path, format).records, batch_size, received):
            out.put(batch)
    except ValidationError as error:
        out.put(_Failure(error.detail, error.attr))
    except Exception as error:  # anything else still reaches the user as a message, not a hang
        out.put(_Failure(f"{Path(path).name}: reading failed ({type(error).__name__}: {error})", "file"))
    out.put(None)


def worth_a_reader_process(events_file: EventsFile) -> bool:
    if events_file.total is not None:
        return events_file.total >= PARALLEL_MIN_ROWS
    return events_file.path.stat().st_size >= PARALLEL_MIN_BYTES


def prepared_in_process(path: Path, format: str, batch_size: int, received: int) -> Iterator[PreparedBatch]:
    """The file's prepared batches, made by a reader process; ``format`` is the detected one."""
    context = multiprocessing.get_context("spawn")  # no fork: the writer holds a database connection
    out = context.Queue(maxsize=_QUEUED_BATCHES)
    reader = context.Process(
        target=_produce, args=(str(path), format, batch_size, received, out), name="insightlab-reader", daemon=True
    )
    reader.start()
    try:
        while True:
            try:
                item = out.get(timeout=_POLL_SECONDS)
            except queue_module.Empty:
                if not reader.is_alive():
                    raise ValidationError(
                        f"{path.name}: the reader process stopped unexpectedly (exit code {reader.exitcode}).",
                        attr="file",
                    ) from None
                continue
            if item is None:
                return
            if isinstance(item, _Failure):
                raise ValidationError(item.detail, attr=item.attr)
            yield item
    finally:
        if reader.is_alive():
            reader.terminate()
        reader.join()
        out.close()
        out.cancel_join_thread()
