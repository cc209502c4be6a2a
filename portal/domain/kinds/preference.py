"""The preference kind: choose one of several image or text concepts, then say why.

Only the definition is read here so far; taking it in the portal is its own issue.
"""

from __future__ import annotations

from typing import Any

from portal.domain.definition_checks import Checker, join
from portal.domain.kinds.base import PREFERENCE_VIEW, Kind

MAX_IMAGES = 26  # concepts are lettered A-Z
FIELDS = (
    "preferenceType", "images", "textOptions", "welcomePage", "thankYouPage", "initialQuestion",
    "customInitialQuestion", "followUpQuestion", "customFollowUpQuestion", "isLimited",
)


def read(ck: Checker, doc: dict[str, Any], *, product_type: str, seen_keys: dict[str, str], columns: dict[str, Any]) -> None:
    if doc.get("preferenceTest") is None:
        ck.add("preferenceTest", "is required for a preference test")
        return
    pref = ck.obj(doc["preferenceTest"], "preferenceTest", FIELDS) or {}
    path = "preferenceTest"
    ptype = ck.choice(pref, "preferenceType", path, ("image", "text"), required=True)
    for page in ("welcomePage", "thankYouPage"):
        ck.texts(ck.optional_obj(pref, page, path, ("title", "description")), join(path, page), ("title", "description"))
    ck.texts(pref, path, ("initialQuestion", "customInitialQuestion", "followUpQuestion", "customFollowUpQuestion"))
    ck.boolean(pref, "isLimited", path)
    if ptype == "image":
        images = ck.array(pref, "images", path, min_items=2, max_items=MAX_IMAGES, what="images")
        keys = []
        for i, raw in enumerate(images):
            ipath = join(join(path, "images"), i)
            image = ck.obj(raw, ipath, ("key", "name", "url"))
            if image is not None:
                keys.append((join(ipath, "key"), ck.string(image, "key", ipath, required=True)))
                ck.string(image, "name", ipath, required=True)
                ck.url(image, "url", ipath, required=True, allow_path=True)
        ck.unique(keys, "image key")
        if pref.get("textOptions"):
            ck.add(join(path, "textOptions"), "an image preference test has no text options")
    elif ptype == "text":
        if pref.get("textOptions") is None:
            ck.add(join(path, "textOptions"), "is required for a text preference test")
        options = ck.optional_obj(pref, "textOptions", path, ("optionOne", "optionTwo", "optionThree"))
        if options or pref.get("textOptions") is not None:
            for key in ("optionOne", "optionTwo", "optionThree"):
                ck.string(options, key, join(path, "textOptions"), required=True, max_length=2000)
        if pref.get("images"):
            ck.add(join(path, "images"), "a text preference test has no images")
    columns["preference_test"] = dict(pref)


KIND = Kind(name="preference", view=PREFERENCE_VIEW, review_kind="preference", fields=("preferenceTest",), read=read)
