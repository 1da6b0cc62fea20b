"""SQLite as the event engine (the default): the events in the SQLite file beside the metadata.

:mod:`.event_store` reads them (with :mod:`.listing` for the events list and property values and
:mod:`.flagged_scan` for funnels' ordered scans), :mod:`.dialect` is the SQL the filters compile to.
"""
