"""Lighthouse (desktop preset) on the portal: accessibility, best practices, SEO of the public pages,
and performance of the pages people open most (signed out and signed in).

    .venv/bin/python bench/lighthouse.py                      # serves the app as the browser suites do
    .venv/bin/python bench/lighthouse.py --only performance --runs 3
    .venv/bin/python bench/lighthouse.py --url http://localhost:3000 --path /sign-in --path /forgot
    .venv/bin/python bench/lighthouse.py --url http://localhost:3000 --database-url sqlite:///... --only performance

Installs the npm package `lighthouse` (LIGHTHOUSE_VERSION) into bench/.lighthouse/ (gitignored) with
the venv's npm and node, then runs it in Debian's Chromium (CHROME_PATH=/usr/bin/chromium, the
browser suites' flags) on each page and prints the three category scores and every audit that did
not pass; then, for PERFORMANCE_PAGES, the performance score, LCP/FCP/TBT/CLS, every redirect,
every resource with a short cache lifetime, the unused JavaScript and the bytes
(bench/lighthouse_performance.py). Signed-in pages get a new verified participant with an open
invite to a copy of the demo survey and a live session (bench/survey_flow.py, as the load
benchmarks make them), whose cookie Lighthouse sends with every request (`--extra-headers`); with
--url they need --database-url, or are left out. Without --url it migrates and seeds a temporary
SQLite database and starts `reflex run --env prod --single-port` on a free port
(tests/e2e/conftest.py), stopped at the end.
Exit status 1 when an accessibility, best-practices or SEO score is below --min (100 by default), or a
performance page was redirected or has a resource with a short cache lifetime. The performance
score itself is reported, not checked: it moves with the machine's load.
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

from bench.lighthouse_performance import HEADER, details, performance  # noqa: E402
from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402

LIGHTHOUSE_VERSION = "13.5.0"
INSTALL_DIR = ROOT / "bench" / ".lighthouse"
VENV_BIN = Path(sys.executable).parent
CATEGORIES = ("accessibility", "best-practices", "seo")
PUBLIC_TEST = "Demo: Public qualification - Developer tools survey"
# The public pages; {public_test} is the demo test anyone may take without an account.
NOT_FOUND = "/no-such-page"
PAGES = (
    "/sign-in",
    "/sign-up",
    "/site-decider",
    "/forgot",
    "/verify-account",
    "/existing-account",
    "/test/{public_test}/rate",
    NOT_FOUND,
)
# A not-found page answers 404, as crawlers need (docs/decisions.md, 'Lighthouse'): the two audits that
# say only that are reported apart and do not fail the run.
STATUS_AUDITS = ("http-status-code", "errors-in-console")
# The performance pages: (label, path, signed in). {invited_test} is a test the participant has an open invite to.
PERFORMANCE_PAGES = (
    ("/sign-in", "/sign-in", False),
    ("/sign-up", "/sign-up", False),
    ("/ (home, signed in)", "/", True),
    ("/test/{id}/rate (invited, signed in)", "/test/{invited_test}/rate", True),
    ("/test/{id}/rate (public demo, signed out)", "/test/{public_test}/rate", False),
)


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
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(INSTALL_DIR),
                "--no-audit",
                "--no-fund",
                "--save-exact",
                f"lighthouse@{LIGHTHOUSE_VERSION}",
            ],
            env=tool_env(),
            check=True,
            stdout=subprocess.DEVNULL,
        )
    return binary


def audit(
    binary: Path, url: str, out: Path, categories: tuple[str, ...] = CATEGORIES, cookie: str | None = None
) -> dict:
    """Lighthouse's JSON report of `url` (desktop preset, `categories`), sending `cookie` when given."""
    headers = [f"--extra-headers={json.dumps({'Cookie': cookie})}"] if cookie else []
    subprocess.run(
        [
            str(binary),
            url,
            "--preset=desktop",
            f"--only-categories={','.join(categories)}",
            "--output=json",
            f"--output-path={out}",
            "--quiet",
            f"--chrome-flags={shlex.join(CHROMIUM_ARGS)}",
            *headers,
            # The not-found page answers 404, as it must: audit it anyway (SEO's http-status-code says so).
            "--ignore-status-code",
        ],
        env=tool_env(),
        check=True,
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
                    (item.get("sourceLocation") or {}).get("url") == page_url for item in items
                )
                failing.append(
                    (category, f"{ref['id']} ({result['title']})" + (f": {where}" if where else ""), status_only)
                )
    return failing


def _item_text(item: dict) -> str:
    node = item.get("node") or {}
    for value in (node.get("snippet"), item.get("description"), item.get("url"), item.get("source")):
        if value:
            text = value if isinstance(value, str) else json.dumps(value)
            return text[:160]
    return json.dumps(item)[:160]


def public_test_id(database_url: str) -> int | None:
    from sqlmodel import Session, select

    from portal.db import make_engine
    from portal.models import Test

    with Session(make_engine(database_url)) as session:
        test = session.exec(select(Test).where(Test.name == PUBLIC_TEST)).first()
    return test.id if test else None


def invited_participant(database_url: str) -> tuple[str, int]:
    """A new verified participant with a live session and an open invite to a copy of the demo
    survey: (its Cookie header, the test's id)."""
    from bench.survey_flow import import_bench_survey, make_participants

    test_id = import_bench_survey(database_url)
    return make_participants(database_url, test_id, 1)[0], test_id


