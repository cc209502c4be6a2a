"""bench/scale_load.py's pure helpers: percentiles, the missing-answer count, the proxy's spread, a level's JSON
line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from types import SimpleNamespace

from bench.scale_load import Person, Phase, Stack, connection_spread, count_missing, figures
from bench.survey_flow import percentiles


def person(account_id: int, acked: dict | None = None, ports: list[int] | None = None) -> Person:
    return Person(account_id, tab=SimpleNamespace(), acked=acked or {}, ports=ports or [])


def test_percentiles_of_none_one_and_many_values():
    assert all(math.isnan(v) for v in percentiles([]))
    assert percentiles([7.0]) == (7.0, 7.0, 7.0)
    p50, p95, p99 = percentiles([float(v) for v in range(1, 101)])
    assert p50 == 50.5 and 95 <= p95 <= 96 and 99 <= p99 <= 100


def test_an_answer_missing_or_stale_in_the_stored_draft_is_counted():
    people = [person(1, {"a": 1, "b": ["x"]}), person(2, {"a": 2}), person(3, {"a": 3})]
    drafts = {
        1: {"a": {"value": 1}, "b": {"value": ["x"]}},  # all kept
        2: {"a": {"value": 5}},
    }  # a stale value; account 3 has no draft at all
    assert count_missing(people, drafts) == 2


def test_connection_spread_reads_the_proxys_log(tmp_path: Path):
    log = tmp_path / "proxy.log"
    log.write_text("1001 0\n1002 1\n1003 1\n2001 0\n2002 0\n")
    spread = connection_spread([person(1, ports=[1001, 1002, 1003]), person(2, ports=[2001, 2002])], log)
    assert spread == {"connections": 5, "consecutive_switched": 1, "consecutive_pairs": 3, "participants_on_both": 1}


def test_a_level_is_one_json_object_with_the_promised_keys():
    portal = Phase(
        latencies=[5.0, 6.0, 40.0],
        errors=["FlowError: x"],
        opened=3,
        open_seconds=1.5,
        saturation_events=100,
        saturation_seconds=10,
    )
    blank = Phase(latencies=[2.0, 3.0, 4.0], opened=3, open_seconds=0.5, saturation_events=400, saturation_seconds=10)
    row = figures(3, 2, Stack("http://localhost:1", []), portal, 0, blank, 300.0, 100.0)
    line = json.loads(json.dumps(row))
    assert {"participants", "answer_p95_ms", "errors", "acknowledged_missing"} <= line.keys()
    assert (line["participants"], line["errors"], line["acknowledged_missing"]) == (3, 1, 0)
    assert line["answer_events_per_s"] == 10.0 and line["blank_noop_events_per_s"] == 40.0
    assert line["ratios_portal_over_blank"]["events_per_s"] == 0.25
    assert line["ratios_portal_over_blank"]["rss"] == 3.0
