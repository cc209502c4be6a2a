"""Browser and app-driving tests wait for what a person (or the caller) would see, never for a fixed time:
no `wait_for_timeout(`, `time.sleep(` or `asyncio.sleep(` in their directories, except the lines
allowed below, each a poll between two reads of a condition with a deadline."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DIRECTORIES = ("tests/e2e", "tests/e2e_default", "tests/e2e_production", "tests/security", "tests/support")
FIXED_WAIT = re.compile(
    r"\bwait_for_timeout\s*\(|\b(?:time|asyncio)\s*\.\s*sleep\s*\("
    r"|\bfrom\s+(?:time|asyncio)\s+import\b[^\n]*\bsleep\b"
)

# (file, the line as written without its indentation): why it may sleep.
ALLOWED = {
    (
        "tests/support/polling.py",
        "time.sleep(every)",
    ): "polled(): the pause between two reads of a condition, ended by the condition or its deadline",
    (
        "tests/support/portal_server.py",
        "time.sleep(1)",
    ): "start_portal(): the pause between two health checks of the app starting, ended by its deadline",
}


def fixed_waits() -> list[tuple[str, int, str]]:
    found = []
    for directory in DIRECTORIES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            name = path.relative_to(ROOT).as_posix()
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
                if FIXED_WAIT.search(line):
                    found.append((name, number, line.strip()))
    return found


def test_browser_and_app_tests_wait_for_conditions_not_for_time():
    waits = [f"{name}:{number}: {line}" for name, number, line in fixed_waits() if (name, line) not in ALLOWED]
    assert not waits, (
        "a fixed wait in a test: wait for what shows instead (expect(...), page.wait_for_function, "
        "an event or frame, tests.support.polling.polled):\n  " + "\n  ".join(waits)
    )


def test_every_allowed_line_is_still_there():
    present = {(name, line) for name, _, line in fixed_waits()}
    assert set(ALLOWED) <= present, f"allowed but gone (remove them from ALLOWED): {set(ALLOWED) - present}"


def test_the_check_finds_each_kind_of_fixed_wait():
    for line in (
        "page.wait_for_timeout(500)",
        "time.sleep(1.5)",
        "await asyncio.sleep(0.2)",
        "from time import sleep",
        "from asyncio import gather, sleep",
    ):
        assert FIXED_WAIT.search(line), line
    for line in ("page.wait_for_function('x')", "expect(box).to_be_visible()", "polled(read, done, timeout=5)"):
        assert not FIXED_WAIT.search(line), line
