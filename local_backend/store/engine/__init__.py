"""The event engine: where a database's events live, and the one seam every read and write of them crosses.

    interface/     the protocols (:class:`~.interface.EventStore`, :class:`~.interface.Dialect`,
                   :class:`~.interface.EventWriter`, :class:`~.interface.EventEngine`) and their request
                   types; imports no engine
    spec.py        ``--engine`` specs read and the database's recorded choice; imports no engine
    connection.py  connections that carry their database's open engine; imports no engine
    choice.py      the only module that knows every engine: opening a database's engine, the store and writer
                   of a connection, choosing an engine
    sqlite/        the events in the SQLite file (the default)
    clickhouse/    chdb, a ClickHouse server or a cluster

``docs/architecture.md`` ("The event engine") lists the seam method by method and what a third engine adds.

A database is opened with its engine once, and its connections carry it::

    from local_backend.store.engine.choice import open_database
    conn = open_database("analytics.db")
"""
