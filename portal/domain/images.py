"""Test images: the spec's rule ("no bigger than 250MB and wider than 600px"), the image types
accepted, and which image slots a test has.

A slot is one image of a test that staff can upload: the page screenshot (`screenshot`, every
kind that shows the page under test), the pricing page screenshot (`pricing-screenshot`, pricing
tests) and the image of each concept of an image preference test (`concept-1`, `concept-2`, ...
in the test's own order). The same functions give the live message in the browser and the
server's re-check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from portal.domain import upload_limits
from portal.domain.taking.kinds import kind_of

MAX_IMAGE_BYTES = upload_limits.TEST_IMAGE_BYTES  # "no bigger than 250MB" (every upload limit: domain/upload_limits.py)
MIN_WIDTH_PX = 600  # "wider than 600px": exclusive, 600 px itself is refused

TOO_BIG = f"The image is bigger than {upload_limits.in_mb(MAX_IMAGE_BYTES)} MB."
NOT_AN_IMAGE = "This file is not an image (PNG, JPEG, WebP or GIF)."
MAX_PIXELS = 150_000_000  # a browser cannot show more (e.g. 1400 x 100000 px); not in the spec
TOO_MANY_PIXELS = "The image has too many pixels to be shown (more than 150 million)."
EMPTY = "The file is empty."
NO_SUCH_SLOT = "This test has no such image."


def too_narrow(width: int) -> str:
    return f"The image must be wider than {MIN_WIDTH_PX} px (this one is {width} px)."


@dataclass(frozen=True)
class ImageType:
    pillow_format: str  # Image.format as Pillow reports it
    content_type: str
    extension: str


# The types a browser shows everywhere, by Pillow's name for them; nothing else is kept.
IMAGE_TYPES: dict[str, ImageType] = {
    "PNG": ImageType("PNG", "image/png", "png"),
    "JPEG": ImageType("JPEG", "image/jpeg", "jpg"),
    "WEBP": ImageType("WEBP", "image/webp", "webp"),
    "GIF": ImageType("GIF", "image/gif", "gif"),
}
ACCEPT = ",".join(t.content_type for t in IMAGE_TYPES.values())  # the file input's accept attribute
CONTENT_TYPE_BY_EXTENSION: dict[str, str] = {t.extension: t.content_type for t in IMAGE_TYPES.values()}


def size_message(size: int) -> str | None:
    """The size rule: None while `size` bytes are allowed (checked again as every chunk arrives)."""
    if size > MAX_IMAGE_BYTES:
        return TOO_BIG
    if size <= 0:
        return EMPTY
    return None


def image_message(pillow_format: str | None, width: int | None, height: int | None = None) -> str | None:
    """The rule for what the file's header says: an accepted type, wider than 600 px."""
    if pillow_format not in IMAGE_TYPES or not isinstance(width, int) or not isinstance(height, int):
        return NOT_AN_IMAGE
    if width <= MIN_WIDTH_PX:
        return too_narrow(width)
    if width * height > MAX_PIXELS:
        return TOO_MANY_PIXELS
    return None


# --- slots -------------------------------------------------------------------------------------
SCREENSHOT, PRICING_SCREENSHOT, CONCEPT = "screenshot", "pricing-screenshot", "concept"
_CONCEPT_SLOT = re.compile(r"concept-([1-9][0-9]?)")


@dataclass(frozen=True)
class Slot:
    key: str  # screenshot | pricing-screenshot | concept-<n>
    label: str
    url: str  # the current image ("" when none)
    concept_index: int | None = None  # 0-based index into preferenceTest.images


def slots(
    product_type: str,
    screenshot_url: str | None,
    pricing_screenshot_url: str | None,
    preference_test: dict[str, Any] | None,
) -> list[Slot]:
    """The image slots of a test of this product type, with their current images."""
    kind = kind_of(product_type)
    found: list[Slot] = []
    if kind.shows_page:
        found.append(Slot(SCREENSHOT, "Page screenshot", screenshot_url or ""))
    if "pricingScreenshotUrl" in kind.fields:
        found.append(Slot(PRICING_SCREENSHOT, "Pricing page screenshot", pricing_screenshot_url or ""))
    if (
        "preferenceTest" in kind.fields
        and isinstance(preference_test, dict)
        and preference_test.get("preferenceType") == "image"
    ):
        images = got if isinstance(got := preference_test.get("images"), list) else []
        for i, image in enumerate(images):
            if isinstance(image, dict):
                name = str(image.get("name") or image.get("key") or "")
                label = f"Concept {i + 1}" + (f": {name}" if name else "")
                found.append(Slot(f"{CONCEPT}-{i + 1}", label, str(image.get("url") or ""), concept_index=i))
    return found


IN_DRAFT = (
    "The Build tab has unsaved changes: an image uploaded here goes into that draft too (a concept added there "
    "gets its image), and is kept with 'Save changes' on the Build tab."
)


def slot_named(available: list[Slot], key: Any) -> Slot | None:
    """The slot `key` names among a test's slots (None for anything else a browser may send)."""
    if not isinstance(key, str) or len(key) > 40:
        return None
    if key in (SCREENSHOT, PRICING_SCREENSHOT) or _CONCEPT_SLOT.fullmatch(key):
        return next((s for s in available if s.key == key), None)
    return None
