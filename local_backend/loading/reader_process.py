"""The reader process of a bulk load: reads a file, prepares its batches, writes them to standard output.

Started by :func:`local_backend.loading.pipe.prepared_in_process` as
``python -m local_backend.loading.reader_process FILE FORMAT BATCH_SIZE RECEIVED``; not a command for users.
"""

from __future__ import annotations

import gc
import signal
import sys
from pathlib import Path

from ..errors import ValidationError
from .loader import GC_THRESHOLD, batched
from .pipe import END, send
from .readers import open_events_file

__all__ = ["main"]


def main(path: str, format: str, batch_size: int, received: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the writer's to handle; it stops the reader
    # Records make no reference cycles; collecting after every 700 new objects would cost a sixth of the time.
    gc.set_threshold(GC_THRESHOLD)
    out = sys.stdout.buffer
    try:
        for batch in batched(open_events_file(path, format).records, batch_size, received):
            send(out, batch)
    except ValidationError as error:
        send(out, ("error", error.detail, error.attr))
    except Exception as error:  # anything else still reaches the user as a message
        send(out, ("error", f"{Path(path).name}: reading failed ({type(error).__name__}: {error})", "file"))
    send(out, END)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
