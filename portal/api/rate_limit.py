"""Requests per key and minute (issue 39): a fixed one-minute window counted in Redis when REDIS_URL is set (one
count for every worker), else in this process (the embedded default runs one backend process)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from portal.settings import settings


class Window:
    """Counts per key in the current minute, in memory."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._minute = -1
        self._counts: dict[int, int] = {}

    def hit(self, key_id: int, limit: int) -> int:
        """0 when allowed, else the seconds until the window opens again."""
        now = self._clock()
        minute = int(now // 60)
        with self._lock:
            if minute != self._minute:
                self._minute, self._counts = minute, {}
            count = self._counts.get(key_id, 0) + 1
            self._counts[key_id] = count
        return 0 if count <= limit else max(1, 60 - int(now % 60))


class RedisWindow:
    def __init__(self, url: str, clock: Callable[[], float] = time.time) -> None:
        import redis

        self._redis = redis.Redis.from_url(url)
        self._clock = clock

    def hit(self, key_id: int, limit: int) -> int:
        now = self._clock()
        name = f"portal:api-rate:{key_id}:{int(now // 60)}"
        pipe = self._redis.pipeline()
        pipe.incr(name)
        pipe.expire(name, 120)
        count = int(pipe.execute()[0])
        return 0 if count <= limit else max(1, 60 - int(now % 60))


_window: Window | RedisWindow | None = None


def window() -> Window | RedisWindow:
    global _window
    if _window is None:
        _window = RedisWindow(settings.redis_url) if settings.redis_url else Window()
    return _window
