"""Staff: a test's images (page screenshot, pricing page screenshot, preference concepts).

An upload goes: `check_upload` (who may, which test, which slot: before a byte of the body is
read) -> the bytes arrive on disk with their size counted (portal/http/image_routes.py) ->
`keep_upload` (the image rule on the file's header, the storage, then `set_image` in its own
short transaction with its audit row). Only the slots that fit the test's kind exist
(portal/domain/images.py).

While the builder keeps a draft of the test (`Test.draft_document`), the slots are the draft's, and an upload goes
into the draft as well as into the saved test when it has that slot: the builder shows it, and 'Save changes' keeps
it. So a concept added in the builder gets its image before its first save, and saving the draft never puts back
the image an upload replaced.
"""

from __future__ import annotations

import copy
import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image, UnidentifiedImageError
from sqlmodel import Session

from portal.domain import images as rules
from portal.domain.authoring import document
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.models import Test
from portal.models._base import utcnow
from portal.services import row_locks
from portal.services.admin import audit, versions
from portal.services.admin.guard import Caller, require_staff
from portal.services.errors import ServiceError
from portal.services.storage import Storage
from portal.services.storage import storage as default_storage

log = logging.getLogger(__name__)

NO_TEST = "This test does not exist."


class NotFound(ServiceError):
    """No such test, or the test has no such image slot."""


class ImageRefused(ServiceError):
    """The file breaks the image rule; `status` is the HTTP answer's (413, 415 or 422)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message, field="image")
        self.status = status


@dataclass(frozen=True)
class ImageFile:
    """An upload as it arrived: on disk, its size counted and its digest taken while it came in."""

    path: Path
    size: int
    sha256: str


def _test(session: Session, test_id: Any, *, lock: bool = False) -> Test:
    tid = whole_number(test_id)
    test = (row_locks.locked(session, Test, tid) if lock else session.get(Test, tid)) if tid else None
    if test is None:
        raise NotFound(NO_TEST)
    return test


def _draft(test: Test) -> dict[str, Any] | None:
    """The builder's working copy of the test, when one is kept."""
    return test.draft_document if isinstance(test.draft_document, dict) else None


def _saved_slots(test: Test) -> list[rules.Slot]:
    return rules.slots(test.product_type, test.screenshot_url, test.pricing_screenshot_url, test.preference_test)


def _slots(test: Test) -> list[rules.Slot]:
    """The slots the Images tab shows: the draft's while the builder keeps one, else the saved test's."""
    draft = _draft(test)
    if draft is not None:  # what the builder shows (a field the draft does not have is empty there)
        return rules.slots(
            test.product_type,
            draft.get("screenshotUrl"),
            draft.get("pricingScreenshotUrl"),
            draft.get("preferenceTest"),
        )
    return _saved_slots(test)


def _slot(test: Test, slot: Any) -> rules.Slot:
    found = rules.slot_named(_slots(test), slot)
    if found is None:
        raise NotFound(rules.NO_SUCH_SLOT)
    return found


def images_of_test(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, Any]:
    """The test's name and its image slots with their current images (what the images page shows)."""
    require_staff(session, actor_id, roles.VIEW)
    test = _test(session, test_id)
    return {
        "id": str(test.id),
        "name": test.name,
        "slots": [{"key": s.key, "label": s.label, "url": s.url} for s in _slots(test)],
        "in_use": versions.in_use_note(session, test),
        "draft": rules.IN_DRAFT if _draft(test) is not None else "",
    }


def check_upload(session: Session, *, actor_id: Caller, test_id: Any, slot: Any) -> None:
    """Before the body is read: the caller may manage tests, the test exists and has this slot."""
    require_staff(session, actor_id, roles.MANAGE_TESTS)
    _slot(_test(session, test_id), slot)


def read_header(path: Path) -> tuple[str | None, int | None, int | None]:
    """(Pillow's format, width, height) from the file's header only; (None, None, None) for a file
    that is no image Pillow knows."""
    try:
        with Image.open(path) as image:  # lazy: reads the header, decodes no pixels
            return image.format, image.width, image.height
    except Image.DecompressionBombError:
        return "BOMB", None, None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError):
        return None, None, None


def image_problem(path: Path, size: int) -> tuple[str, int] | None:
    """(message, HTTP status) when the file breaks the image rule, else None."""
    message = rules.size_message(size)
    if message:
        return message, 413 if size > rules.MAX_IMAGE_BYTES else 422
    pillow_format, width, height = read_header(path)
    if pillow_format == "BOMB":
        return rules.TOO_MANY_PIXELS, 422
    message = rules.image_message(pillow_format, width, height)
    if message == rules.NOT_AN_IMAGE:
        return message, 415
    return (message, 422) if message else None


