"""Where users are sent: safe return paths, the sign-in redirect, rating paths."""

from urllib.parse import parse_qs, urlsplit

import pytest

from portal.domain.navigation import is_rating_path, normalize_path, safe_return_path, sign_in_redirect


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("/profile", "/profile"),
        ("/test/12/rate/questions/3?x=1", "/test/12/rate/questions/3?x=1"),
        (None, "/"),
        ("", "/"),
        ("https://evil.example.com/", "/"),
        ("//evil.example.com/path", "/"),
        ("javascript:alert(1)", "/"),
        ("profile", "/"),
        ("/\\evil.example.com", "/"),
        ("/sign-in?to=/x", "/"),
    ],
)
def test_safe_return_path(target, expected):
    assert safe_return_path(target) == expected


def test_sign_in_redirect_keeps_path_and_query():
    url = sign_in_redirect("/profile/", {"ev": "1", "email": "a@b.co"})
    parts = urlsplit(url)
    assert parts.path == "/sign-in"
    assert parse_qs(parts.query) == {"to": ["/profile"], "ev": ["1"], "email": ["a@b.co"]}


def test_sign_in_redirect_replaces_an_incoming_to():
    url = sign_in_redirect("/referral", {"to": "https://evil.example.com"})
    assert parse_qs(urlsplit(url).query) == {"to": ["/referral"]}


@pytest.mark.parametrize(
    ("path", "rating"),
    [
        ("/test/5/rate", True),
        ("/test/5/rate/", True),
        ("/test/abc/rate/questions", True),
        ("/test/abc/rate/questions/4", True),
        ("/test/5/rate/questions/x", False),
        ("/test/5", False),
        ("/profile", False),
    ],
)
def test_rating_paths_hide_navigation(path, rating):
    assert is_rating_path(path) is rating


def test_normalize_path():
    assert normalize_path("/profile/") == "/profile"
    assert normalize_path("/") == "/"
    assert normalize_path("") == "/"


@pytest.mark.parametrize(
    ("complete", "verified", "to", "expected"),
    [
        (False, False, "/profile", "/sign-up"),
        (False, True, "/profile", "/sign-up"),
        (True, False, "/profile", "/verify-account?from_sign_in=true"),
        (True, True, "/profile", "/profile"),
        (True, True, "https://evil.example.com", "/"),
        (True, True, None, "/"),
    ],
)
def test_after_password_sign_in(complete, verified, to, expected):
    from portal.domain.navigation import after_password_sign_in

    assert after_password_sign_in(to=to, registration_complete=complete, email_verified=verified) == expected
