"""Integer columns read from ``group_concat`` texts (:mod:`local_backend.store.integer_text`)."""

from __future__ import annotations

import pytest

from local_backend.store.integer_text import distinct_ids, integers


def test_integers_of_a_group_concat_text():
    assert integers("3,-1,9223372036854775807").tolist() == [3, -1, 9223372036854775807]


@pytest.mark.parametrize("text", ["1,2.5", "1,p-bob", "1,,2", "1,2,"])
def test_a_value_that_is_not_an_integer_is_none(text):
    assert integers(text) is None


def test_distinct_ids_ascending_and_none_for_no_rows():
    assert distinct_ids("5,3,5,1,3").tolist() == [1, 3, 5]
    assert distinct_ids(None).tolist() == []
    assert distinct_ids("2,x") is None
