"""/admin/participants/{id}: one participant's profile as staff see it. The old values highlighted,
'Submit & Verify' / 'Verified', what blocks verification named field by field, the staff's own messages.
Staff who may not change this account (its role is the same as theirs or higher) see it read-only."""

from __future__ import annotations

import reflex as rx

from portal.components.admin import admin_layout, status_badge
from portal.components.admin_pages import staff_page
from portal.components.profile_form import actions_box, form_messages, profile_form, submit_buttons
from portal.domain import inbox
from portal.domain import profile_rules as rules
from portal.domain.staff import profiles as staff_rules
from portal.domain.staff import roles
from portal.states.admin.guard import StaffState
from portal.states.admin.profile import AdminProfileState as S


def _verify_button() -> rx.Component:
    return rx.cond(
        S.may_verify,
        rx.button(
            rx.cond(S.verified, rules.VERIFIED_BUTTON, rules.VERIFY_BUTTON),
            size="3",
            variant="soft",
            color_scheme="green",
            disabled=S.verified | S.saving | (S.blockers.length() > 0),
            on_click=S.save(True),
            id="profile-verify",
            type="button",
        ),
    )


def _blockers() -> rx.Component:
    return rx.cond(
        S.may_verify & ~S.verified,
        rx.box(
            rx.heading(staff_rules.BLOCKERS_TITLE, size="3", as_="h2"),
            rx.cond(
                S.blockers.length() > 0,
                rx.el.ul(
                    rx.foreach(S.blockers, lambda text: rx.el.li(rx.text(text, size="2"))), class_name="admin-blockers"
                ),
                rx.text(staff_rules.READY, size="2", color="var(--gray-11)"),
            ),
            id="verify-blockers",
            role="status",
            width="100%",
        ),
    )


def _actions() -> rx.Component:
    return rx.cond(
        S.may_edit,
        actions_box(form_messages(S), _blockers(), submit_buttons(S, _verify_button())),
        rx.fragment(),
    )


def _summary() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.text(S.participant_email, weight="medium", id="admin-profile-email"),
            status_badge(rx.cond(S.verified, "Verified", "Not verified")),
            rx.cond(S.role_label != "", rx.badge(S.role_label, variant="soft", color_scheme="amber")),
            rx.cond(S.deleted, status_badge("Deleted"), rx.cond(S.deactivated, status_badge("Deactivated"))),
            wrap="wrap",
            spacing="2",
            align="center",
        ),
        rx.foreach(
            S.notes,
            lambda note: rx.callout(
                note, icon="info", color_scheme="gray", class_name="admin-profile-note", width="100%"
            ),
        ),
        spacing="3",
        width="100%",
    )


@staff_page("/admin/participants/[admin_participant_id]", "Participant", on_load=[S.load])
def participant_profile_page() -> rx.Component:
    return admin_layout(
        rx.cond(
            S.loaded,
            rx.cond(
                S.load_error != "",
                rx.callout(S.load_error, color_scheme="red", icon="triangle-alert", id="profile-load-error"),
                rx.vstack(
                    _summary(),
                    rx.el.fieldset(profile_form(S, _actions()), disabled=~S.may_edit, class_name="admin-profile-form"),
                    spacing="4",
                    width="100%",
                ),
            ),
            rx.center(rx.spinner(size="3"), padding="48px", aria_label="Loading"),
        ),
        actions=rx.hstack(
            rx.cond(
                StaffState.can[roles.MESSAGE],
                rx.link(
                    rx.button(rx.icon("mail", size=16), "Message", variant="soft", size="2"),
                    href=f"{inbox.STAFF_PATH}?to=" + S.participant_id,
                    id="profile-message",
                ),
            ),
            rx.link(rx.button("All participants", variant="soft", size="2"), href="/admin/participants"),
            spacing="3",
        ),
    )
