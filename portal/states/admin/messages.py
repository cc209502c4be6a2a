"""/admin/messages (issue 38): staff's shared inbox of threads with participants, filtered by participant or test
(?participant=ID, ?test=ID), one thread opened (?thread=ID) with a reply, and a new message to one participant
(?to=ID, about one of their reviews with &review=ID). Every call goes through services/admin/messages.py."""

from __future__ import annotations

from typing import Any

import reflex as rx

from portal import db
from portal.domain.ids import whole_number
from portal.services.admin import messages as service
from portal.services.errors import ServiceError
from portal.states.admin.guard import caller_id, staff_load
from portal.states.browser import toast
from portal.states.tab_owner import TabOwned


def _field(form: Any, key: str) -> Any:
    return form.get(key) if isinstance(form, dict) else None


def _id(value: Any) -> str:
    number = whole_number(value)
    return str(number) if number else ""


class AdminMessagesState(TabOwned, rx.State):
    threads: list[dict[str, str]] = []
    unread: int = 0
    unread_only: bool = False
    participant_filter: str = ""
    test_filter: str = ""
    open_id: str = ""
    open_subject: str = ""
    open_about: str = ""
    open_participant: str = ""
    open_participant_id: str = ""
    open_messages: list[dict[str, str]] = []
    reply_error: str = ""
    to_id: str = ""
    to_name: str = ""
    to_review: str = ""
    subject_error: str = ""
    body_error: str = ""

    async def _reload(self) -> None:
        caller = await caller_id(self)
        self.threads = await db.run(
            service.threads,
            actor_id=caller,
            participant_id=self.participant_filter or None,
            test_id=self.test_filter or None,
            unread_only=self.unread_only,
        )
        self.unread = await db.run(service.unread_count, actor_id=caller)

    def _show(self, thread: dict[str, Any]) -> None:
        self.open_id, self.open_subject, self.open_about = thread["id"], thread["subject"], thread["about"]
        self.open_participant, self.open_participant_id = thread["participant"], thread["participant_id"]
        self.open_messages, self.reply_error = thread["messages"], ""

    @rx.event
    async def load_page(self):
        query = self.router.url.query_parameters
        self.participant_filter, self.test_filter = _id(query.get("participant")), _id(query.get("test"))
        self.open_id, self.open_messages, self.reply_error = "", [], ""
        self.to_id, self.to_name, self.to_review = "", "", ""
        self.subject_error = self.body_error = ""
        if _id(query.get("to")):
            who = await staff_load(self, service.participant, account_id=query.get("to"))
            if who is not None:
                self.to_id, self.to_name = who["id"], who["name"] or who["email"]
                self.to_review = _id(query.get("review"))
        try:
            await self._reload()
            if _id(query.get("thread")):
                self._show(await db.run(service.open_thread, actor_id=await caller_id(self), thread_id=query["thread"]))
                await self._reload()
        except ServiceError:
            self.threads = []

    @rx.event
    async def open(self, thread_id: Any):
        self.to_id = ""
        try:
            self._show(await db.run(service.open_thread, actor_id=await caller_id(self), thread_id=thread_id))
        except ServiceError as err:
            return toast("error", err.message)
        await self._reload()
        return None

    @rx.event
    async def show_unread(self, on: Any):
        self.unread_only = on is True
        await self._reload()

    @rx.event
    async def reply(self, form: Any):
        if not self.open_id:
            return None
        try:
            await db.run(
                service.reply, actor_id=await caller_id(self), thread_id=self.open_id, body=_field(form, "body")
            )
        except ServiceError as err:
            self.reply_error = err.message
            return None
        self._show(await db.run(service.open_thread, actor_id=await caller_id(self), thread_id=self.open_id))
        await self._reload()
        return [rx.set_value("reply-body", ""), toast("success", "Reply sent: the participant is told by e-mail.")]

    @rx.event
    def cancel_new(self):
        self.to_id = ""

    @rx.event
    async def send_new(self, form: Any):
        if not self.to_id:
            return None
        self.subject_error = self.body_error = ""
        try:
            thread_id = await db.run(
                service.start,
                actor_id=await caller_id(self),
                account_id=self.to_id,
                subject=_field(form, "subject"),
                body=_field(form, "body"),
                review_id=self.to_review or None,
            )
        except ServiceError as err:
            self.subject_error, self.body_error = err.errors.get("subject", ""), err.errors.get("body", "")
            if not (self.subject_error or self.body_error):
                return toast("error", err.message)
            return None
        self.to_id = ""
        self._show(await db.run(service.open_thread, actor_id=await caller_id(self), thread_id=thread_id))
        await self._reload()
        return toast("success", "Message sent: the participant is told by e-mail.")
