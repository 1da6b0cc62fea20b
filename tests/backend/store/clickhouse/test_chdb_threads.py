"""One chdb session used from several threads at once, as the server's request threads use it."""

from __future__ import annotations

import threading

from .chdb_session import fresh_chdb_client


def test_queries_with_parameters_on_several_threads_each_get_their_own_answer():
    client = fresh_chdb_client("threads")
    client.command(f"CREATE TABLE `{client.database}`.n (a UInt64) ENGINE = MergeTree ORDER BY a")
    client.command(f"INSERT INTO `{client.database}`.n SELECT number FROM numbers(200000)")
    answers: dict[int, list[tuple]] = {k: [] for k in range(4)}
    failures: list[str] = []

    def ask(k: int) -> None:
        for _ in range(60):
            try:
                answers[k].extend(client.query_rows(
                    f"SELECT {{k:UInt64}}, count() FROM `{client.database}`.n WHERE a < {{limit:UInt64}}",
                    {"k": k, "limit": 1000 * (k + 1)},
                ))  # fmt: skip
            except Exception as error:  # a query that lost its parameters to another thread's query
                failures.append(str(error)[:120])

    threads = [threading.Thread(target=ask, args=(k,)) for k in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    # thread k asked for the rows below 1000 (k + 1): 1000 (k + 1) of them, every time
    assert {k: set(rows) for k, rows in answers.items()} == {k: {(k, 1000 * (k + 1))} for k in range(4)}
    assert all(len(rows) == 60 for rows in answers.values())
