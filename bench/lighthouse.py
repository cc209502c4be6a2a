"""Lighthouse (desktop preset) on the portal's public pages: accessibility, best practices, SEO.

    .venv/bin/python bench/lighthouse.py                      # serves the app as the browser suites do
    .venv/bin/python bench/lighthouse.py --url http://localhost:3000 --path /sign-in --path /forgot

Installs the npm package `lighthouse` (LIGHTHOUSE_VERSION) into bench/.lighthouse/ (gitignored) with
the venv's npm and node, then runs it in Debian's Chromium (CHROME_PATH=/usr/bin/chromium, the
browser suites' flags) on each page and prints the three category scores and every audit that did
not pass. Without --url it migrates and seeds a temporary SQLite database and starts
`reflex run --env prod --single-port` on a free port (tests/e2e/conftest.py), stopped at the end.
Exit status 1 when a score is below --min (100 by default).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402

LIGHTHOUSE_VERSION = "13.5.0"
INSTALL_DIR = ROOT / "bench" / ".lighthouse"
VENV_BIN = Path(sys.executable).parent
CATEGORIES = ("accessibility", "best-practices", "seo")
PUBLIC_TEST = "Demo: Public qualification - Developer tools survey"
# The public pages; {public_test} is the demo test anyone may take without an account.
NOT_FOUND = "/no-such-page"
PAGES = ("/sign-in", "/sign-up", "/site-decider", "/forgot", "/verify-account", "/existing-account",
         "/test/{public_test}/rate", NOT_FOUND)
# A not-found page answers 404, as crawlers need (docs/decisions.md, 'Lighthouse'): the two audits that
# say only that are reported apart and do not fail the run.
STATUS_AUDITS = ("http-status-code", "errors-in-console")


def tool_env() -> dict[str, str]:
    """The venv's node and npm first on PATH; Lighthouse drives Debian's Chromium."""
    return {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}", "CHROME_PATH": CHROMIUM_PATH}


def lighthouse_bin() -> Path:
    """bench/.lighthouse/node_modules/.bin/lighthouse at LIGHTHOUSE_VERSION, installed when missing."""
    binary = INSTALL_DIR / "node_modules" / ".bin" / "lighthouse"
    package = INSTALL_DIR / "node_modules" / "lighthouse" / "package.json"
    if not package.exists() or json.loads(package.read_text())["version"] != LIGHTHOUSE_VERSION:
        INSTALL_DIR.mkdir(parents=True, exist_ok=True)
        print(f"installing lighthouse@{LIGHTHOUSE_VERSION} into {INSTALL_DIR} ...", flush=True)
        subprocess.run(["npm", "install", "--prefix", str(INSTALL_DIR), "--no-audit", "--no-fund", "--save-exact",
                        f"lighthouse@{LIGHTHOUSE_VERSION}"], env=tool_env(), check=True, stdout=subprocess.DEVNULL)
    return binary


def audit(binary: Path, url: str, out: Path) -> dict:
    """Lighthouse's JSON report of `url` (desktop preset, the three categories)."""
    subprocess.run(
        [str(binary), url, "--preset=desktop", f"--only-categories={','.join(CATEGORIES)}", "--output=json",
         f"--output-path={out}", "--quiet", f"--chrome-flags={shlex.join(CHROMIUM_ARGS)}",
         # The not-found page answers 404, as it must: audit it anyway (SEO's http-status-code says so).
         "--ignore-status-code"],
        env=tool_env(), check=True,
    )
    return json.loads(out.read_text())


def failing_audits(report: dict) -> list[tuple[str, str, bool]]:
    """(category, 'audit id (title): where', only the page's own 404 status) for every scored audit
    of the three categories below 1."""
    page_url = report["finalDisplayedUrl"]
    failing = []
    for category in CATEGORIES:
        for ref in report["categories"][category]["auditRefs"]:
            result = report["audits"][ref["id"]]
            if ref["weight"] > 0 and result.get("score") is not None and result["score"] < 1:
                items = (result.get("details") or {}).get("items") or []
                where = "; ".join(_item_text(item) for item in items[:3])
                status_only = ref["id"] in STATUS_AUDITS and all(
                    (item.get("sourceLocation") or {}).get("url") == page_url for item in items)
                failing.append((category, f"{ref['id']} ({result['title']})" + (f": {where}" if where else ""), status_only))
    return failing


def _item_text(item: dict) -> str:
    node = item.get("node") or {}
    for value in (node.get("snippet"), item.get("description"), item.get("url"), item.get("source")):
        if value:
            text = value if isinstance(value, str) else json.dumps(value)
            return text[:160]
    return json.dumps(item)[:160]


def serve() -> tuple[str, object, int | None]:
    """The app as the browser suites serve it: its URL, its process and the public demo test's id."""
    from sqlmodel import Session, select

    from portal.db import make_engine
    from portal.models import Test
    from tests.e2e.conftest import app_env, free_port, start_app

    data = Path(tempfile.mkdtemp(prefix="lighthouse-"))
    port = free_port()
    database_url = f"sqlite:///{data}/lighthouse.db"
    env = app_env(port, database_url)
    print(f"starting the portal on port {port} (log: {data / 'server.log'}) ...", flush=True)
    proc = start_app(port, env, data / "server.log")
    with Session(make_engine(database_url)) as session:
        test = session.exec(select(Test).where(Test.name == PUBLIC_TEST)).first()
    return env["BASE_URL"], proc, test.id if test else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running portal (default: start one)")
    parser.add_argument("--path", action="append", help="a page to audit (repeatable; default: the public pages)")
    parser.add_argument("--min", type=int, default=100, help="the lowest acceptable score (default 100)")
    args = parser.parse_args()
    binary = lighthouse_bin()
    proc, test_id = None, None
    base = args.url.rstrip("/") if args.url else None
    if base is None:
        base, proc, test_id = serve()
    try:
        paths = args.path or [p for p in PAGES if test_id is not None or "{public_test}" not in p]
        below = 0
        out = Path(tempfile.mkdtemp(prefix="lighthouse-reports-"))
        print(f"\n{'page':<34} {'a11y':>5} {'best':>5} {'seo':>5}")
        for i, path in enumerate(paths):
            path = path.format(public_test=test_id)
            report = audit(binary, f"{base}{path}", out / f"{i}.json")
            scores = [round((report["categories"][c]["score"] or 0) * 100) for c in CATEGORIES]
            failing = failing_audits(report)
            # On the not-found page a category is excused when its only failing audits are the 404 itself.
            excused = {c for c, _, _ in failing if all(s for c2, _, s in failing if c2 == c)} if path == NOT_FOUND else set()
            below += any(score < args.min and c not in excused for c, score in zip(CATEGORIES, scores))
            print(f"{path:<34} {scores[0]:>5} {scores[1]:>5} {scores[2]:>5}", flush=True)
            for category, text, status_only in failing:
                note = "  [the not-found page's 404 status: expected]" if category in excused and status_only else ""
                print(f"    {category}: {text}{note}")
        print(f"\nreports: {out}")
        return 1 if below else 0
    finally:
        if proc is not None:
            from tests.e2e.conftest import stop_app

            stop_app(proc)


if __name__ == "__main__":
    raise SystemExit(main())
