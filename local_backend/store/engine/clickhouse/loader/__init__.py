"""The ClickHouse side of a chdb bulk load: ClickHouse reads the events file itself, a column at a time.

    staging.py           the staging table: the file read once, checked, deduplicated, copied into ``events``
    file_source.py       the ``file()`` table function a JSON Lines or Parquet file is read through
    times.py             timestamps read in SQL as the row-by-row loader reads them
    properties.py        property checks in SQL (depth, non-finite numbers, lone surrogates, repeated names)
    abandoned_stages.py  staging tables a killed load left behind

The load itself (:mod:`local_backend.loading.columnar`) decides persons, groups and definitions with
ingestion's rules, batch by batch, and writes each batch through the engine's transaction writes.
"""
