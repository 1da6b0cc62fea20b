"""ClickHouse as the event engine: embedded through chdb, or a server or cluster through clickhouse-connect.

Events (and the person and group rows calculations read beside them) live in ClickHouse; metadata stays in
the SQLite file. Everything here needs the ``insightlab[clickhouse]`` extra; :func:`.client.require` names it
when a package is missing.
"""
