"""The event engine: where a database's events live, and the one seam every read and write of them crosses.

    interface/     the protocols (:class:`~.interface.EventStore`, :class:`~.interface.Dialect`,
                   :class:`~.interface.EventWriter`) and their request types; imports no engine
    spec.py        ``--engine`` specs read and the database's recorded choice; imports no engine
    choice.py      the only module that knows every engine: the store of a connection, choosing an engine
    sqlite/        the events in the SQLite file (the default)
    clickhouse/    chdb, a ClickHouse server or a cluster

``docs/architecture.md`` ("The event engine") lists the seam method by method and what a third engine adds.
"""
