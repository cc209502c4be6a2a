"""The profile form's values, live messages and saving, shared by two pages (a state mixin):
/profile (screen 10, the signed-in person's own profile: states/profile.py) and the staff view of a
participant (/admin/participants/{id}: states/admin/profile.py). Thin: rules in the domain.

Each page's state says where its profile comes from and goes to (`_fetch`, `_store`, `_check_email`);
the services decide whose profile that is. Values arrive per field (text inputs debounced), the domain
rules give the live messages, and Submit hands the collected values to the save service, which validates
everything again.
"""

from __future__ import annotations

import datetime as dt
import logging
from typing import Any

import reflex as rx

from portal import db
from portal.domain import geography
from portal.domain import profile_rules as rules
from portal.domain.ids import whole_number
from portal.domain.reference_data import SENIORITY_OPTIONS
from portal.services import profile as service
from portal.services.errors import ServiceError, ThrottledError
from portal.states.auth import sign_in_url_for
from portal.states.browser import toast

log = logging.getLogger(__name__)

_FLAG_FIELDS = rules.BOOL_FIELDS
_LIST_LIMIT = 64  # more ids than any picker could hold: the rest is ignored


def _display(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value) or "(empty)"
    if value is None or value == "":
        return "(empty)"
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value)


class ProfileFormState(rx.State, mixin=True):
    loaded: bool = False
    load_error: str = ""
    form_key: int = 0
    values: dict[str, str] = {}
    flags: dict[str, bool] = {}
    industries: list[str] = []
    levels: list[str] = []
    languages: list[str] = []
    roles: list[str] = []
    audiences: list[str] = []
    errors: dict[str, str] = {}
    form_error: str = ""
    is_staff: bool = False
    is_panelist: bool = True
    verified: bool = False
    old_data: dict[str, str] = {}
    saving: bool = False
    warnings: list[str] = []
    # Pickers: options loaded a page (100) at a time; names of the chosen ones for the chips.
    industry_options: list[list[str]] = []
    industry_page: int = 0
    industry_total: int = 0
    industry_search: str = ""
    industry_error: str = ""
    chosen_names: dict[str, str] = {}
    company_sizes: list[list[str]] = []
    company_size_page: int = 0
    company_size_total: int = 0
    company_size_error: str = ""
    role_options: list[list[str]] = []
    role_page: int = 0
    role_total: int = 0
    audience_options: list[list[str]] = []

    _linkedin_title: str = ""
    _touched: list[str] = []
    _db_errors: dict[str, str] = {}
    _submitted: bool = False

    # --- loading ----------------------------------------------------------------------

    def _apply(self, view: service.ProfileView) -> None:
        values = view.values
        self.values = {key: str(values.get(key) or "") for key in rules.TEXT_FIELDS}
        self.flags = {key: bool(values.get(key)) for key in _FLAG_FIELDS}
        self.industries = [str(i) for i in values.get("industries") or []]
        self.levels = list(values.get("experienceLevels") or [])
        self.languages = list(values.get("languages") or [])
        self.roles = [str(i) for i in values.get("roles") or []]
        self.audiences = [str(i) for i in values.get("audiences") or []]
        self.is_staff = view.is_staff
        self.is_panelist = view.is_panelist
        self.verified = view.verified
        self.old_data = {key: _display(value) for key, value in view.old_data.items()}
        self.chosen_names = {
            str(k): v for k, v in {**view.industry_names, **view.role_names, **view.audience_names}.items()
        }
        self._linkedin_title = view.linkedin_title
        self._touched = []
        self._db_errors = {}
        self._submitted = False
        self.errors = {}
        self.form_error = ""
        self.form_key += 1

    # --- where the profile comes from and goes to (each page's state) -------------------------

    async def _fetch(self) -> service.ProfileView | None:
        """The profile to show (None: nobody signed in; the page's guard sends them on)."""
        raise NotImplementedError

    async def _store(self, raw: dict[str, Any], verify: bool) -> service.SaveOutcome:
        raise NotImplementedError

    async def _check_email(self, key: str, address: str) -> str:
        raise NotImplementedError

    async def _load_internal_lists(self) -> None:
        """Staff pages: the roles and audiences pickers."""

    async def _more_roles(self) -> None:
        """Staff pages: the next page of roles."""

    def _saved_messages(self, verify: bool) -> str:
        return rules.SAVED

    async def _after_save(self) -> None:
        """What else shows the saved profile (the header's name on /profile)."""

    def _after_revalidate(self, errors: dict[str, str]) -> None:
        """Every error of the form (touched or not): the staff page lists what blocks verification."""

    @rx.event
    async def load(self):
        """on_load: the profile and the first picker pages."""
        self.loaded = False
        self.load_error = ""
        self.warnings = []
        self.saving = False
        try:
            view = await self._fetch()
        except ServiceError as err:
            self.load_error = err.errors.get("_id", err.message)
            self.loaded = True
            return
        except Exception:
            log.exception("profile could not be loaded")
            self.load_error = rules.SOMETHING_WENT_WRONG
            self.loaded = True
            return
        if view is None:
            return  # the private-route guard sends the visitor to sign-in
        self._apply(view)
        self.industry_options, self.industry_page, self.industry_total, self.industry_search = [], 0, 0, ""
        self.company_sizes, self.company_size_page, self.company_size_total = [], 0, 0
        self.role_options, self.role_page, self.role_total, self.audience_options = [], 0, 0, []
        await self._more_industries()
        await self._more_company_sizes()
        if self.is_staff:
            await self._load_internal_lists()
        self._revalidate()
        self.loaded = True

    async def _more_industries(self) -> None:
        page = self.industry_page + 1
        try:
            result = await db.run(service.industries_page, page=page, search=self.industry_search)
        except Exception:
            log.exception("industries could not be loaded")
            self.industry_error = rules.list_load_failed(rules.INDUSTRIES_LIST)
            return
        self.industry_error = ""
        known = {row[0] for row in self.industry_options}
        self.industry_options = self.industry_options + [[i, n] for i, n in result.results if i not in known]
        self.industry_page = page
        self.industry_total = result.total

    async def _more_company_sizes(self) -> None:
        page = self.company_size_page + 1
        try:
            result = await db.run(service.company_sizes_page, page=page)
        except Exception:
            log.exception("company sizes could not be loaded")
            self.company_size_error = rules.list_load_failed(rules.COMPANY_SIZES_LIST)
            return
        self.company_size_error = ""
        self.company_sizes = self.company_sizes + [[i, label] for i, label in result.results]
        self.company_size_page = page
        self.company_size_total = result.total

    @rx.event
    async def more_industries(self):
        """The industry list was scrolled (or 'Load more' pressed): the next page, if any."""
        if self.loaded and len(self.industry_options) < self.industry_total:
            await self._more_industries()

    @rx.event
    async def more_company_sizes(self):
        if self.loaded and len(self.company_sizes) < self.company_size_total:
            await self._more_company_sizes()

    @rx.event
    async def more_roles(self):
        if self.loaded and len(self.role_options) < self.role_total:
            await self._more_roles()

    @rx.event
    async def search_industries(self, text: Any):
        self.industry_search = text[:100] if isinstance(text, str) else ""
        self.industry_options, self.industry_page, self.industry_total = [], 0, 0
        await self._more_industries()

    @rx.event
    async def retry_lists(self):
        if self.industry_error:
            await self._more_industries()
        if self.company_size_error:
            await self._more_company_sizes()

    # --- the live rules -----------------------------------------------------------------

    def _raw(self) -> dict[str, Any]:
        raw: dict[str, Any] = dict(self.values)
        raw.update(self.flags)
        raw["industries"] = list(self.industries)
        raw["experienceLevels"] = list(self.levels)
        raw["languages"] = list(self.languages)
        if self.is_staff:
            raw["roles"] = list(self.roles)
            raw["audiences"] = list(self.audiences)
        return raw

    def _revalidate(self, touched: str | None = None) -> None:
        if touched and touched not in self._touched:
            self._touched = [*self._touched, touched]
        form, errors = rules.parse_payload(self._raw())
        errors.update(
            rules.validate(
                form,
                is_staff=self.is_staff,
                is_panelist=self.is_panelist,
                current_year=dt.date.today().year,
                linkedin_title=self._linkedin_title,
            )
        )
        for key, message in self._db_errors.items():
            errors.setdefault(key, message)
        self._after_revalidate(errors)
        shown = errors if self._submitted else {k: v for k, v in errors.items() if k in self._touched}
        self.errors = shown
        if not shown:
            self.form_error = ""

    @rx.event
    def set_text(self, key: Any, value: Any):
        if not isinstance(key, str) or key not in rules.TEXT_FIELDS or not self.loaded or self.load_error:
            return
        text = value[: rules.TEXT_FIELDS[key] + 1] if isinstance(value, str) else ""
        if key == "birthYear":
            text = rules.digits_only(text)
        values = dict(self.values)
        values[key] = text
        if key == "country":
            values["state"] = rules.state_after_country_change(text, values.get("state", ""))
        if key in rules.CUSTOM_FIELDS and text != rules.SELF_DESCRIBE:
            values[rules.CUSTOM_FIELDS[key]] = ""
        self.values = values
        self._db_errors = {k: v for k, v in self._db_errors.items() if k != key}
        self._revalidate(key)

    @rx.event
    async def check_email(self, key: Any, value: Any):
        """On leaving an e-mail field: the checks that need the database (used elsewhere, work rule)."""
        if key not in ("email", "workEmail") or not isinstance(value, str) or not self.loaded:
            return
        self.set_text(key, value)
        try:
            message = await self._check_email(key, value[:400])
        except Exception:
            return  # a failed check is "not taken"; the save checks again
        if message and self.values.get(key) == value[: rules.TEXT_FIELDS[key] + 1]:
            self._db_errors = {**self._db_errors, key: message}
        self._revalidate(key)

    @rx.event
    def set_flag(self, key: Any, on: Any):
        if isinstance(key, str) and key in _FLAG_FIELDS and self.loaded:
            self.flags = {**self.flags, key: on is True}

    @rx.event
    def toggle_industry(self, industry_id: Any):
        if (
            isinstance(industry_id, str)
            and (number := whole_number(industry_id))
            and len(self.industries) < _LIST_LIMIT
        ):
            self.industries = [str(i) for i in rules.toggle_id([int(i) for i in self.industries], number)]
            names = {row[0]: row[1] for row in self.industry_options}
            if industry_id in names:
                self.chosen_names = {**self.chosen_names, industry_id: names[industry_id]}
            self._revalidate("industries")

    @rx.event
    def toggle_level(self, key: Any):
        if isinstance(key, str):
            self.levels = rules.toggle_seniority(self.levels, key)
            self._revalidate("experienceLevels")

    @rx.event
    def toggle_language(self, key: Any):
        if isinstance(key, str):
            self.languages = rules.toggle_language(self.languages, key)
            self._revalidate("languages")

    @rx.event
    def toggle_role(self, role_id: Any):
        if (
            self.is_staff
            and isinstance(role_id, str)
            and (number := whole_number(role_id))
            and len(self.roles) < _LIST_LIMIT
        ):
            self.roles = [str(i) for i in rules.toggle_id([int(i) for i in self.roles], number)]
            names = {row[0]: row[1] for row in self.role_options}
            if role_id in names:
                self.chosen_names = {**self.chosen_names, role_id: names[role_id]}
            self._revalidate("roles")

    @rx.event
    def toggle_audience(self, audience_id: Any):
        if self.is_staff and isinstance(audience_id, str) and (number := whole_number(audience_id)):
            self.audiences = [str(i) for i in rules.toggle_id([int(i) for i in self.audiences], number)]
            self._revalidate("audiences")

    @rx.var
    def disabled_levels(self) -> list[str]:
        """Seniority options disabled once two are chosen."""
        return [o.value for o in SENIORITY_OPTIONS if rules.seniority_disabled(self.levels, o.value)]

    @rx.var
    def submit_hidden(self) -> bool:
        return rules.submit_hidden(self.errors)

    @rx.var
    def state_options(self) -> list[list[str]]:
        return [[code, name] for code, name in geography.subdivisions(self.values.get("country", ""))]

    # --- saving ----------------------------------------------------------------------------

    @rx.event
    async def save(self, verify: Any = False):
        """Submit (or staff's Submit & Verify): the service validates everything again and records the change."""
        if self.saving or not self.loaded or self.load_error:
            return
        verify = verify is True
        self._submitted = True
        self._revalidate()
        if self.errors:
            self.form_error = rules.FORM_ERROR
            yield toast("error", rules.FORM_ERROR)
            return
        self.saving = True
        self.warnings = []
        yield
        try:
            outcome = await self._store(self._raw(), verify)
        except service.ProfileRemovedError:
            self.saving = False
            yield toast("error", rules.PROFILE_REMOVED)
            yield rx.redirect(sign_in_url_for(self))
            return
        except ThrottledError as err:  # a changed e-mail's link is over the e-mail limits: wait, then save again
            self.saving = False
            self.form_error = err.message
            yield toast("error", err.message)
            return
        except service.ProfileSaveError as err:
            self.saving = False
            self._db_errors = {k: v for k, v in err.errors.items() if k in rules.TEXT_FIELDS}
            self.errors = dict(err.errors)
            self.form_error = rules.FORM_ERROR
            yield toast("error", rules.FORM_ERROR)
            return
        except ServiceError as err:  # refused (a role, a deactivated account): the service's message
            self.saving = False
            self.form_error = err.message
            yield toast("error", err.message)
            return
        except Exception:
            log.exception("profile could not be saved")
            self.saving = False
            yield toast("error", rules.SOMETHING_WENT_WRONG)
            return
        self.saving = False
        self.warnings = [rules.VERIFY_WARNING.format(email=address) for address in outcome.verification_sent_to]
        try:
            view = await self._fetch()
            if view is not None:
                self._apply(view)
        except Exception:
            log.exception("profile could not be reloaded after saving")
        await self._after_save()
        yield toast("success", self._saved_messages(verify))
        for warning in self.warnings:
            yield toast("warning", warning)
