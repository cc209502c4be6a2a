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


def _served(tmp_path: Path):
    from starlette.staticfiles import StaticFiles
    from starlette.testclient import TestClient

    from portal.http.static_paths import StaticPaths

    root = _frontend(tmp_path)
    (root / "portal.js").write_text("// portal")
    (root / "404.html").write_text("<html>not found</html>")
    return TestClient(StaticPaths(StaticFiles(directory=root, html=True), directory=root))


def test_hashed_files_are_immutable_for_a_year_and_the_rest_revalidated(tmp_path):
    client = _served(tmp_path)
    hashed = client.get("/assets/app-1a2b.js")
    assert hashed.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert (
        client.get("/assets/app-1a2b.js", headers={"If-None-Match": hashed.headers["etag"]}).headers["cache-control"]
        == "public, max-age=31536000, immutable"
    )
    for path in ("/portal.js", "/sign-in", "/sign-in/", "/admin/tests"):
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == 200, path
        assert answer.headers["cache-control"] == "no-cache" and "etag" in answer.headers, path
    missing = client.get("/assets/gone-9f9f.js")
    assert missing.status_code == 404 and missing.headers["cache-control"] == "no-cache"
    assert client.get("/no-such-page").headers["cache-control"] == "no-cache"
