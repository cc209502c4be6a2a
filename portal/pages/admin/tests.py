"""/admin/tests: the tests with live counts; /admin/tests/[test_id]/invite: invite participants to one."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal.components.admin import admin_layout, confirm_dialog, status_badge
from portal.components.admin_pages import staff_page
from portal.components.admin_test import test_tabs
from portal.components.data_table import Column, FilterOption, FilterSpec, RowAction, data_table
from portal.components.form import form, form_error, select_field, text_field
from portal.domain import upload_limits
from portal.domain.staff import incentives, roles
from portal.domain.staff.editing import PANEL_LABELS, STATUS_LABELS
from portal.domain.staff.new_tests import MAX_NAME, product_type_options
from portal.pages.admin.participants import participants_table
from portal.services.admin.tests import KINDS, STATUSES
from portal.states.admin.guard import StaffState
from portal.states.admin.tests import AdminTestsState as T
from portal.states.admin.tests import InviteState as I

LIVE_COUNTS = (
    ("invited", "invited"),
    ("started", "started"),
    ("reviews", "submitted"),
    ("approved", "approved"),
    ("waiting", "to decide"),
)


def _live_counts(row) -> rx.Component:
    """The live counts in one compact column, so they show beside the name without scrolling."""
    return rx.el.dl(
        *[rx.el.div(rx.el.dt(label), rx.el.dd(row[key]), class_name="admin-count") for key, label in LIVE_COUNTS],
        class_name="admin-counts",
    )


COLUMNS = [
    Column(
        "name",
        "Test",
        sort_key="name",
        min_width="220px",
        render=lambda row: rx.el.a(row["name"], href="/admin/tests/" + row["id"], class_name="admin-row-link"),
    ),
    Column(
        "kind",
        "Kind",
        min_width="130px",
        render=lambda row: rx.vstack(
            rx.text(row["kind"], size="2"), rx.text(row["type"], size="1", color="var(--gray-11)"), spacing="0"
        ),
    ),
    Column("status", "Status", sort_key="status", min_width="90px", render=lambda row: status_badge(row["status"])),
    Column("counts", "Live counts", min_width="190px", render=_live_counts),
    Column("payout", "Payout", sort_key="payout", min_width="80px"),
    Column("session", "Session", min_width="100px"),
    Column("panel", "Panel", min_width="120px"),
    Column("quotas", "Quotas", min_width="150px"),
    Column("created", "Created", sort_key="createdOn"),
]


def _import_dialog() -> rx.Component:
    problems = rx.cond(
        T.import_problems.length() > 0,
        rx.box(
            rx.text("Nothing was written. Fix these and upload the file again:", size="2", weight="medium"),
            rx.el.ul(
                rx.foreach(
                    T.import_problems, lambda p: rx.el.li(rx.text(p, size="2", font_family="var(--code-font-family)"))
                ),
                class_name="admin-problem-list",
            ),
            id="import-problems",
            role="alert",
        ),
    )
    in_use = rx.cond(
        T.import_outcome == "confirm",
        rx.callout(
            rx.vstack(
                rx.text(T.import_message, id="import-version-warning"),
                rx.hstack(
                    rx.button(
                        "Import as version " + (T.import_version + 1).to_string(),
                        on_click=T.import_new_version,
                        id="import-new-version",
                    ),
                    rx.button(
                        "Cancel", variant="soft", color_scheme="gray", on_click=T.cancel_new_version, id="import-cancel"
                    ),
                    spacing="3",
                    wrap="wrap",
                ),
                spacing="3",
            ),
            icon="triangle-alert",
            color_scheme="amber",
            id="import-confirm",
        ),
    )
    done = rx.cond(
        (T.import_outcome != "") & (T.import_outcome != "refused") & (T.import_outcome != "confirm"),
        rx.callout(
            rx.hstack(
                rx.text(T.import_message),
                rx.el.a("Open the test", href="/admin/tests/" + T.imported_id, id="import-open-test"),
                spacing="2",
                wrap="wrap",
            ),
            icon="circle-check",
            color_scheme="green",
            id="import-result",
        ),
    )
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("Import a test"),
            rx.dialog.description(
                "Upload a test definition (JSON, see docs/test-format.md). It is checked whole before anything is "
                "written; a test with the same name is updated, any other is created.",
                size="2",
            ),
            rx.vstack(
                rx.upload.root(
                    rx.vstack(
                        rx.icon("file-json", size=28, color="var(--gray-10)"),
                        rx.text(
                            "Drop a .json file here, or ",
                            rx.text.span("choose one", color="var(--accent-11)"),
                            size="2",
                        ),
                        align="center",
                        spacing="2",
                        padding="20px",
                    ),
                    id="import-upload",
                    accept={"application/json": [".json"]},
                    max_files=1,
                    multiple=False,
                    on_drop=T.import_file(rx.upload_files(upload_id="import-upload")),
                    # Too big or not JSON: told in the dialog before anything is sent (the server refuses it too).
                    # (The refused files themselves are not sent: the event names no argument.)
                    max_size=upload_limits.TEST_FILE_BYTES,
                    on_drop_rejected=lambda _refused: T.import_rejected(),
                    class_name="admin-dropzone",
                    border="1px dashed var(--gray-7)",
                    border_radius="var(--radius-3)",
                    width="100%",
                ),
                rx.cond(
                    T.import_outcome == "refused",
                    rx.callout(T.import_message, icon="triangle-alert", color_scheme="red", id="import-refused"),
                ),
                problems,
                in_use,
                done,
                rx.hstack(
                    rx.dialog.close(
                        rx.button(
                            "Close", variant="soft", color_scheme="gray", on_click=T.close_import, id="import-close"
                        )
                    ),
                    justify="end",
                    width="100%",
                ),
                spacing="3",
                width="100%",
                margin_top="12px",
            ),
            max_width="640px",
        ),
        open=T.import_open,
        on_open_change=lambda _open: T.close_import(),
    )


def _new_dialog() -> rx.Component:
    """'New test': a name, the product type (labelled by kind) and the panel; makes a draft and opens it."""
    return rx.dialog.root(
        rx.dialog.content(
            rx.dialog.title("New test"),
            rx.dialog.description(
                "A draft with a starting definition for its kind; its questions are built on its page.", size="2"
            ),
            form(
                text_field(
                    "Name",
                    id="new-test-name",
                    value=T.new_form.get("name", ""),
                    on_change=lambda v: T.set_new_field("name", v),
                    debounce=300,
                    error=T.new_problems.get("name", ""),
                    helper="Names identify tests when a JSON file is imported.",
                    required=True,
                    max_length=MAX_NAME,
                    size="2",
                ),
                select_field(
                    "Product type",
                    id="new-test-type",
                    options=product_type_options(),
                    value=T.new_form.get("productType", ""),
                    on_change=lambda v: T.set_new_field("productType", v),
                    error=T.new_problems.get("productType", ""),
                    helper="The kind (before the dot) decides what participants see.",
                    required=True,
                    size="2",
                ),
                select_field(
                    "Panel",
                    id="new-test-panel",
                    options=list(PANEL_LABELS.items()),
                    value=T.new_form.get("panel", ""),
                    on_change=lambda v: T.set_new_field("panel", v),
                    error=T.new_problems.get("panel", ""),
                    required=True,
                    size="2",
                ),
                form_error(T.new_problems.get("", ""), id="new-test-error"),
                rx.hstack(
                    rx.dialog.close(
                        rx.button(
                            "Cancel",
                            type="button",
                            variant="soft",
                            color_scheme="gray",
                            on_click=T.close_new,
                            id="new-test-cancel",
                        )
                    ),
                    rx.button("Create draft", type="submit", loading=T.creating, id="new-test-create"),
                    justify="end",
                    spacing="3",
                    width="100%",
                ),
                on_submit=lambda _data: T.create(),
                id="new-test-form",
            ),
            max_width="520px",
            id="new-test-dialog",
        ),
        open=T.new_open,
        on_open_change=lambda _open: T.close_new(),
    )


@staff_page("/admin/tests", "Tests", on_load=[T.load], menu="Tests")
def tests_page() -> rx.Component:
    actions = [
        RowAction("Preview", lambda row: rx.redirect("/admin/tests/" + row["id"] + "/preview"), icon="eye"),
        RowAction("Export JSON", lambda row: T.export(row["id"]), icon="download"),
        RowAction("Duplicate", lambda row: T.duplicate(row["id"]), icon="copy"),
        RowAction("Reviews", lambda row: rx.redirect("/admin/reviews?test=" + row["id"]), icon="list-checks"),
        RowAction(
            "Invite",
            lambda row: rx.redirect("/admin/tests/" + row["id"] + "/invite"),
            available_when="running",
            icon="send",
        ),
    ]
    filters = [
        FilterSpec("status", "Status", "list", tuple(FilterOption(s, STATUS_LABELS[s]) for s in STATUSES)),
        FilterSpec("kind", "Kind", "list", tuple(FilterOption(k, k.capitalize()) for k in KINDS)),
    ]
    import_button = rx.cond(
        StaffState.can[roles.MANAGE_TESTS],
        rx.hstack(
            rx.button(rx.icon("plus", size=16), "New test", on_click=T.open_new, size="2", id="tests-new"),
            rx.button(
                rx.icon("upload", size=16),
                "Import JSON",
                on_click=T.open_import,
                size="2",
                variant="soft",
                id="tests-import",
            ),
            spacing="2",
            wrap="wrap",
        ),
    )
    return admin_layout(
        data_table(
            T,
            table_id="admin-tests",
            columns=COLUMNS,
            actions=actions,
            filters=filters,
            search_placeholder="Search tests",
        ),
        _import_dialog(),
        _new_dialog(),
        actions=import_button,
    )


def _figure(label: Any, value: rx.Var, figure_id: str, *, strong: bool = False) -> rx.Component:
    return rx.vstack(
        rx.text(label, size="1", color="var(--gray-11)"),
        rx.text(value, size="5", weight="bold", id=figure_id, color="var(--accent-11)" if strong else None),
        spacing="0",
        min_width="100px",
    )


def _panel() -> rx.Component:
    picking = I.picked > 0
    return rx.box(
        rx.vstack(
            rx.hstack(
                _figure(
                    rx.cond(picking, "Selected", "Matching"), rx.cond(picking, I.picked, I.matched), "invite-matched"
                ),
                _figure("Already invited", I.invited, "invite-already-invited"),
                _figure("Already reviewed", I.reviewed, "invite-already-reviewed"),
                _figure("In the exclusion window", I.excluded, "invite-excluded"),
                _figure("Not verified", I.unverified, "invite-unverified"),
                _figure(rx.text.span("Not in ", I.country), I.elsewhere, "invite-elsewhere"),
                _figure("Over a quota", I.over_quota, "invite-over-quota"),
                _figure("Open places", I.places, "invite-places"),
                wrap="wrap",
                spacing="5",
            ),
            rx.hstack(
                _figure("Will be invited", I.to_invite, "invite-to-invite", strong=True),
                _figure("Cost of the batch", I.cost, "invite-cost", strong=True),
                wrap="wrap",
                spacing="5",
                class_name="invite-outcome",
            ),
            rx.cond(I.problem != "", rx.text(I.problem, size="2", color="var(--gray-11)", id="invite-problem")),
            rx.text("Payout per invite: ", rx.text.strong(I.payout, id="invite-payout"), size="2"),
            rx.hstack(
                text_field(
                    "Override payout (USD)",
                    optional=True,
                    id="invite-override",
                    placeholder="e.g. 25",
                    value=I.override_text,
                    on_change=I.set_override,
                    debounce=400,  # one event when typing pauses
                    width="160px",
                    size="2",
                    input_mode="decimal",
                    error=I.override_error,
                    helper=f"From ${incentives.MIN_OVERRIDE_CENTS // 100} to "
                    f"${incentives.MAX_OVERRIDE_CENTS // 100:,}; empty uses the incentive table.",
                    field_style={"width": "auto"},
                ),
                rx.spacer(),
                rx.button(
                    rx.cond(picking, "Invite selected", "Send invites"),
                    on_click=I.ask,
                    size="3",
                    id="invite-send",
                    disabled=(I.to_invite == 0) | I.sending | (I.override_error != "") | ~StaffState.can[roles.INVITE],
                ),
                align="end",
                width="100%",
                wrap="wrap",
                spacing="4",
            ),
            rx.cond(
                I.sending | (I.requested > 0),
                rx.vstack(
                    rx.progress(value=I.progress, max=100, width="100%", aria_label="Invites sent"),
                    rx.text(I.sent, " of ", I.requested, " invites sent", size="2", id="invite-progress"),
                    rx.cond(I.result != "", rx.text(I.result, size="2", weight="medium", id="invite-result")),
                    width="100%",
                    spacing="2",
                ),
            ),
            spacing="4",
            width="100%",
        ),
        class_name="admin-panel",
    )


@staff_page("/admin/tests/[test_id]/invite", "Invite participants", on_load=[I.load_page], permission=roles.INVITE)
def invite_page() -> rx.Component:
    return admin_layout(
        test_tabs("invite"),
        rx.vstack(
            rx.text(
                "To ",
                rx.text.strong(I.test["name"], id="invite-test-name"),
                " · ",
                I.test["type"],
                " · participant limit ",
                I.test["limit"],
                " · exclusion window ",
                rx.el.span(I.test["exclusion"], id="invite-exclusion"),
                size="3",
            ),
            rx.text(
                "Choose who to invite with the search and filters below, or pick rows. Only verified participants "
                "in the test's country who are not invited yet are invited, within the test's quotas; invites last "
                "24 hours and each person gets an e-mail.",
                size="2",
                color="var(--gray-11)",
            ),
            _panel(),
            participants_table(I, "invite-participants", with_actions=False, selectable=True),
            spacing="4",
            width="100%",
        ),
        confirm_dialog(
            I.confirm_open,
            I.confirm_text,
            # Spans: the dialog's description is a paragraph (a div inside it is invalid HTML).
            rx.fragment(
                rx.el.span(
                    "The invites cost ",
                    rx.el.strong(I.cost, id="invite-confirm-cost"),
                    " in all (",
                    I.payout,
                    ").",
                    id="invite-confirm-body",
                    class_name="admin-line",
                ),
                rx.cond(I.problem != "", rx.el.span(I.problem, id="invite-confirm-problem", class_name="admin-line")),
                rx.el.span("Each person gets an e-mail; invites last 24 hours.", class_name="admin-line"),
            ),
            "Send invites",
            I.send,
            I.cancel,
            "invite-confirm",
        ),
        actions=rx.link(rx.button("All tests", variant="soft", size="2"), href="/admin/tests"),
    )
