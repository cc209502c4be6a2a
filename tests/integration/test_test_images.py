"""Test images on a migrated database (SQLite and PostgreSQL): the storage backends (a local
directory, and S3 against a real S3 stand-in on loopback), the image rule on real files (500 px
refused, 1400 px kept, not an image refused), what an upload changes and records, the /media
route, and who may call each staff function (every cell of the permission matrix)."""

from __future__ import annotations

import io
import json
import socket
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlmodel import Session
from starlette.testclient import TestClient

from portal.domain import images as rules
from portal.domain.staff import roles
from portal.http import media_routes
from portal.models import AuditEntry, Test
from portal.models._base import utcnow
from portal.services.admin import builder
from portal.services.admin import images as service
from portal.services.admin import tests as tests_service
from portal.services.admin.guard import NOT_ALLOWED, StaffRefused
from portal.services.definition_import import import_test
from portal.services.storage import LocalStorage, S3Storage, Storage, StorageError, read_all, valid_key
from tests.support.factories import make_participant
from tests.support.images import image_bytes, png

ROOT = Path(__file__).resolve().parents[2]


# --- storage backends ------------------------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A real S3-compatible server (moto's) on loopback, for the whole module."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    yield f"http://127.0.0.1:{port}"
    server.stop()


def s3_storage(endpoint: str, public_url: str = "") -> S3Storage:
    bucket = f"portal-{uuid.uuid4().hex[:12]}"
    store = S3Storage(
        bucket=bucket,
        endpoint_url=endpoint,
        region="us-east-1",
        access_key_id="testing",
        secret_access_key="testing",
        public_url=public_url,
    )
    store.client.create_bucket(Bucket=bucket)
    return store


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Storage:
    if request.param == "local":
        return LocalStorage(tmp_path / "media")
    return s3_storage(request.getfixturevalue("s3_endpoint"))


def test_a_stored_object_reads_back_and_goes_away(store: Storage):
    key = "images/" + "a" * 64 + ".png"
    assert not store.exists(key)
    store.put(key, io.BytesIO(b"first"), "image/png")
    store.put(key, io.BytesIO(b"second version"), "image/png")  # replaced, not appended
    assert store.exists(key)
    assert read_all(store, key) == b"second version"
    assert store.url(key).endswith("/" + key)
    store.delete(key)
    assert not store.exists(key)
    store.delete(key)  # deleting what is not there is nothing
    with pytest.raises(StorageError):
        read_all(store, key)


def test_a_large_stream_is_stored_in_parts(store: Storage):
    """Larger than boto3's multipart threshold (8 MB): stored from the stream, read back chunk by chunk."""
    data = bytes(range(256)) * (40 * 1024 * 4 + 7)  # 40 MB + a little
    key = "images/large.png"
    store.put(key, io.BytesIO(data), "image/png")
    chunks = list(store.open(key))
    assert len(chunks) > 1 and b"".join(chunks) == data
    store.delete(key)


@pytest.mark.parametrize(
    "key",
    [
        "../secret",
        "/etc/passwd",
        "images/../../x",
        "images/..",
        "Images/A.png",
        "images\\x.png",
        "images//x.png",
        "",
        "images/x.png/",
        ".hidden",
        "a b",
        "images/%2e%2e/x",
        "x" * 300,
        None,
        5,
    ],
)
def test_keys_that_could_leave_the_store_are_refused(store: Storage, key: Any):
    assert not valid_key(key)
    with pytest.raises(StorageError):
        store.url(key)
    with pytest.raises(StorageError):
        store.put(key, io.BytesIO(b"x"), "image/png")


def test_local_paths_stay_inside_the_directory(tmp_path: Path):
    store = LocalStorage(tmp_path / "media")
    assert store.path("images/x.png") == (tmp_path / "media" / "images" / "x.png").resolve()
    (tmp_path / "outside.png").write_bytes(b"secret")
    with pytest.raises(StorageError):
        store.open("../outside.png")


def test_s3_urls_are_the_public_address_when_there_is_one(s3_endpoint: str):
    assert (
        s3_storage(s3_endpoint, "https://cdn.example.com/portal/").url("images/x.png")
        == "https://cdn.example.com/portal/images/x.png"
    )
    assert s3_storage(s3_endpoint).url("images/x.png") == "/media/images/x.png"  # else served by the portal


