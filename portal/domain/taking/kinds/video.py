"""The video kind: the participant records on an external recorder (the rating page redirects)."""

from __future__ import annotations

from typing import Any

from portal.domain.definition_checks import Checker
from portal.domain.taking.kinds.base import VIDEO_REDIRECT, Kind


def read(
    ck: Checker, doc: dict[str, Any], *, product_type: str, seen_keys: dict[str, str], columns: dict[str, Any]
) -> None:
    if doc.get("videoTest") is None:
        ck.add("videoTest", "is required for a video test (with recorderUrl)")
        return
    video = ck.obj(doc["videoTest"], "videoTest", ("recorderUrl",)) or {}
    columns["video_recorder_url"] = ck.url(video, "recorderUrl", "videoTest", required=True)


KIND = Kind(
    name="video",
    view=VIDEO_REDIRECT,
    review_kind="video",
    fields=("videoTest",),
    read=read,
    product_types=("video-test",),
    hands_off=True,
)
