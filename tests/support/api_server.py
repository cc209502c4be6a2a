"""The portal's HTTP API alone, wrapped as the app wraps it (security headers, Connection: close after an
unread body), served by a real server in a process of its own: for tests that measure that process.

Start it with `granian --interface asgi --factory tests.support.api_server:build` (see
tests/integration/test_image_upload_limit.py); settings come from the environment as usual.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from starlette.types import ASGIApp


def build() -> ASGIApp:
    from portal.http import security_headers, unread_body
    from portal.http.app import build_api

    return unread_body.wrap(security_headers.wrap(build_api()))


def group_pids(pgid: int) -> Iterator[int]:
    """The processes of a process group (the server and its workers)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid:  # state, ppid, pgrp
            yield int(entry.name)


def status_kb(pid: int, field: str) -> int:
    """A memory figure of /proc/<pid>/status in kB (VmRSS: now; VmHWM: the peak since the last reset)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def reset_peak(pid: int) -> bool:
    """Start VmHWM again from the current RSS (Linux: '5' to clear_refs); False where not allowed."""
    try:
        Path(f"/proc/{pid}/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def memory_kb(pgid: int) -> dict[int, tuple[int, int]]:
    """(VmRSS, VmHWM) of every process of the group."""
    found = {}
    for pid in group_pids(pgid):
        try:
            found[pid] = (status_kb(pid, "VmRSS"), status_kb(pid, "VmHWM"))
        except OSError:
            continue
    return found


__all__ = ["build", "group_pids", "memory_kb", "reset_peak", "status_kb"]
