"""The pipeline: load a project's enabled configs, run them in order, count deliveries and failures."""

from __future__ import annotations

from datetime import timedelta

from local_backend.clock import format_instant
from local_backend.plugins.base import Plugin
from local_backend.plugins.catalog import get_plugin
from local_backend.plugins.pipeline import (
    ConfiguredPlugin,
    delivery_rates,
    load_enabled_plugins,
    record_pipeline_outcomes,
    run_pipeline,
)
from local_backend.store.plugin_configs import get_plugin_config, insert_plugin_config

PROPERTY_FILTER, TAXONOMY, DOWNSAMPLING, BOT_FILTER, NOTIFICATION_BAR = (get_plugin(n) for n in range(1, 6))


def explode(event, config):
    raise ValueError("cannot parse $current_url")


def half_written(event, config):
    event["properties"]["touched"] = True  # changes its copy, then fails: the change must not leak
    raise RuntimeError("boom")


EXPLODING = Plugin(id=90, slug="explode", name="Explode", description="", tag="0", process_event=explode)
HALF_WRITTEN = Plugin(id=91, slug="half", name="Half", description="", tag="0", process_event=half_written)


def event(name="Signed Up", distinct_id="alice", **properties):
    return {
        "uuid": f"uuid-{name}-{distinct_id}",
        "event": name,
        "distinct_id": distinct_id,
        "properties": dict(properties),
        "timestamp": "2026-01-15T11:00:00.000000Z",
        "team_id": 1,
    }


def test_plugins_run_in_order_and_each_sees_the_previous_output():
    rename = ConfiguredPlugin(config_id=1, plugin=TAXONOMY, config={"defaultNamingConvention": "snake_case"})
    strip = ConfiguredPlugin(config_id=2, plugin=PROPERTY_FILTER, config={"event_properties": "$ip"})
    result = run_pipeline(event(**{"$ip": "1.1.1.1", "plan": "pro"}), [rename, strip])
    assert result.event["event"] == "signed_up"
    assert result.event["properties"] == {"plan": "pro"}
    assert result.processed == [1, 2]
    assert result.failures == []


def test_a_dropped_event_reaches_no_later_plugin():
    bots = ConfiguredPlugin(config_id=4, plugin=BOT_FILTER, config={"drop_without_user_agent": "Yes"})
    rename = ConfiguredPlugin(config_id=5, plugin=TAXONOMY, config={"defaultNamingConvention": "camelCase"})
    assert run_pipeline(event(), [bots, rename]).processed == [4]
    assert run_pipeline(event(), [bots, rename]).event is None
    kept = run_pipeline(event(), [rename, bots])
    assert (kept.event, kept.processed) == (None, [5, 4])


def test_a_failing_plugin_is_recorded_and_the_event_continues_unchanged():
    failing = ConfiguredPlugin(config_id=7, plugin=HALF_WRITTEN, config={})
    exploding = ConfiguredPlugin(config_id=8, plugin=EXPLODING, config={})
    rename = ConfiguredPlugin(config_id=9, plugin=TAXONOMY, config={"defaultNamingConvention": "PascalCase"})
    original = event(plan="pro")
    result = run_pipeline(original, [failing, exploding, rename])
    assert result.event["event"] == "SignedUp"
    assert result.event["properties"] == {"plan": "pro"}
    assert original["properties"] == {"plan": "pro"}
    assert result.processed == [9]
    assert [(f["config_id"], f["message"], f["event_uuid"]) for f in result.failures] == [
        (7, "boom", "uuid-Signed Up-alice"),
        (8, "cannot parse $current_url", "uuid-Signed Up-alice"),
    ]


def _add_config(conn, project_id, plugin_id, order, *, enabled=True, deleted=False, config=None, version=None):
    plugin = get_plugin(plugin_id)
    return insert_plugin_config(
        conn,
        project_id=project_id,
        plugin_id=plugin_id,
        order=order,
        config=config if config is not None else plugin.default_config(),
        config_schema_version=version or plugin.config_schema_version,
        now="2026-01-15T12:00:00.000000Z",
        enabled=enabled,
        deleted=deleted,
    )


def test_load_enabled_plugins_orders_by_order_then_id_and_skips_the_rest(conn, world):
    third = _add_config(conn, world.project_id, 2, order=5)
    first = _add_config(conn, world.project_id, 4, order=1)
    second = _add_config(conn, world.project_id, 1, order=1, config={"properties": "$set.email,$ip"}, version=1)
    _add_config(conn, world.project_id, 3, order=0, enabled=False)
    _add_config(conn, world.project_id, 3, order=0, deleted=True)
    _add_config(conn, world.project_id, 5, order=0)  # a site app: nothing to run on events
    _add_config(conn, world.other_project_id, 2, order=0)
    loaded = load_enabled_plugins(conn, world.project_id)
    assert [p.config_id for p in loaded] == [first, second, third]
    # a config stored at an older schema version runs with its upgraded form
    assert loaded[1].config == {"event_properties": "$ip", "person_properties": "email"}


def test_outcomes_give_delivery_rate_over_the_last_24_hours(conn, world, clock):
    ok = _add_config(conn, world.project_id, 2, order=1)
    flaky = _add_config(conn, world.project_id, 1, order=2)
    quiet = _add_config(conn, world.project_id, 3, order=3)
    plugins = [
        ConfiguredPlugin(config_id=ok, plugin=TAXONOMY, config={"defaultNamingConvention": "camelCase"}),
        ConfiguredPlugin(config_id=flaky, plugin=EXPLODING, config={}),
    ]
    # 3 events 30 hours ago (outside the window), then 4 events now: flaky fails on all of them
    clock.advance(hours=-30)
    record_pipeline_outcomes(conn, [run_pipeline(event(), plugins) for _ in range(3)], clock.now())
    clock.advance(hours=30)
    results = [run_pipeline(event(distinct_id=f"u{n}"), plugins) for n in range(4)]
    results[0].failures.clear()  # one event where flaky succeeded, written by hand
    results[0].processed.append(flaky)
    record_pipeline_outcomes(conn, results, format_instant(clock.now()))
    rates = delivery_rates(conn, [ok, flaky, quiet], clock.now())
    assert rates == {ok: 1.0, flaky: 0.25, quiet: None}
    error = get_plugin_config(conn, world.project_id, flaky)["error"]
    assert error == {
        "message": "cannot parse $current_url",
        "time": "2026-01-15T12:00:00.000000Z",
        "name": "ValueError",
        "event_uuid": "uuid-Signed Up-u3",
        "event": "signedUp",  # the event as the failing plugin saw it, after taxonomy renamed it
    }
    assert get_plugin_config(conn, world.project_id, ok)["error"] is None
    # 23 hours on, the 12:00 hour is still inside the window; 24 hours on it is not
    assert delivery_rates(conn, [flaky], clock.now() + timedelta(hours=23))[flaky] == 0.25
    assert delivery_rates(conn, [flaky], clock.now() + timedelta(hours=24))[flaky] is None


def test_outcomes_of_configs_that_are_not_stored_are_ignored(conn, world, clock):
    stored = _add_config(conn, world.project_id, 2, order=1)
    plugins = [
        ConfiguredPlugin(config_id=stored, plugin=TAXONOMY, config={"defaultNamingConvention": "camelCase"}),
        ConfiguredPlugin(config_id=4242, plugin=EXPLODING, config={}),
    ]
    record_pipeline_outcomes(conn, [run_pipeline(event(), plugins)], clock.now())
    assert delivery_rates(conn, [stored, 4242], clock.now()) == {stored: 1.0, 4242: None}
