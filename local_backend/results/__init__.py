"""Computed results: the cache, the refresh modes, and background calculation.

A calculation (a trend, a funnel, ...) is a function of a connection; this package decides whether to run
it now, in the background, or not at all, according to the caller's ``refresh`` mode and the age of the
cached result, and keeps the status of background runs so clients can poll and cancel them.
"""
