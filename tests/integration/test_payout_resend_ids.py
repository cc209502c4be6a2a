"""'Send again' (payout_requests.resend_claim) with whatever a browser may send as the reward id, on SQLite and
PostgreSQL: anything but the id of the caller's own failed reward is 'This reward does not exist.' (a huge number
once overflowed the database's integer, '²' failed int(): errors instead of the message), and nothing changes."""

from __future__ import annotations

import pytest
from sqlmodel import select

from portal.domain import payouts as rules
from portal.models import Reward
from portal.services import payout_requests
from portal.services.errors import ServiceError
from tests.integration.test_admin_services import fresh, person


@pytest.mark.parametrize(
    "sent", [None, [], {"id": 1}, True, -1, 0, 1.5, 2**31, 2**63, 10**30, "999999999999", "\u00b2", "1e3", "x" * 5000]
)
def test_a_reward_id_out_of_range_or_not_a_number_is_no_reward(session, sent):
    owner = person(session)
    session.commit()
    with pytest.raises(ServiceError) as refused:
        payout_requests.resend_claim(session, account_id=owner.id, reward_id=sent)
    assert refused.value.message == rules.NOT_YOURS
    session.rollback()
    assert session.exec(select(Reward).where(Reward.account_id == owner.id)).all() == []


def test_someone_elses_failed_reward_is_no_reward_and_stays_as_it_was(session):
    owner, other = person(session), person(session)
    reward = Reward(account_id=owner.id, amount_cents=1500, status="FAILED", kind="review", payout=rules.FAILED)
    session.add(reward)
    session.commit()
    for sent in (reward.id, str(reward.id)):
        with pytest.raises(ServiceError) as refused:
            payout_requests.resend_claim(session, account_id=other.id, reward_id=sent)
        assert refused.value.message == rules.NOT_YOURS
    row = fresh(session, Reward, reward.id)
    assert (row.payout, row.status, row.attempts) == (rules.FAILED, "FAILED", 0)
