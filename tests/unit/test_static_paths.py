"""Which request paths are served as their folder's index.html (portal/http/static_paths.py)."""

from __future__ import annotations

from pathlib import Path

from portal.http.static_paths import page_path


def _frontend(tmp_path: Path) -> Path:
    for folder in ("sign-in", "admin/tests", "assets"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "sign-in" / "index.html").write_text("<html></html>")
    (tmp_path / "admin" / "tests" / "index.html").write_text("<html></html>")
    (tmp_path / "assets" / "app-1a2b.js").write_text("")
    return tmp_path.resolve()


def test_a_page_folder_is_served_without_the_trailing_slash_redirect(tmp_path):
    root = _frontend(tmp_path)
    assert page_path("/sign-in", root) == "/sign-in/"
    assert page_path("/admin/tests", root) == "/admin/tests/"


def test_everything_else_is_left_alone(tmp_path):
    root = _frontend(tmp_path)
    assert page_path("/sign-in/", root) is None  # already the folder
    assert page_path("/assets/app-1a2b.js", root) is None  # a file
    assert page_path("/assets", root) is None  # a folder without a page
    assert page_path("/no-such-page", root) is None  # the router's fallback decides
    assert page_path("/api/health", root) is None
    assert page_path("/_event", root) is None
    assert page_path("/", root) is None
    assert page_path("/../sign-in", root) is None
    (tmp_path.parent / "outside").mkdir(exist_ok=True)
    (tmp_path.parent / "outside" / "index.html").write_text("")
    assert page_path("/../outside", root) is None