def serve() -> tuple[str, object, str]:
    """The app as the browser suites serve it: its URL, its process and its database URL."""
    from tests.e2e.conftest import app_env, free_port, start_app

    data = Path(tempfile.mkdtemp(prefix="lighthouse-"))
    port = free_port()
    database_url = f"sqlite:///{data}/lighthouse.db"
    env = app_env(port, database_url)
    print(f"starting the portal on port {port} (log: {data / 'server.log'}) ...", flush=True)
    proc = start_app(port, env, data / "server.log")
    return env["BASE_URL"], proc, database_url


def quality(binary: Path, base: str, paths: list[str], minimum: int, out: Path) -> int:
    """Accessibility, best practices and SEO of `paths`: the table, the failing audits; how many pages fell short."""
    below = 0
    print(f"\n{'page':<34} {'a11y':>5} {'best':>5} {'seo':>5}")
    for i, path in enumerate(paths):
        report = audit(binary, f"{base}{path}", out / f"quality-{i}.json")
        scores = [round((report["categories"][c]["score"] or 0) * 100) for c in CATEGORIES]
        failing = failing_audits(report)
        # On the not-found page a category is excused when its only failing audits are the 404 itself.
        excused = (
            {c for c, _, _ in failing if all(s for c2, _, s in failing if c2 == c)} if path == NOT_FOUND else set()
        )
        below += any(score < minimum and c not in excused for c, score in zip(CATEGORIES, scores, strict=True))
        print(f"{path:<34} {scores[0]:>5} {scores[1]:>5} {scores[2]:>5}", flush=True)
        for category, text, status_only in failing:
            note = "  [the not-found page's 404 status: expected]" if category in excused and status_only else ""
            print(f"    {category}: {text}{note}")
    return below


def speed(binary: Path, base: str, pages: list[tuple[str, str, str | None]], out: Path, runs: int = 1) -> int:
    """Performance of `pages` (label, path, Cookie header or None), each audited `runs` times: the
    median run's row (by score, then LCP) with the spread of the others, and what that run flagged;
    how many pages were redirected, landed elsewhere or have a resource with a short cache lifetime."""
    flagged = 0
    print(f"\n{HEADER}")
    for i, (label, path, cookie) in enumerate(pages):
        reports = [
            audit(binary, f"{base}{path}", out / f"performance-{i}-{n}.json", ("performance",), cookie)
            for n in range(runs)
        ]
        measured = sorted(
            ((performance(r), r["finalDisplayedUrl"].removeprefix(base)) for r in reports),
            key=lambda pair: (pair[0].score or 0, -pair[0].lcp_ms),
        )
        perf, _ = measured[len(measured) // 2]
        print(perf.row(label), flush=True)
        if runs > 1:
            scores, lcps = [p.score or 0 for p, _ in measured], sorted(p.lcp_ms for p, _ in measured)
            print(f"    {runs} runs: score {min(scores)}-{max(scores)}, LCP {lcps[0]:.0f}-{lcps[-1]:.0f} ms")
        wrong = sorted({landed for _, landed in measured if landed.rstrip("/") != path.rstrip("/")})
        for landed in wrong:
            print(f"    landed on {landed}")
        for line in details(perf):  # the median run's findings (the flag below counts every run's)
            print(line)
        flagged += bool(wrong or any(p.redirects or p.short_cache for p, _ in measured))
    return flagged


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--url", help="a running portal (default: start one)")
    parser.add_argument("--database-url", help="the database of the portal given with --url (for the signed-in pages)")
    parser.add_argument(
        "--path", action="append", help="a page to audit, signed out (repeatable; default: the page lists)"
    )
    parser.add_argument(
        "--only", choices=("quality", "performance"), help="only accessibility/best practices/SEO, or only performance"
    )
    parser.add_argument("--min", type=int, default=100, help="the lowest acceptable quality score (default 100)")
    parser.add_argument(
        "--runs", type=int, default=1, help="performance runs per page; the median run is shown (default 1)"
    )
    args = parser.parse_args()
    binary = lighthouse_bin()
    proc, database_url = None, args.database_url
    base = args.url.rstrip("/") if args.url else None
    if base is None:
        base, proc, database_url = serve()
    try:
        public_test = public_test_id(database_url) if database_url else None
        out = Path(tempfile.mkdtemp(prefix="lighthouse-reports-"))
        below = flagged = 0
        if args.only != "performance":
            paths = args.path or [p for p in PAGES if public_test is not None or "{public_test}" not in p]
            below = quality(binary, base, [p.format(public_test=public_test) for p in paths], args.min, out)
        if args.only != "quality":
            cookie, invited_test = invited_participant(database_url) if database_url else (None, None)
            pages = (
                [(p, p, None) for p in args.path]
                if args.path
                else [
                    (
                        label,
                        path.format(public_test=public_test, invited_test=invited_test),
                        cookie if signed_in else None,
                    )
                    for label, path, signed_in in PERFORMANCE_PAGES
                    if (cookie or not signed_in) and (public_test is not None or "{public_test}" not in path)
                ]
            )
            flagged = speed(binary, base, pages, out, max(1, args.runs))
        print(f"\nreports: {out}")
        return 1 if below or flagged else 0
    finally:
        if proc is not None:
            from tests.e2e.conftest import stop_app

            stop_app(proc)


if __name__ == "__main__":
    raise SystemExit(main())