def test_s3_objects_carry_their_type_and_a_long_cache(s3_endpoint: str):
    store = s3_storage(s3_endpoint)
    store.put("images/y.png", io.BytesIO(png(700)), "image/png")
    head = store.client.head_object(Bucket=store.bucket, Key="images/y.png")
    assert head["ContentType"] == "image/png"
    assert "immutable" in head["CacheControl"]


# --- the /media route -----------------------------------------------------------------------------------
@pytest.fixture
def media(store: Storage, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[TestClient, Storage]]:
    from fastapi import FastAPI

    monkeypatch.setattr(media_routes, "storage", lambda: store)
    api = FastAPI()
    api.include_router(media_routes.router)
    with TestClient(api) as client:
        yield client, store


def test_media_serves_a_stored_image_with_its_type_and_a_year_of_cache(media):
    client, store = media
    body = png(700)
    store.put("images/z.png", io.BytesIO(body), "image/png")
    answer = client.get("/media/images/z.png")
    assert answer.status_code == 200 and answer.content == body
    assert answer.headers["content-type"] == "image/png"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert client.head("/media/images/z.png").status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "/media/images/missing.png",
        "/media/images/z.txt",
        "/media/images/z.html",
        "/media/../portal.db",
        "/media/%2e%2e/%2e%2e/etc/passwd",
        "/media/images/..%2fz.png",
        "/media/",
        "/media/IMAGES/Z.PNG",
    ],
)
def test_media_answers_nothing_else(media, path: str):
    client, store = media
    store.put("images/z.png", io.BytesIO(png(700)), "image/png")
    assert client.get(path).status_code == 404


# --- the service: data ----------------------------------------------------------------------------------
def demo(session: Session, file: str) -> Test:
    data = json.loads((ROOT / "portal/data/demo_tests" / file).read_text())
    data["name"] = f"{data['name']} {uuid.uuid4().hex[:8]}"
    test = import_test(session, data)
    session.commit()
    return test


def account(session: Session, role: str | None = None, removed: bool = False) -> int:
    who = make_participant(session, password_hash="!")
    who.staff_role = role
    if removed:
        who.removed_at = utcnow()
    session.add(who)
    session.commit()
    return who.id


def factory_of(session: Session) -> Callable[[], Any]:
    engine = session.get_bind()

    @contextmanager
    def scope() -> Iterator[Session]:
        with Session(engine, expire_on_commit=False) as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    return scope


def upload(tmp_path: Path, data: bytes) -> service.ImageFile:
    path = tmp_path / f"upload-{uuid.uuid4().hex[:8]}"
    path.write_bytes(data)
    digest = service.digest()
    digest.update(data)
    return service.ImageFile(path=path, size=len(data), sha256=digest.hexdigest())


def audits(session: Session) -> list[AuditEntry]:
    return list(
        session.execute(select(AuditEntry).where(AuditEntry.action == "test.image").order_by(AuditEntry.id)).scalars()
    )


def fresh(session: Session, test: Test) -> Test:
    session.expire_all()
    return session.get(Test, test.id)


def stored_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


# --- the service: the image rule on real files ----------------------------------------------------------
def test_a_500_px_screenshot_is_refused_and_nothing_changes(session: Session, tmp_path: Path):
    test, staff = demo(session, "02-landing-page.json"), account(session, roles.TEAM_MANAGER)
    before = test.screenshot_url
    store = LocalStorage(tmp_path / "media")
    with pytest.raises(service.ImageRefused) as refused:
        service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp_path, png(500)),
            storage=store,
        )
    assert (refused.value.message, refused.value.status) == (
        "The image must be wider than 600 px (this one is 500 px).",
        422,
    )
    assert fresh(session, test).screenshot_url == before
    assert stored_files(tmp_path / "media") == [] and audits(session) == []


