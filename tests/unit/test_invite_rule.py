"""The invite rule's quotas, payout and wording (portal/domain/staff/invite_rule.py)."""

from __future__ import annotations

from portal.domain.staff import incentives
from portal.domain.staff import invite_rule as rule


def test_quotas_admit_in_order_until_the_limits():
    quotas = rule.Quotas(places=3, level_places={"senior": 1})
    admitted = [quotas.admit(levels) for levels in (["senior"], ["senior"], ["middle", "senior"], [], ["specialist"])]
    # the second senior is over its level's limit; middle+senior fills no quota of 'middle' (no limit) but 'senior'
    assert admitted == [True, False, False, True, True]
    assert quotas.full and quotas.places == 0
    assert not quotas.admit([])


def test_no_quotas_admit_everyone():
    quotas = rule.Quotas(places=None)
    assert all(quotas.admit(levels) for levels in ([], ["senior"], None))
    assert not quotas.full


def test_room_left_by_reviews_and_open_invites():
    assert rule.open_places(None, 5) is None
    assert rule.open_places(4, 5) == 0 and rule.open_places(4, 1) == 3
    assert rule.level_room({"senior": 2, "middle": "x", "specialist": True}, {"senior": 3}) == {"senior": 0}
    assert rule.quota_holder_level(["middle", "senior"], {"senior"}) == "senior"


def test_an_invite_pays_the_override_or_the_table():
    assert rule.invite_cents("survey", ["senior"], incentives.DAY1, None) == 3500
    assert rule.invite_cents("survey", None, incentives.DAY2, None) == 1500
    assert rule.invite_cents("survey", ["senior"], incentives.DAY1, 4250) == 4250


def test_who_cannot_be_invited_is_said_in_the_rules_order():
    reasons = {rule.ELSEWHERE: 2, rule.INVITED: 1, rule.OVER_QUOTA: 0, rule.UNVERIFIED: 1}
    assert rule.cannot_invite_text(reasons, "Germany", picked=6) == (
        "4 of the 6 selected cannot be invited: 1 is already invited, 1 is not verified, 2 are not in Germany."
    )
    assert rule.cannot_invite_text({rule.OVER_QUOTA: 3}, "Germany", picked=0) == (
        "3 of those matching will not be invited: 3 would exceed the test's quotas."
    )
    assert rule.cannot_invite_text({rule.INVITED: 0}, "Germany", picked=2) == ""


def test_a_plan_sums_its_invites():
    plan = rule.Plan()
    for cents in (3500, 1000):
        plan.add(cents)
    assert (plan.count, plan.cents, plan.cost_text) == (2, 4500, "$45")
    assert rule.Plan().cost_text == "$0"
