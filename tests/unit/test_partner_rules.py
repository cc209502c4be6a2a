"""The partner round trips' pure rules (portal/domain/partners.py): links read, signatures made and checked,
completion codes, outcomes and the research service's answer."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlsplit

import pytest

from portal.domain import partners as rules

SECRET = "s3cret-shared-with-the-exchange"


def test_the_canonical_text_sorts_and_encodes_and_leaves_out_the_signature():
    text = rules.canonical("/test/7/rate", {"rid": "R 1/2", "panel": "cint", "sig": "ignored"})
    assert text == "/test/7/rate?panel=cint&rid=R%201%2F2"


def test_a_signed_link_verifies_and_any_change_breaks_it():
    url = rules.signed_url(SECRET, "http://localhost:3000/test/7/rate", {"panel": "cint", "rid": "R1"})
    parts = urlsplit(url)
    params = dict(parse_qsl(parts.query))
    assert rules.verify(SECRET, parts.path, params)
    assert not rules.verify(SECRET, "/test/8/rate", params)  # another test
    assert not rules.verify(SECRET, parts.path, {**params, "rid": "R2"})  # another respondent
    assert not rules.verify(SECRET, parts.path, {**params, "extra": "1"})  # a parameter added
    assert not rules.verify("other-secret", parts.path, params)
    assert not rules.verify(SECRET, parts.path, {k: v for k, v in params.items() if k != "sig"})
    assert not rules.verify(SECRET, parts.path, {**params, "sig": "zz"})
    assert not rules.verify("", parts.path, params)
    # The signature is case-insensitive hex.
    assert rules.verify(SECRET, parts.path, {**params, "sig": params["sig"].upper()})


def test_sign_refuses_an_empty_secret():
    with pytest.raises(ValueError):
        rules.sign("", "x")


def test_callback_bodies_are_signed_with_their_timestamp():
    body = b'{"outcome":"complete"}'
    signature = rules.body_signature(SECRET, "1700000000", body)
    assert signature.startswith("sha256=") and len(signature) == 7 + 64
    assert rules.valid_body(SECRET, "1700000000", body, signature)
    assert not rules.valid_body(SECRET, "1700000001", body, signature)
    assert not rules.valid_body(SECRET, "1700000000", body + b" ", signature)
    assert not rules.valid_body("", "1700000000", body, signature)


def test_completion_codes_are_readable_unguessable_and_checked_by_shape():
    codes = {rules.new_completion_code() for _ in range(2000)}
    assert len(codes) == 2000
    for code in list(codes)[:50]:
        assert len(code) == rules.CODE_LENGTH and set(code) <= set(rules.CODE_ALPHABET)
        assert rules.normal_code(code) == code
        assert rules.normal_code(f" {code[:5].lower()}-{code[5:]} ") == code
    assert not set("0O1IL5S2Z8B") & set(rules.CODE_ALPHABET)
    for bad in ("", "SHORT", "0000000000", "A" * 11, None, 12, "A" * 41):
        assert rules.normal_code(bad) is None


def test_links_name_their_partner():
    assert rules.arrival({}) is None
    assert rules.arrival({"respondent_project_id": "p1"}) is None  # the project alone: no check asked for
    respondent = rules.arrival({"respondent_project_id": "p1", "respondent_screener_response_id": "sr-9"})
    assert respondent == rules.Arrival(rules.RESPONDENT, project_id="p1", screener_response_id="sr-9")
    assert rules.arrival({"respondent_screener_response_id": "sr-9"}).malformed
    crowd = rules.arrival(
        {"assignmentId": "A1", "workerId": "W1", "hitId": "H1", "turkSubmitTo": "https://www.mturk.com"}
    )
    assert crowd == rules.Arrival(
        rules.CROWD_WORK, assignment_id="A1", worker_id="W1", hit_id="H1", submit_to="https://www.mturk.com"
    )
    preview = rules.arrival({"assignmentId": rules.ASSIGNMENT_NOT_AVAILABLE, "turkSubmitTo": "javascript:alert(1)"})
    assert preview.assignment_id is None and preview.submit_to is None
    panel = rules.arrival({"panel": "cint", "rid": "R1", "sig": "x", "assignmentId": "A1"})
    assert panel.partner == rules.PANEL and panel.rid == "R1" and not panel.malformed
    assert rules.arrival({"sig": "x"}).malformed
    assert rules.arrival({"panel": "cint", "rid": "<script>"}).malformed


def test_the_research_service_answer_is_read_as_the_spec_shapes_it():
    yes = rules.read_invite_check({"screenerResponseData": {"firstName": "Ada"}, "isInvited": True, "errors": []})
    assert yes.invited and yes.data == {"firstName": "Ada"} and yes.errors == ()
    no = rules.read_invite_check({"screenerResponseData": None, "isInvited": False, "errors": []})
    assert not no.invited and rules.refusal_text(no) == "You are not invited to participate to this test."
    broken = rules.read_invite_check({"isInvited": "true", "errors": [{"message": "Project closed"}]})
    assert not broken.invited  # only a real true admits
    assert rules.refusal_text(broken) == "An error occurred. Project closed"
    assert not rules.read_invite_check(["isInvited", True]).invited


def test_outcomes_of_blocked_panel_entrants_and_exit_parameters():
    assert rules.outcome_for_state("limit-reached") == rules.OVER_QUOTA
    assert rules.outcome_for_state("seniority-capacity-full") == rules.OVER_QUOTA
    assert rules.outcome_for_state("ok") is None
    params = rules.exit_params(outcome=rules.COMPLETE, rid="R1", test_id=7, timestamp=1)
    assert params == {"outcome": "complete", "rid": "R1", "test": "7", "ts": "1"}
    with pytest.raises(ValueError):
        rules.exit_params(outcome="done", rid="R1", test_id=7, timestamp=1)
    assert set(rules.OUTCOME_LABELS) == set(rules.OUTCOMES)


def test_callbacks_back_off_to_an_hour_and_are_retried_for_over_a_day():
    delays = [rules.callback_delay(n).total_seconds() for n in range(1, rules.CALLBACK_MAX_ATTEMPTS + 1)]
    assert delays[:3] == [30, 60, 120] and max(delays) == 3600
    assert sum(delays) > 24 * 3600


def test_payloads_name_what_each_partner_needs():
    entry = {"project_id": "p1", "screener_response_id": "sr-9", "panel": "cint", "rid": "R1"}
    assert rules.callback_payload(partner=rules.RESPONDENT, outcome="complete", entry=entry, test_id=3) == {
        "event": "participant.completed",
        "projectId": "p1",
        "screenerResponseId": "sr-9",
        "testId": 3,
        "status": "complete",
    }
    assert rules.callback_payload(partner=rules.PANEL, outcome="overquota", entry=entry, test_id=3) == {
        "event": "panel.outcome",
        "panel": "cint",
        "rid": "R1",
        "testId": 3,
        "outcome": "overquota",
    }


def _settings(**values):
    import dataclasses

    from portal.settings import settings

    blank = {
        "respondent_api_key": "",
        "respondent_api_url": "",
        "panel_exchange_secret": "",
        "panel_exchange_name": "cint",
        "panel_exchange_exit_url": "",
        "panel_exchange_callback_url": "",
    }
    return dataclasses.replace(settings, **{**blank, **values})


def test_the_stand_ins_stand_in_only_on_loopback_for_what_is_not_configured():
    from portal.services.providers.partners import panel_exchange, research_service

    local = _settings(base_url="http://localhost:3000")
    assert local.local_respondent_active and local.local_panel_active
    assert local.respondent_api_url == "http://localhost:3000/local-respondent/api/v1"
    assert local.panel_exchange_name == "local-panel" and len(local.panel_exchange_secret) >= 32
    assert local.panel_exchange_exit_url == "http://localhost:3000/local-panel/exit"
    assert research_service(local) is not None and panel_exchange(local) is not None

    public = _settings(base_url="https://portal.example.com")
    assert not public.local_respondent_active and not public.local_panel_active
    assert research_service(public) is None and panel_exchange(public) is None  # nobody is admitted: fail closed

    configured = _settings(
        base_url="http://localhost:3000",
        respondent_api_url="https://api.example.com/v1",
        respondent_api_key="k",
        panel_exchange_secret="s",
    )
    assert not configured.local_respondent_active and not configured.local_panel_active
    assert configured.panel_exchange_name == "cint"