def test_a_1400_px_screenshot_is_kept_served_and_audited(session: Session, tmp_path: Path):
    test, staff = demo(session, "02-landing-page.json"), account(session, roles.TEAM_MANAGER)
    before = test.screenshot_url
    store = LocalStorage(tmp_path / "media")
    body = png(1400)
    url = service.keep_upload(
        session_factory=factory_of(session),
        actor_id=staff,
        test_id=test.id,
        slot="screenshot",
        upload=upload(tmp_path, body),
        storage=store,
    )
    assert url.startswith("/media/images/") and url.endswith(".png")
    assert fresh(session, test).screenshot_url == url
    [kept] = stored_files(tmp_path / "media")
    assert kept.read_bytes() == body
    [entry] = audits(session)
    assert (entry.actor_id, entry.target_type, entry.target_id) == (staff, "test", str(test.id))
    assert (entry.before, entry.after) == ({"screenshot": before}, {"screenshot": url})


def test_the_same_bytes_again_reuse_the_stored_object(session: Session, tmp_path: Path):
    test, staff = demo(session, "03-pricing.json"), account(session, roles.SUPER_ADMIN)
    store = LocalStorage(tmp_path / "media")
    body = png(900)
    urls = [
        service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot=slot,
            upload=upload(tmp_path, body),
            storage=store,
        )
        for slot in ("screenshot", "pricing-screenshot")
    ]
    assert urls[0] == urls[1] and len(stored_files(tmp_path / "media")) == 1
    again = fresh(session, test)
    assert again.screenshot_url == again.pricing_screenshot_url == urls[0]


@pytest.mark.parametrize(
    "data,status",
    [
        (b"just some text, not an image at all", 415),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 100, 415),  # a PNG signature and nothing that makes an image
        (b"<svg xmlns='http://www.w3.org/2000/svg' width='1400' height='900'></svg>", 415),
        (b"", 422),
    ],
)
def test_what_is_not_an_image_is_refused(session: Session, tmp_path: Path, data: bytes, status: int):
    test, staff = demo(session, "02-landing-page.json"), account(session, roles.TEAM_OWNER)
    store = LocalStorage(tmp_path / "media")
    with pytest.raises(service.ImageRefused) as refused:
        service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp_path, data),
            storage=store,
        )
    assert refused.value.status == status
    assert refused.value.message == (rules.NOT_AN_IMAGE if status == 415 else rules.EMPTY)
    assert stored_files(tmp_path / "media") == [] and audits(session) == []


@pytest.mark.parametrize("fmt,ext", [("JPEG", "jpg"), ("WEBP", "webp"), ("GIF", "gif"), ("BMP", None), ("TIFF", None)])
def test_each_type_is_known_by_its_content(session: Session, tmp_path: Path, fmt: str, ext: str | None):
    test, staff = demo(session, "02-landing-page.json"), account(session, roles.TEAM_OWNER)
    store = LocalStorage(tmp_path / "media")

    def call():
        return service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp_path, image_bytes(800, 600, fmt)),
            storage=store,
        )

    if ext is None:
        with pytest.raises(service.ImageRefused) as refused:
            call()
        assert refused.value.message == rules.NOT_AN_IMAGE
    else:
        assert call().endswith("." + ext)


def test_a_concept_image_changes_only_its_concept(session: Session, tmp_path: Path):
    test, staff = demo(session, "04-preference-image.json"), account(session, roles.TEAM_MANAGER)
    before = json.loads(json.dumps(test.preference_test))
    url = service.keep_upload(
        session_factory=factory_of(session),
        actor_id=staff,
        test_id=test.id,
        slot="concept-2",
        upload=upload(tmp_path, png(1200)),
        storage=LocalStorage(tmp_path / "media"),
    )
    after = fresh(session, test).preference_test
    expected = json.loads(json.dumps(before))
    expected["images"][1]["url"] = url
    assert after == expected
    [entry] = audits(session)
    assert (entry.before, entry.after) == ({"concept-2": before["images"][1]["url"]}, {"concept-2": url})


