"""The notifications registry, the unsubscribe token and the notification e-mails' texts (issue 38)."""

from __future__ import annotations

from portal.domain import emails
from portal.domain import notifications as rules
from portal.services import notification_tokens as tokens

SECRET = "s" * 32


def test_every_kind_of_the_issue_is_in_the_registry_once_with_a_label():
    assert rules.KEYS == (
        "invite",
        "invite-reminder",
        "verified",
        "review-rejected",
        "review-approved",
        "reward-sent",
        "reward-failed",
        "message",
    )
    assert set(rules.LABELS) == set(rules.KEYS) == set(rules.BY_KEY)
    assert all(label.strip() for label in rules.LABELS.values())
    assert rules.OPTIONAL == {k.key for k in rules.KINDS if k.optional}


def test_only_kinds_of_the_registry_can_be_turned_off():
    assert rules.can_turn_off("invite")
    assert not rules.can_turn_off("reset-password")
    assert not rules.can_turn_off(None)
    assert rules.subject_key("invite", 12) == "invite:12"


def test_a_token_names_its_account_and_kind_and_reads_back():
    token = tokens.make(42, "invite", secret=SECRET)
    assert tokens.read(token, secret=SECRET) == (42, "invite")
    assert tokens.make(43, "invite", secret=SECRET) != token
    assert tokens.make(42, "reward-sent", secret=SECRET) != token


def test_a_token_signed_with_another_key_or_altered_is_refused():
    token = tokens.make(42, "invite", secret=SECRET)
    assert tokens.read(token, secret="other" * 8) is None
    payload, _, signature = token.rpartition(".")
    forged = tokens.make(43, "invite", secret="other" * 8).rpartition(".")[0] + "." + signature
    assert tokens.read(forged, secret=SECRET) is None
    assert tokens.read(token[:-2] + ("AA" if token[-2:] != "AA" else "BB"), secret=SECRET) is None
    assert tokens.read("", secret=SECRET) is None
    assert tokens.read(None, secret=SECRET) is None
    assert tokens.read("x" * 600, secret=SECRET) is None


def test_a_signed_token_naming_a_kind_outside_the_registry_is_refused():
    from itsdangerous import URLSafeSerializer

    odd = URLSafeSerializer(SECRET, salt=rules.TOKEN_SALT).dumps([42, "reset-password"])
    assert tokens.read(odd, secret=SECRET) is None
    wrong_shape = URLSafeSerializer(SECRET, salt=rules.TOKEN_SALT).dumps({"a": 42})
    assert tokens.read(wrong_shape, secret=SECRET) is None


def test_the_invite_reads_like_a_person_wrote_it():
    mail = emails.test_invite(
        brand="Portal",
        test_label="Landing page",
        payout="$20",
        link="https://p.example/test/3/rate",
        hours=24,
        minutes=15,
        settings_link="https://p.example/notifications",
    )
    assert "a paid Landing page" not in mail.body
    assert "a Landing page test that pays $20" in mail.body
    assert "15 minutes" in mail.body
    assert "open for 24 hours" in mail.body
    assert "https://p.example/test/3/rate" in mail.body
    assert "https://p.example/notifications" in mail.body
    assert mail.subject == "A new paid test for you: Landing page, $20"
    assert emails.test_invite(brand="P", test_label="Email", payout="$5", link="l", hours=24).body.count("an Email")


def test_a_rejection_says_why_and_how_to_appeal():
    mail = emails.review_rejected(
        brand="Portal",
        test_label="Survey",
        reason="Low effort answers",
        note="Two words each.",
        link="L",
        settings_link="S",
    )
    assert "The reason: Low effort answers." in mail.body
    assert "Two words each." in mail.body
    assert "appeal" in mail.body
    assert "S" in mail.body


def test_the_other_notifications_name_what_happened():
    assert (
        "ends in about 3 hours"
        in emails.invite_reminder(
            brand="P", test_label="Survey", payout="$9", link="L", hours_left=3, settings_link="S"
        ).body
    )
    assert (
        "less than an hour"
        in emails.invite_reminder(
            brand="P", test_label="Survey", payout="$9", link="L", hours_left=0, settings_link="S"
        ).body
    )
    assert "verified" in emails.account_verified(brand="P", link="L", settings_link="S").subject
    assert (
        "$12" in emails.review_approved(brand="P", test_label="Survey", payout="$12", link="L", settings_link="S").body
    )
    sent = emails.reward_sent(
        brand="P", payout="$12", what="the Survey test", email="a@b.c", link="L", settings_link="S"
    )
    assert "a@b.c" in sent.body and "$12" in sent.subject
    failed = emails.reward_failed(
        brand="P", payout="$12", what="the Survey test", reason="bad address", link="L", settings_link="S"
    )
    assert "bad address" in failed.body and "could not send" in failed.subject