def set_image(session: Session, *, actor_id: Caller, test_id: Any, slot: Any, url: str) -> str:
    """Point a slot of the test at `url` (a stored image), with its audit row; returns the URL. The saved test
    changes when it has the slot (a concept: one with the same key); the builder's draft, when one is kept, too
    (a concept only the draft has so far gets its image there, saved with the draft)."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    test = _test(session, test_id, lock=True)
    found = _slot(test, slot)
    if not isinstance(url, str) or not url or len(url) > 2000:
        raise ServiceError("The image address is not valid.")
    before = found.url
    draft = _draft(test)
    concept_key: Any = None
    if found.key == rules.SCREENSHOT:
        field = "screenshotUrl"
    elif found.key == rules.PRICING_SCREENSHOT:
        field = "pricingScreenshotUrl"
    else:
        field = "preferenceTest.images"
        shown = (draft or {}).get("preferenceTest") if draft is not None else test.preference_test
        concept_key = shown["images"][found.concept_index].get("key") if isinstance(shown, dict) else None
    saved = _saved_slot(test, found.key, concept_key)
    if saved is not None:
        versions.mark(session, staff.account_id, "images")
        if found.key == rules.SCREENSHOT:
            test.screenshot_url = url
        elif found.key == rules.PRICING_SCREENSHOT:
            test.pricing_screenshot_url = url
        else:
            preference = copy.deepcopy(test.preference_test)
            preference["images"][saved]["url"] = url
            test.preference_test = preference  # a new value: the JSON column is written
        test.updated_at = utcnow()
    if draft is not None:  # the builder's working copy shows the upload and keeps it on save
        test.draft_document = document.with_image(draft, field, url, concept_key)
    session.add(test)
    after: dict[str, Any] = {found.key: url} if saved is not None else {found.key: url, "draft": True}
    audit.record(session, staff, "test.image", "test", test.id, {found.key: before}, after)
    session.flush()
    return url


def _saved_slot(test: Test, key: str, concept_key: Any) -> int | None:
    """Whether the saved test has the slot: 0 for a screenshot of its kind, a concept's index (by key) in its
    preferenceTest.images; None when only the draft has it."""
    if key in (rules.SCREENSHOT, rules.PRICING_SCREENSHOT):
        return 0 if any(s.key == key for s in _saved_slots(test)) else None
    images = (test.preference_test or {}).get("images") if isinstance(test.preference_test, dict) else None
    for index, image in enumerate(images if isinstance(images, list) else []):
        if isinstance(image, dict) and concept_key is not None and image.get("key") == concept_key:
            return index
    return None


def storage_key(upload: ImageFile, pillow_format: str) -> str:
    """Content-addressed: the same bytes get the same key, a key never changes its content."""
    return f"images/{upload.sha256}.{rules.IMAGE_TYPES[pillow_format].extension}"


def keep_upload(
    *, session_factory: Any, actor_id: Any, test_id: Any, slot: Any, upload: ImageFile, storage: Storage | None = None
) -> str:
    """Check the arrived file against the image rule, store it and point the slot at it.

    `session_factory()` gives a transaction (a context manager yielding a Session): the storage is
    written between two short transactions, never inside one. Raises ImageRefused, NotFound or
    StaffRefused; nothing is stored or changed then. Returns the image's URL."""
    store = storage or default_storage()
    with session_factory() as session:  # again: the role or the test may have changed meanwhile
        check_upload(session=session, actor_id=actor_id, test_id=test_id, slot=slot)
    problem = image_problem(upload.path, upload.size)
    if problem:
        raise ImageRefused(*problem)
    pillow_format, _, _ = read_header(upload.path)
    key = storage_key(upload, str(pillow_format))
    existed = store.exists(key)
    if not existed:
        with upload.path.open("rb") as stream:
            store.put(key, stream, rules.IMAGE_TYPES[str(pillow_format)].content_type)
    try:
        with session_factory() as session:
            return set_image(session=session, actor_id=actor_id, test_id=test_id, slot=slot, url=store.url(key))
    except BaseException:
        if not existed:  # nothing points at it: do not keep it
            try:
                store.delete(key)
            except Exception:  # the refusal matters more than the leftover
                log.exception("could not remove the unused image %s", key)
        raise


def digest() -> Any:
    """The digest an upload's bytes are fed into as they arrive (its hex names the stored object)."""
    return hashlib.sha256()
