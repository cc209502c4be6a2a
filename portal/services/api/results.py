"""A test's results for the REST API (issue 39): the aggregates of the staff results page (admin/results.py
`results_view`, the same Report as the page and the exports) as plain data. The reviews themselves are the reviews
resource's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlmodel import Session

from portal.domain.results.report import PreferenceResult, QuestionResult, Report
from portal.domain.results.shares import Share
from portal.domain.staff import roles
from portal.services.admin import results as staff_results
from portal.services.admin.guard import Caller, require_staff
from portal.services.api.tests import existing


def _share(share: Share, labels: Mapping[str, str]) -> dict[str, Any]:
    return {
        "key": share.key,
        "label": labels.get(share.key, share.key),
        "count": share.count,
        "share": share.share,
        "interval": None if share.interval is None else {"low": share.interval.low, "high": share.interval.high},
    }


def _question(found: QuestionResult) -> dict[str, Any]:
    slot, summary = found.slot, found.summary
    return {
        "key": slot.key,
        "title": slot.title,
        "type": str(slot.question.get("type") or ""),
        "area": None if slot.area is None else slot.area + 1,
        "shape": summary.shape,
        "answered": summary.answered,
        "shares": [_share(s, summary.labels) for s in summary.shares],
        "labels": dict(summary.labels),
        "mean": summary.mean,
        "median": summary.median,
        "low": summary.low,
        "high": summary.high,
        "positions": dict(summary.positions),
        "table": {k: dict(v) for k, v in summary.table.items()},
        "texts": [{"text": text, "words": words} for text, words in summary.texts],
    }


def _preference(found: PreferenceResult | None) -> dict[str, Any] | None:
    if found is None:
        return None
    labels = {c.key: c.label for c in found.concepts}
    return {
        "prompt": found.prompt,
        "concepts": [{"key": c.key, "label": c.label, "url": c.url} for c in found.concepts],
        "shares": [_share(s, labels) for s in found.shares],
        "answered": found.answered,
        "by_position": list(found.by_position),
        "order": [
            {key: {"shown": cell.shown, "chosen": cell.chosen, "share": cell.share} for key, cell in position.items()}
            for position in found.order
        ],
    }


def _report(found: Report) -> dict[str, Any]:
    timing = found.timing
    return {
        "reviews": found.reviews,
        "timing": {
            "median_seconds": timing.median,
            "fastest_seconds": timing.fastest,
            "slowest_seconds": timing.slowest,
            "timed": timing.timed,
        },
        "questions": [_question(q) for q in found.questions],
        "preference": _preference(found.preference),
        "areas": [
            {"number": a.number, "box": list(a.box), "answered": a.answered, "questions": list(a.questions)}
            for a in found.areas
        ],
    }


def results(
    session: Session, *, actor_id: Caller, test_id: Any, filters: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What the results page shows for these filters (seniority, country, company_size, version, since, until,
    excluded), checked by the page's own reader: a value not among the choices is refused under its name."""
    require_staff(session, actor_id, roles.VIEW)
    test = existing(session, test_id)
    found = staff_results.results_view(session, actor_id=actor_id, test_id=test.id, filters=filters)
    chosen = found.filters
    return {
        "test_id": found.test_id,
        "name": found.name,
        "product_type": found.product_type,
        "versions": list(found.versions),
        "filters": {
            "seniority": chosen.seniority or None,
            "country": chosen.country or None,
            "company_size": chosen.company_size or None,
            "version": chosen.version,
            "since": chosen.since,
            "until": chosen.until,
            "excluded": chosen.excluded,
        },
        "funnel": {
            "invited": found.funnel.invited,
            "started": found.funnel.started,
            "submitted": found.funnel.submitted,
            "approved": found.funnel.approved,
        },
        "excluded_left_out": found.excluded_left_out,
        "screenshot": found.screenshot or None,
        **_report(found.report),
    }