def test_while_the_builder_keeps_a_draft_an_upload_goes_into_the_draft(session: Session, tmp_path: Path):
    """A concept added in the builder (not saved yet) has its slot, and its image goes into the draft, so saving the
    draft keeps it. The saved test, which has no such concept yet, is untouched."""
    staff = account(session, roles.TEAM_MANAGER)
    test = demo(session, "04-preference-image.json")
    saved = json.loads(json.dumps(test.preference_test))
    draft = {"preferenceTest": {**saved, "images": [*saved["images"], {"key": "concept-4", "name": "New", "url": ""}]}}
    test.draft_document = draft
    session.add(test)
    session.commit()
    page = service.images_of_test(session=session, actor_id=staff, test_id=test.id)
    assert [s["key"] for s in page["slots"]] == ["concept-1", "concept-2", "concept-3", "concept-4"]
    assert page["draft"] == rules.IN_DRAFT
    url = service.keep_upload(
        session_factory=factory_of(session),
        actor_id=staff,
        test_id=test.id,
        slot="concept-4",
        upload=upload(tmp_path, png(1200)),
        storage=LocalStorage(tmp_path / "media"),
    )
    now = fresh(session, test)
    assert now.preference_test == saved
    assert now.draft_document["preferenceTest"]["images"][3] == {"key": "concept-4", "name": "New", "url": url}
    assert now.draft_document["preferenceTest"]["images"][:3] == saved["images"]
    [entry] = audits(session)
    assert (entry.before, entry.after) == ({"concept-4": ""}, {"concept-4": url, "draft": True})


def test_an_upload_shows_in_the_builders_draft_and_saving_the_builder_keeps_it(session: Session, tmp_path: Path):
    """A new page test's builder keeps a working copy from its first visit: a screenshot uploaded afterwards
    is in it, so the builder shows it and 'Save changes' does not put the draft's empty screenshot back."""
    staff = account(session, roles.TEAM_MANAGER)
    made = tests_service.create_test(
        session,
        actor_id=staff,
        form={"name": f"Upload {uuid.uuid4().hex[:8]}", "productType": "landing-page", "panel": "b2b"},
    )
    session.commit()
    assert made.test_id is not None
    before = builder.open_builder(session, actor_id=staff, test_id=made.test_id)
    assert before.has_draft and "screenshotUrl" not in before.document
    url = service.keep_upload(
        session_factory=factory_of(session),
        actor_id=staff,
        test_id=made.test_id,
        slot="screenshot",
        upload=upload(tmp_path, png(1400)),
        storage=LocalStorage(tmp_path / "media"),
    )
    session.expire_all()
    shown = builder.open_builder(session, actor_id=staff, test_id=made.test_id)
    assert shown.has_draft and shown.document["screenshotUrl"] == url
    document = {**shown.document, "url": "https://acme-analytics.example.com/"}
    outcome = builder.save(session, actor_id=staff, test_id=made.test_id, document=document)
    assert outcome.saved, outcome.problems
    session.expire_all()
    assert session.get(Test, made.test_id).screenshot_url == url


def test_the_images_page_data_lists_the_slots_of_the_kind(session: Session):
    staff = account(session, roles.TEAM_MANAGER)
    pricing = service.images_of_test(session=session, actor_id=staff, test_id=demo(session, "03-pricing.json").id)
    assert [s["key"] for s in pricing["slots"]] == ["screenshot", "pricing-screenshot"]
    preference = service.images_of_test(
        session=session, actor_id=staff, test_id=str(demo(session, "04-preference-image.json").id)
    )
    assert [s["key"] for s in preference["slots"]] == ["concept-1", "concept-2", "concept-3"]
    assert preference["slots"][0]["url"] == "/demo/concept-a.png" and preference["draft"] == ""
    survey = service.images_of_test(session=session, actor_id=staff, test_id=demo(session, "01-survey.json").id)
    assert survey["slots"] == []


@pytest.mark.parametrize(
    "file,slot",
    [
        ("02-landing-page.json", "pricing-screenshot"),
        ("02-landing-page.json", "concept-1"),
        ("01-survey.json", "screenshot"),
        ("04-preference-image.json", "concept-4"),
        ("05-preference-text.json", "concept-1"),
        ("03-pricing.json", "../screenshot"),
        ("03-pricing.json", None),
    ],
)
def test_slots_the_kind_does_not_have_are_not_found(session: Session, tmp_path: Path, file: str, slot: Any):
    test, staff = demo(session, file), account(session, roles.SUPER_ADMIN)
    with pytest.raises(service.NotFound):
        service.check_upload(session=session, actor_id=staff, test_id=test.id, slot=slot)
    with pytest.raises(service.NotFound):
        service.set_image(session=session, actor_id=staff, test_id=test.id, slot=slot, url="/media/images/x.png")


