"""Embedded video links of questions: only YouTube, Vimeo, Dailymotion and Loom (test-taking spec, issue 34).

One rule, used by the test definition's checks (portal/domain/question_definition.py) and so by the
builder's live messages and the import alike.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

# Provider -> the hosts its links (and embeds) live on; a subdomain of one counts (www., player.).
VIDEO_HOSTS: dict[str, tuple[str, ...]] = {
    "YouTube": ("youtube.com", "youtu.be", "youtube-nocookie.com"),
    "Vimeo": ("vimeo.com",),
    "Dailymotion": ("dailymotion.com", "dai.ly"),
    "Loom": ("loom.com",),
}
PROVIDERS = tuple(VIDEO_HOSTS)
NOT_A_VIDEO_SITE = "must be a video on YouTube, Vimeo, Dailymotion or Loom (e.g. https://www.youtube.com/embed/...)"


def provider_of(url: Any) -> str | None:
    """The provider of an http(s) link ('YouTube', ...), or None when it is none of the four."""
    if not isinstance(url, str):
        return None
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower().rstrip(".")
    if parts.scheme not in ("http", "https") or not host:
        return None
    for provider, hosts in VIDEO_HOSTS.items():
        if any(host == h or host.endswith("." + h) for h in hosts):
            return provider
    return None


def is_allowed(url: Any) -> bool:
    return provider_of(url) is not None
