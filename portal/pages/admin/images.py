"""/admin/tests/[test_id]/images: upload a test's screenshots and preference concept images.

Each slot is a box `#upload-<slot>` holding the current image `img#image-<slot>`, a native file
input, its progress bar `#upload-<slot>-progress` (while sending) and its message
`#upload-<slot>-error` (slots: screenshot, pricing-screenshot, concept-<n>).
"""

from __future__ import annotations

import reflex as rx
from reflex.vars import ObjectVar

from portal.components.admin import admin_layout
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.form import field_error, field_label
from portal.domain import images as rules
from portal.domain.staff import roles
from portal.states.admin.images import AdminImagesState as S

HINT = (
    f"PNG, JPEG, WebP or GIF, at most {rules.MAX_IMAGE_BYTES // (1024 * 1024)} MB and wider than "
    f"{rules.MIN_WIDTH_PX} px. A new image replaces the current one."
)


def _current(slot: ObjectVar[dict[str, str]]) -> rx.Component:
    return rx.cond(
        slot["url"] != "",
        rx.el.a(
            rx.image(
                src=slot["url"],
                alt=slot["label"],
                id="image-" + slot["key"],
                class_name="admin-image-current",
                loading="lazy",
            ),
            href=slot["url"],
            target="_blank",
            rel="noopener",
            aria_label="Open the current image in full",
            class_name="admin-image-link",
        ),
        rx.center(
            rx.text("No image yet", size="2", color="var(--gray-11)"), class_name="admin-image-current admin-image-none"
        ),
    )


def _slot(slot: ObjectVar[dict[str, str]]) -> rx.Component:
    input_id = "upload-" + slot["key"] + "-input"
    busy = slot["busy"] == "yes"
    return rx.box(
        rx.vstack(
            rx.heading(slot["label"], as_="h2", size="3"),
            _current(slot),
            field_label("Upload a new image", html_for=input_id),
            rx.el.input(
                type="file",
                id=input_id,
                accept=rules.ACCEPT,
                disabled=busy,
                class_name="admin-image-input",
                aria_describedby="upload-" + slot["key"] + "-error",
                aria_invalid=rx.cond(slot["error"] != "", "true", "false"),
                custom_attrs={"data-max-bytes": str(rules.MAX_IMAGE_BYTES), "data-too-big": rules.TOO_BIG},
                on_change=lambda _value: S.start(slot["key"]),
            ),
            rx.cond(
                busy,
                rx.el.progress(
                    id="upload-" + slot["key"] + "-progress",
                    max=100,
                    class_name="admin-image-progress",
                    aria_label="Upload progress",
                ),
            ),
            field_error(slot["error"], "upload-" + slot["key"], always=True),
            spacing="2",
            width="100%",
        ),
        id="upload-" + slot["key"],
        class_name="admin-panel",
    )


def _slots() -> rx.Component:
    return rx.cond(
        S.slots.length() > 0,
        rx.vstack(
            rx.text(HINT, size="2", color="var(--gray-11)"),
            rx.grid(rx.foreach(S.slots, _slot), columns=rx.breakpoints(initial="1", md="2"), spacing="4", width="100%"),
            spacing="3",
            width="100%",
        ),
        rx.callout("This kind of test has no images to upload.", icon="info", color_scheme="gray", id="images-none"),
    )


@staff_page("/admin/tests/[test_id]/images", "Images", on_load=[S.load], permission=roles.MANAGE_TESTS)
def images_page() -> rx.Component:
    return admin_layout(
        test_tabs("images"),
        rx.cond(
            ~S.loaded,
            rx.center(rx.spinner(size="3"), padding="40px", aria_label="Loading"),
            rx.cond(
                S.missing != "",
                rx.callout(S.missing, icon="triangle-alert", color_scheme="red", id="images-missing"),
                rx.vstack(
                    rx.text("Test: ", rx.text.strong(S.test_name, id="images-test-name"), size="3"),
                    rx.cond(
                        S.in_draft != "",
                        rx.callout(S.in_draft, icon="pencil", color_scheme="blue", id="images-draft"),
                        rx.cond(
                            S.in_use != "",
                            rx.callout(S.in_use, icon="git-branch", color_scheme="amber", id="images-in-use"),
                        ),
                    ),
                    _slots(),
                    spacing="3",
                    width="100%",
                ),
            ),
        ),
    )
