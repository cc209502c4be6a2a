"""What bench/lighthouse.py prints of Lighthouse's performance category: the score, the four
metrics, and the audits about loading each page once and caching it (redirects, cache lifetimes,
unused JavaScript, bytes).

Lighthouse 13 replaced the audit `uses-long-cache-ttl` by the insight `cache-insight` (same
table: url, cacheLifetimeMs). It lists every static resource answered 200 whose lifetime is under
30 days unless it says `no-cache`, `no-store`, `must-revalidate` or `private`, or `max-age=0`:
a file revalidated on every use is not flagged; a file with no Cache-Control, or a day, is."""

from __future__ import annotations

from dataclasses import dataclass, field

METRICS = ("largest-contentful-paint", "first-contentful-paint", "total-blocking-time", "cumulative-layout-shift")
CACHE_AUDIT = "cache-insight"  # was uses-long-cache-ttl before Lighthouse 13


@dataclass
class Performance:
    score: int | None
    lcp_ms: float
    fcp_ms: float
    tbt_ms: float
    cls: float
    redirects: list[str] = field(default_factory=list)  # 'url (N ms)' for every redirect on the way
    short_cache: list[str] = field(default_factory=list)  # 'url: TTL' for every resource flagged
    unused_js_kb: float = 0.0
    unused_js: list[str] = field(default_factory=list)  # 'url: N KB of M KB'
    total_kb: float = 0.0

    def row(self, label: str) -> str:
        score = "-" if self.score is None else str(self.score)
        return (
            f"{label:<40} {score:>5} {self.lcp_ms:>7.0f} {self.fcp_ms:>7.0f} {self.tbt_ms:>6.0f} {self.cls:>6.3f} "
            f"{len(self.redirects):>6} {len(self.short_cache):>6} {self.unused_js_kb:>8.0f} {self.total_kb:>8.0f}"
        )


HEADER = (
    f"{'page':<40} {'perf':>5} {'LCP ms':>7} {'FCP ms':>7} {'TBT ms':>6} {'CLS':>6} "
    f"{'redir':>6} {'cache':>6} {'unusedJS':>8} {'total KB':>8}"
)


def _items(report: dict, audit_id: str) -> list[dict]:
    return ((report["audits"].get(audit_id) or {}).get("details") or {}).get("items") or []


def _ttl(seconds: float | None) -> str:
    if not seconds:
        return "none"
    if seconds < 3600:
        return f"{seconds:.0f} s"
    return f"{seconds / 3600:.1f} h" if seconds < 86400 else f"{seconds / 86400:.0f} d"


def performance(report: dict) -> Performance:
    """The figures of one Lighthouse JSON report that ran the performance category."""
    audits = report["audits"]
    category = report["categories"].get("performance") or {}
    lcp, fcp, tbt, cls = (audits[m].get("numericValue") or 0 for m in METRICS)
    # The audit lists the document's chain ending with the final document: every hop before it is a
    # redirect. Any other request answered 3xx (a script, a stylesheet, an image) is listed too.
    chain = _items(report, "redirects")
    hops = [item.get("url") for item in chain]
    redirects = [
        f"{hop} -> {chain[n + 1].get('url')} ({chain[n].get('wastedMs', 0):.0f} ms)" for n, hop in enumerate(hops[:-1])
    ]
    redirects += [
        f"{item['url']} ({item.get('statusCode')})"
        for item in _items(report, "network-requests")
        if 300 <= (item.get("statusCode") or 0) < 400 and item["url"] not in hops
    ]
    short = [f"{item['url']}: {_ttl(item.get('cacheLifetimeMs', 0) / 1000)}" for item in _items(report, CACHE_AUDIT)]
    unused = _items(report, "unused-javascript")
    total = audits.get("total-byte-weight", {}).get("numericValue") or 0
    return Performance(
        score=None if category.get("score") is None else round(category["score"] * 100),
        lcp_ms=lcp,
        fcp_ms=fcp,
        tbt_ms=tbt,
        cls=cls,
        redirects=redirects,
        short_cache=short,
        unused_js_kb=sum(item.get("wastedBytes", 0) for item in unused) / 1024,
        unused_js=[
            f"{item['url']}: {item.get('wastedBytes', 0) / 1024:.0f} KB of {item.get('totalBytes', 0) / 1024:.0f} KB"
            for item in unused
        ],
        total_kb=total / 1024,
    )


def details(perf: Performance) -> list[str]:
    """The lines under a page's row: each redirect, each short cache lifetime, each unused script."""
    return (
        [f"    redirect: {r}" for r in perf.redirects]
        + [f"    short cache lifetime: {c}" for c in perf.short_cache]
        + [f"    unused JavaScript: {u}" for u in perf.unused_js]
    )