@pytest.mark.parametrize("test_id", [987_654_321, "abc", None, -1, True, "1e3"])
def test_unknown_tests_are_refused(session: Session, test_id: Any):
    staff = account(session, roles.SUPER_ADMIN)
    with pytest.raises(service.ServiceError) as refused:
        service.check_upload(session=session, actor_id=staff, test_id=test_id, slot="screenshot")
    assert refused.value.message == service.NO_TEST


def test_a_failed_update_leaves_no_stored_object(session: Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    test, staff = demo(session, "02-landing-page.json"), account(session, roles.SUPER_ADMIN)
    store = LocalStorage(tmp_path / "media")

    def broken(**_kwargs: Any) -> str:
        raise service.ServiceError("The database went away.")

    monkeypatch.setattr(service, "set_image", broken)
    with pytest.raises(service.ServiceError):
        service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp_path, png(1400)),
            storage=store,
        )
    assert stored_files(tmp_path / "media") == []


def test_keep_upload_to_s3(session: Session, tmp_path: Path, s3_endpoint: str):
    test, staff = demo(session, "03-pricing.json"), account(session, roles.TEAM_OWNER)
    store = s3_storage(s3_endpoint)
    body = png(1500)
    url = service.keep_upload(
        session_factory=factory_of(session),
        actor_id=staff,
        test_id=test.id,
        slot="pricing-screenshot",
        upload=upload(tmp_path, body),
        storage=store,
    )
    key = url.removeprefix("/media/")
    assert read_all(store, key) == body
    assert fresh(session, test).pricing_screenshot_url == url
    with pytest.raises(service.ImageRefused):
        service.keep_upload(
            session_factory=factory_of(session),
            actor_id=staff,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp_path, png(300)),
            storage=store,
        )
    listed = store.client.list_objects_v2(Bucket=store.bucket).get("Contents", [])
    assert [o["Key"] for o in listed] == [key]  # the refused one was never stored


# --- the permission matrix ------------------------------------------------------------------------------
CALLS: list[tuple[str, str, Callable[[Session, Any, Test, Path], Any]]] = [
    (
        "images_of_test",
        roles.VIEW,
        lambda s, actor, test, tmp: service.images_of_test(session=s, actor_id=actor, test_id=test.id),
    ),
    (
        "check_upload",
        roles.MANAGE_TESTS,
        lambda s, actor, test, tmp: (
            service.check_upload(session=s, actor_id=actor, test_id=test.id, slot="screenshot") or "checked"
        ),
    ),
    (
        "set_image",
        roles.MANAGE_TESTS,
        lambda s, actor, test, tmp: service.set_image(
            session=s, actor_id=actor, test_id=test.id, slot="screenshot", url="/media/images/set.png"
        ),
    ),
    (
        "keep_upload",
        roles.MANAGE_TESTS,
        lambda s, actor, test, tmp: service.keep_upload(
            session_factory=factory_of(s),
            actor_id=actor,
            test_id=test.id,
            slot="screenshot",
            upload=upload(tmp, png(1400)),
            storage=LocalStorage(tmp / "media"),
        ),
    ),
]


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix(session: Session, tmp_path: Path, name: str, permission: str, call):
    test = demo(session, "02-landing-page.json")
    staff = {role: account(session, role) for role in roles.ROLES}
    cases = [
        ("participant", account(session), False),
        ("unknown id", 987_654_321, False),
        ("None", None, False),
        ("removed super-admin", account(session, roles.SUPER_ADMIN, removed=True), False),
        ("id as text", str(staff[roles.SUPER_ADMIN]), False),
        ("bool", True, False),
        *((role, staff[role], roles.may(role, permission)) for role in roles.ROLES),
    ]
    before = fresh(session, test).screenshot_url
    for who, actor, works in cases:
        session.rollback()
        if works:
            assert call(session, actor, test, tmp_path) is not None, who
            continue
        with pytest.raises(StaffRefused) as refused:
            call(session, actor, test, tmp_path)
        assert refused.value.message == NOT_ALLOWED, who
        session.rollback()
        assert fresh(session, test).screenshot_url == before, who
        assert session.execute(select(func.count()).select_from(AuditEntry)).scalar_one() == 0, who
        assert stored_files(tmp_path / "media") == [], who
    assert [c[0] for c in cases[-3:]] == list(roles.ROLES)
