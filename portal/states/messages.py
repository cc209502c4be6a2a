"""/messages (issue 38): the participant's threads with staff, one opened with its messages, a reply, and a new
message (general or about one of their tests). The account always comes from the session."""

from __future__ import annotations

import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain.profile_rules import SOMETHING_WENT_WRONG
from portal.services import messages as service
from portal.services.errors import ServiceError
from portal.states.auth import SessionState, current_user
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned

log = logging.getLogger(__name__)
SENT = "Message sent. We will reply here and by e-mail."
REPLIED = "Reply sent."


def _field(form: Any, key: str) -> Any:
    return form.get(key) if isinstance(form, dict) else None


class MessagesState(TabOwned, rx.State):
    threads: list[dict[str, str]] = []
    about_options: list[list[str]] = []
    loaded: bool = False
    composing: bool = False
    open_id: str = ""
    open_subject: str = ""
    open_about: str = ""
    open_messages: list[dict[str, str]] = []
    subject_error: str = ""
    body_error: str = ""
    about_error: str = ""
    reply_error: str = ""

    def _show(self, thread: dict[str, Any]) -> None:
        self.open_id, self.open_subject, self.open_about = thread["id"], thread["subject"], thread["about"]
        self.open_messages = thread["messages"]
        self.reply_error = ""

    def _close(self) -> None:
        self.open_id = self.open_subject = self.open_about = ""
        self.open_messages = []

    async def _reload(self, account_id: int) -> None:
        self.threads = await db.run(service.inbox, account_id=account_id)

    @rx.event
    async def load(self):
        """on_load of /messages (?thread=ID opens one, as a notification's link does)."""
        self.loaded, self.composing = False, False
        self.subject_error = self.body_error = self.about_error = ""
        self._close()
        user = await current_user(self)
        if user is None:
            self.threads = []
            return
        await self._reload(user.account_id)
        tests = await db.run(service.my_tests, account_id=user.account_id)
        self.about_options = [["general", "General"], *([t["id"], t["name"]] for t in tests)]
        wanted = self.router.url.query_parameters.get("thread", "")
        if wanted:
            try:
                self._show(await db.run(service.open_thread, account_id=user.account_id, thread_id=wanted))
            except ServiceError as err:
                yield toast("error", err.message)
            else:
                await self._reload(user.account_id)
        self.loaded = True
        yield SessionState.refresh_unread

    @rx.event
    async def open(self, thread_id: Any):
        user = await current_user(self)
        if user is None:
            return
        self.composing = False
        try:
            self._show(await db.run(service.open_thread, account_id=user.account_id, thread_id=thread_id))
        except ServiceError as err:
            yield toast("error", err.message)
            return
        await self._reload(user.account_id)
        yield SessionState.refresh_unread

    @rx.event
    def compose(self):
        self.composing = True
        self.subject_error = self.body_error = self.about_error = ""
        self._close()

    @rx.event
    def cancel_compose(self):
        self.composing = False

    @rx.event
    async def send_new(self, form: Any):
        user = await current_user(self)
        if user is None:
            return
        self.subject_error = self.body_error = self.about_error = ""
        try:
            thread_id = await db.run(
                service.start,
                account_id=user.account_id,
                subject=_field(form, "subject"),
                body=_field(form, "body"),
                review_id=_field(form, "about"),
            )
        except ServiceError as err:
            self.subject_error = err.errors.get("subject", "")
            self.body_error = err.errors.get("body", "")
            self.about_error = err.errors.get("about", "")
            return
        except Exception:
            log.exception("a message could not be sent")
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self.composing = False
        self._show(await db.run(service.open_thread, account_id=user.account_id, thread_id=thread_id))
        await self._reload(user.account_id)
        yield toast("success", SENT)

    @rx.event
    async def reply(self, form: Any):
        user = await current_user(self)
        if user is None or not self.open_id:
            return
        self.reply_error = ""
        try:
            await db.run(service.reply, account_id=user.account_id, thread_id=self.open_id, body=_field(form, "body"))
        except ServiceError as err:
            self.reply_error = err.message
            return
        except Exception:
            log.exception("a reply could not be sent")
            yield toast("error", SOMETHING_WENT_WRONG)
            return
        self._show(await db.run(service.open_thread, account_id=user.account_id, thread_id=self.open_id))
        await self._reload(user.account_id)
        yield rx.set_value("reply-body", "")
        yield toast("success", REPLIED)
