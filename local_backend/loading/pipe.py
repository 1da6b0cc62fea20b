"""Preparing a file's batches in a reader process, so reading and storing run on two cores at once.

The writer (the caller's process) stores batch *n* while the reader prepares batch *n + 1*. The reader is a
separate Python program (``python -m local_backend.loading.reader_process``), not a fork or a multiprocessing child: it
never shares the writer's database connection or threads, and never re-runs the caller's script or notebook.
It reads the file and prepares, and never touches the database. Batches come back through its standard
output, each as a length-prefixed pickle; the pipe's small buffer keeps the reader at most a batch ahead.

A file that turns unreadable part-way raises the reader's error in the writer, after the batches before it
are stored; stopping early (an error or Ctrl-C in the writer) stops the reader.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ..errors import ValidationError
from .prepare import PreparedBatch
from .readers import EventsFile

__all__ = ["prepared_in_process", "send", "END", "worth_a_reader_process", "PARALLEL_MIN_BYTES", "PARALLEL_MIN_ROWS"]

# Smaller files load faster without starting a process (a quarter of a second). The size is in rows where
# the format says how many (Parquet, compressed), else in bytes (about 15,000 rows of a typical export).
PARALLEL_MIN_BYTES = 8 * 1024 * 1024
PARALLEL_MIN_ROWS = 15_000
_LENGTH_BYTES = 8
END = ("end",)
_READER_MODULE = "local_backend.loading.reader_process"
# The directory holding the local_backend package, so the reader imports this very copy of it.
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def worth_a_reader_process(events_file: EventsFile) -> bool:
    if events_file.total is not None:
        return events_file.total >= PARALLEL_MIN_ROWS
    return events_file.path.stat().st_size >= PARALLEL_MIN_BYTES


def send(out: IO[bytes], message: Any) -> None:
    """Write one message for :func:`prepared_in_process` (the reader's side of the pipe)."""
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    out.write(len(data).to_bytes(_LENGTH_BYTES, "little"))
    out.write(data)
    out.flush()


def _receive(stream: IO[bytes]) -> Any | None:
    """The next message, or None when the reader's output ended without one."""
    head = stream.read(_LENGTH_BYTES)
    if len(head) < _LENGTH_BYTES:
        return None
    size = int.from_bytes(head, "little")
    data = stream.read(size)
    if len(data) < size:
        return None
    return pickle.loads(data)  # the output of our own reader process


def prepared_in_process(path: Path, format: str, batch_size: int, received: int) -> Iterator[PreparedBatch]:
    """The file's prepared batches, made by a reader process; ``format`` is the detected one."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [_PACKAGE_ROOT, environment.get("PYTHONPATH")]))
    command = [sys.executable, "-m", _READER_MODULE, str(path), format, str(batch_size), str(received)]
    reader = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
    assert reader.stdout is not None and reader.stderr is not None
    try:
        while True:
            message = _receive(reader.stdout)
            if isinstance(message, PreparedBatch):
                yield message
            elif message == END:
                return
            elif isinstance(message, tuple) and message[0] == "error":
                raise ValidationError(message[1], attr=message[2])
            else:
                reader.wait()
                said = reader.stderr.read().decode(errors="replace").strip().splitlines()
                raise ValidationError(
                    f"{path.name}: the reader process stopped unexpectedly (exit code {reader.returncode})"
                    + (f": {said[-1]}" if said else "."),
                    attr="file",
                )
    finally:
        if reader.poll() is None:
            reader.kill()
        reader.wait()
        reader.stdout.close()
        reader.stderr.close()
