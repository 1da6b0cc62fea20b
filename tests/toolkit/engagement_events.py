"""Hand-written ``view`` events for the stickiness and lifecycle tests of the toolkit, and what they give.

All in UTC (the "Main" project's timezone); each person is created by their first event (the load does it).

======  =========================================  ======
who     view (plan)                                person created
======  =========================================  ======
ann     Jan 4 10:00, 5 10:00, 6 10:00, 8 10:00 (pro)  Jan 4
bob     Jan 6 11:00, Jan 6 15:00 (free)             Jan 6
cy      Jan 8 12:00 (free)                          Jan 8
dee     Jan 5 09:00, Jan 7 09:00 (pro)              Jan 5
======  =========================================  ======

eve does ``other`` on Jan 6, which no test asks for.

**Stickiness** of ``view``, 5 to 8 January by day (4 intervals; ann's 4 January is before the range): ann is
active 3 days (5, 6, 8), dee 2 (5, 7), bob and cy 1 each, so exactly 1..4 days: 2, 1, 1, 0 (4 persons);
cumulative (k or more): 4, 2, 1, 0. With at least 2 events in a day only bob's 6 January counts: 1, 0, 0, 0.
By plan: free (bob, cy) 2, 0, 0, 0 and pro (dee, ann) 0, 1, 1, 0; both have 2 persons, so free comes first
(by label). Compared with 1 to 4 January: only ann, on the 4th: 1, 0, 0, 0.

**Lifecycle** of ``view``, 5 to 8 January by day (4 January read as the interval before):

======  =====================  =====================  ==================  ==========================
day     new                    returning              resurrecting        dormant
======  =====================  =====================  ==================  ==========================
Jan 5   dee (created that day)  ann (active on the 4th)                     (nobody active on the 4th left)
Jan 6   bob                    ann                                        dee -1
Jan 7                                                 dee                 ann, bob -2
Jan 8   cy                                            ann                 dee -1
======  =====================  =====================  ==================  ==========================
"""

from __future__ import annotations

import pandas as pd

__all__ = ["EVENTS", "LIFECYCLE", "RANGE", "STICKINESS"]

_ROWS = [
    ("view", "ann", "2026-01-04 10:00", "pro"),
    ("view", "dee", "2026-01-05 09:00", "pro"),
    ("view", "ann", "2026-01-05 10:00", "pro"),
    ("view", "ann", "2026-01-06 10:00", "pro"),
    ("other", "eve", "2026-01-06 10:30", None),
    ("view", "bob", "2026-01-06 11:00", "free"),
    ("view", "bob", "2026-01-06 15:00", "free"),
    ("view", "dee", "2026-01-07 09:00", "pro"),
    ("view", "ann", "2026-01-08 10:00", "pro"),
    ("view", "cy", "2026-01-08 12:00", "free"),
]
EVENTS = pd.DataFrame(
    {
        "event": [row[0] for row in _ROWS],
        "distinct_id": [row[1] for row in _ROWS],
        "timestamp": pd.to_datetime([row[2] for row in _ROWS]),
        "properties": [{"plan": row[3]} if row[3] else {} for row in _ROWS],
    }
)
RANGE = {"date_from": "2026-01-05", "date_to": "2026-01-08"}
STICKINESS = [2, 1, 1, 0]
"""Persons active in exactly 1, 2, 3 and 4 of the range's days."""
LIFECYCLE = {"new": [1, 1, 0, 1], "returning": [1, 1, 0, 0], "resurrecting": [0, 0, 1, 1], "dormant": [0, -1, -2, -1]}
"""Each status' persons on 5, 6, 7 and 8 January."""
