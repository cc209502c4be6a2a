"""The quality flags' rules (issue 36), each with its edge cases; and the registry."""

from __future__ import annotations

import pytest

from portal.domain.quality import flags as q
from portal.domain.quality.evidence import Evidence, Grid, History, TextAnswer
from portal.domain.quality.flags import Context, context_of, duration, flags_for
from portal.domain.quality.medians import TOTAL, Median

HONEST = "We compared three vendors over a month and picked the one our analysts could learn fastest."


def ctx(total: float | None = 540.0, **per_question: float) -> Context:
    table = {TOTAL: Median(total, 5)} if total is not None else {}
    table.update({f"question:{k}": Median(v, 5) for k, v in per_question.items()})
    return Context(medians=table)


def text(value: str = HONEST, **kw) -> TextAnswer:
    return TextAnswer(kw.pop("key", "why"), kw.pop("question", "Why did you choose it?"), value, **kw)


def keys(item: Evidence, context: Context | None = None) -> list[str]:
    return [f.key for f in flags_for(item, context or ctx())]


def one(item: Evidence, key: str, context: Context | None = None) -> q.Flag:
    (found,) = [f for f in flags_for(item, context or ctx()) if f.key == key]
    return found


def test_an_honest_review_has_no_flag():
    item = Evidence(1, 500.0, texts=(text(typing=30, leaves=0, away=0, min_words=15),))
    assert flags_for(item, ctx()) == []


# --- speeder ----------------------------------------------------------------------------------------------


def test_a_speeder_is_flagged_with_the_value_and_the_median():
    found = one(Evidence(1, 43.0), "speeder", ctx(550.0))
    assert found.label == "Finished in 43 s — the median is 9 min 10 s (under a quarter)"
    assert (found.value, found.median) == (43.0, 550.0)
    assert 5 < found.strength <= 6


def test_speeder_exactly_at_the_threshold_is_not_flagged():
    assert "speeder" not in keys(Evidence(1, 135.0), ctx(540.0))
    assert "speeder" in keys(Evidence(1, 134.9), ctx(540.0))


def test_no_median_yet_or_no_time_is_no_speeder():
    assert keys(Evidence(1, 1.0), ctx(None)) == []
    assert keys(Evidence(1, None), ctx()) == []
    assert keys(Evidence(1, 0.0), ctx(0.0)) == []


def test_one_review_alone_has_no_median():
    only = Evidence(1, 3.0)
    assert keys(only, context_of([only])) == []


@pytest.mark.parametrize(
    ("seconds", "said"), [(0, "0 s"), (59.6, "1 min"), (550, "9 min 10 s"), (3600, "1 h"), (3900, "1 h 5 min")]
)
def test_durations_read_plainly(seconds, said):
    assert duration(seconds) == said


# --- pasted -----------------------------------------------------------------------------------------------


def test_a_mostly_pasted_answer_is_flagged_with_the_share_of_all_text():
    item = Evidence(1, 500.0, texts=(text("x" * 100, pasted=90), text("y" * 100, key="b")))
    found = one(item, "pasted")
    assert found.label == "Pasted 45% of the typed text (90 of 200 characters); 1 answer mostly pasted"
    assert found.value == pytest.approx(0.45)


def test_paste_at_the_threshold_and_small_pastes():
    assert "pasted" in keys(Evidence(1, 500.0, texts=(text("x" * 40, pasted=20),)))  # half, 20 characters
    assert "pasted" not in keys(Evidence(1, 500.0, texts=(text("x" * 41, pasted=20),)))  # under half
    assert "pasted" not in keys(Evidence(1, 500.0, texts=(text("x" * 30, pasted=19),)))  # a name, a link
    assert "pasted" not in keys(Evidence(1, 500.0, texts=(text("", pasted=50),)))  # pasted, then deleted


def test_pasted_more_than_the_final_text_counts_the_text_at_most():
    found = one(Evidence(1, 500.0, texts=(text("x" * 50, pasted=400),)), "pasted")
    assert found.value == 1.0 and "(50 of 50 characters)" in found.label


# --- left the tab -----------------------------------------------------------------------------------------


def test_leaving_the_tab_twice_for_half_a_minute_is_flagged():
    item = Evidence(1, 500.0, texts=(text(leaves=1, away=20), text(key="b", leaves=1, away=10)))
    assert one(item, "left-tab").label == "Left the tab 2 times during 2 text answers, 30 s away"


def test_one_interruption_or_short_glances_are_no_flag():
    assert "left-tab" not in keys(Evidence(1, 500.0, texts=(text(leaves=1, away=300),)))
    assert "left-tab" not in keys(Evidence(1, 500.0, texts=(text(leaves=4, away=29),)))


def test_leaving_the_tab_not_measured_is_no_flag():
    assert keys(Evidence(1, 500.0, texts=(text(),))) == []


# --- straight-lining --------------------------------------------------------------------------------------


def test_the_same_column_on_every_row_of_a_matrix_is_flagged():
    found = one(Evidence(1, 500.0, grids=(Grid("m", "Agree?", ("agree",) * 3),)), "straight-lining")
    assert found.label == "The same answer ('agree') on every row of 'Agree?' (3 rows)"


def test_two_rows_or_one_different_row_is_no_straight_lining():
    assert keys(Evidence(1, 500.0, grids=(Grid("m", "Agree?", ("agree",) * 2),))) == []
    assert keys(Evidence(1, 500.0, grids=(Grid("m", "Agree?", ("agree", "agree", "neutral")),))) == []


