"""What bench/lighthouse.py reads from a Lighthouse performance report (bench/lighthouse_performance.py)."""

from __future__ import annotations

from bench.lighthouse_performance import details, performance


def _report(redirects: list[dict], cached: list[dict], requests: list[dict]) -> dict:
    metric = {
        "largest-contentful-paint": 812.4,
        "first-contentful-paint": 700.0,
        "total-blocking-time": 12.0,
        "cumulative-layout-shift": 0.004,
    }
    audits = {name: {"numericValue": value} for name, value in metric.items()}
    audits.update(
        {
            "redirects": {"score": 0 if redirects else 1, "details": {"items": redirects}},
            "cache-insight": {"details": {"items": cached}},
            "network-requests": {"details": {"items": requests}},
            "unused-javascript": {
                "details": {"items": [{"url": "http://x/assets/a.js", "wastedBytes": 20480, "totalBytes": 40960}]}
            },
            "total-byte-weight": {"numericValue": 409600},
        }
    )
    return {"categories": {"performance": {"score": 0.97}}, "audits": audits}


def test_a_clean_page_reports_its_figures_and_nothing_flagged():
    perf = performance(_report([], [], [{"url": "http://x/sign-in", "statusCode": 200, "resourceType": "Document"}]))
    assert (perf.score, round(perf.lcp_ms), perf.tbt_ms, perf.cls) == (97, 812, 12.0, 0.004)
    assert perf.redirects == [] and perf.short_cache == []
    assert (perf.unused_js_kb, perf.total_kb) == (20.0, 400.0)
    assert details(perf) == ["    unused JavaScript: http://x/assets/a.js: 20 KB of 40 KB"]


def test_redirects_and_short_cache_lifetimes_are_listed():
    perf = performance(
        _report(
            [{"url": "http://x/sign-in", "wastedMs": 170}, {"url": "http://x/sign-in/", "wastedMs": 0}],
            [
                {"url": "http://x/portal.js", "cacheLifetimeMs": 0},
                {"url": "http://x/favicon.ico", "cacheLifetimeMs": 86400000},
            ],
            [
                {"url": "http://x/sign-in", "statusCode": 307},
                {"url": "http://x/logo.svg", "statusCode": 307, "resourceType": "Image"},
            ],
        )
    )
    assert perf.redirects == ["http://x/sign-in -> http://x/sign-in/ (170 ms)", "http://x/logo.svg (307)"]
    assert perf.short_cache == ["http://x/portal.js: none", "http://x/favicon.ico: 1 d"]