def test_a_matrix_answered_at_a_normal_pace_is_not_straight_lining():
    grid = Grid("m", "Agree?", ("agree",) * 5, seconds=20.0)
    assert keys(Evidence(1, 500.0, grids=(grid,)), ctx(m=40.0)) == []  # half the median: not under it
    rushed = Grid("m", "Agree?", ("agree",) * 5, seconds=8.0)
    found = one(Evidence(1, 500.0, grids=(rushed,)), "straight-lining", ctx(m=40.0))
    assert found.label.endswith("(5 rows) in 8 s — the median is 40 s") and found.median == 40.0


def test_rating_questions_on_one_scale_count_from_five():
    four = Grid("ratings", "4 rating questions", ("3",) * 4, ratings=True)
    five = Grid("ratings", "5 rating questions", ("3",) * 5, ratings=True)
    assert keys(Evidence(1, 500.0, grids=(four,))) == []
    assert keys(Evidence(1, 500.0, grids=(five,))) == ["straight-lining"]


# --- the same text ----------------------------------------------------------------------------------------


def test_a_copy_is_flagged_on_the_later_review_only():
    first = Evidence(1, 500.0, texts=(text(HONEST),))
    later = Evidence(2, 500.0, texts=(text("  " + HONEST.upper().replace(" ", "  ") + "!! ", key="other"),))
    context = context_of([first, later])
    assert keys(first, context) == []
    found = one(later, "copied", context)
    assert found.label == "The same text as review #1" and found.value == 100.0


def test_nearly_the_same_text_says_how_alike():
    first = Evidence(1, 500.0, texts=(text(HONEST),))
    later = Evidence(2, 500.0, texts=(text(HONEST.replace("three", "four")),))
    found = one(later, "copied", context_of([first, later]))
    assert found.label.startswith("Nearly the same text (") and found.label.endswith("% alike) as review #1")


def test_repeated_answers_within_one_review_are_their_own_flag():
    item = Evidence(1, 500.0, texts=(text(HONEST), text(HONEST, key="b", question="What else?")))
    found = one(item, "repeated", context_of([item]))
    assert found.label == "The same text for two questions: 'Why did you choose it?' and 'What else?'"
    assert "copied" not in keys(item, context_of([item]))


# --- text repeating the question --------------------------------------------------------------------------


def test_an_answer_repeating_its_question_is_flagged():
    item = Evidence(1, 500.0, texts=(text("why did you choose it", question="Why did you choose it?"),))
    found = one(item, "echo")
    assert found.label == "An answer repeats its question 'Why did you choose it?' (100% alike)"


def test_an_answer_using_some_words_of_the_question_or_empty_is_no_echo():
    assert keys(Evidence(1, 500.0, texts=(text("I chose it because it was cheap and fast to set up"),))) == []
    assert keys(Evidence(1, 500.0, texts=(text("   "),))) == []


# --- far below the word minimum ---------------------------------------------------------------------------


def test_an_answer_padded_with_few_different_words_is_flagged():
    padded = " ".join(["good"] * 15)
    found = one(Evidence(1, 500.0, texts=(text(padded, min_words=15),)), "too-short")
    assert found.label == "1 answer far below the 15-word minimum (fewest: 1 different word)"


def test_the_word_minimum_threshold_and_unlimited_or_empty_answers():
    seven = "one two three four five six seven"
    eight = seven + " eight"
    assert "too-short" in keys(Evidence(1, 500.0, texts=(text(seven, min_words=15),)))
    assert "too-short" not in keys(Evidence(1, 500.0, texts=(text(eight, min_words=15),)))  # 8 is not under 7.5
    assert "too-short" not in keys(Evidence(1, 500.0, texts=(text(seven),)))  # not limited
    assert "too-short" not in keys(Evidence(1, 500.0, texts=(text(" ", min_words=15),)))  # not answered


# --- earlier decisions ------------------------------------------------------------------------------------


def test_earlier_decisions_are_informational_and_weakest():
    item = Evidence(1, 10.0, history=History(approved=4, excluded=2, rejected=1))
    found = flags_for(item, ctx())
    assert [f.key for f in found] == ["speeder", "earlier-decisions"]
    assert found[1].label == "Earlier reviews: 1 rejected, 2 excluded, 4 approved" and found[1].strength < 2
    assert keys(Evidence(1, 500.0, history=History(approved=9))) == []


# --- the registry -----------------------------------------------------------------------------------------


def test_every_map_comes_from_the_one_registry():
    assert q.KEYS == tuple(r.key for r in q.RULES) and len(set(q.KEYS)) == len(q.KEYS)
    assert set(q.TITLES) == set(q.WEIGHTS) == set(q.BY_KEY) == set(q.KEYS)


def test_flags_are_sorted_by_strength():
    item = Evidence(
        1,
        10.0,
        texts=(text("x" * 100, pasted=100, leaves=3, away=100),),
        history=History(rejected=1),
        grids=(Grid("m", "Agree?", ("a",) * 4),),
    )
    found = flags_for(item, ctx())
    assert [f.key for f in found] == ["speeder", "pasted", "left-tab", "straight-lining", "earlier-decisions"]
    assert [f.strength for f in found] == sorted((f.strength for f in found), reverse=True)


def test_no_rule_reads_a_text_classifier_score():
    assert not any("score" in r.key or "ai" in r.key.split("-") for r in q.RULES)
