"""The same or nearly the same text in two reviews (issue 36): rapidfuzz's score over normalised text, with
candidates found without comparing every pair; and the labelled set the bench reads."""

from __future__ import annotations

from collections import Counter

from portal.domain.quality.copies import MIN_CHARS, copies, normalised, repeated
from portal.domain.quality.evidence import Evidence, TextAnswer, evidence_of
from portal.domain.quality.flags import context_of, flags_for
from tests.support.quality_set import QUESTIONS, labelled_set

TEXT = "Our analysts wanted the warehouse connector more than anything else during the trial."


def review(review_id: int, *texts: str) -> Evidence:
    return Evidence(review_id, 100.0, texts=tuple(TextAnswer(f"q{i}", f"Q{i}?", t) for i, t in enumerate(texts)))


def test_unicode_case_punctuation_and_whitespace_do_not_hide_a_copy():
    assert (
        normalised("Ｏｕｒ  ANALYSTS\u00a0wanted\n the\tconnector — really!")
        == "our analysts wanted the connector really"
    )
    disguised = "  " + TEXT.upper().replace(" ", "\u00a0 ").replace("'", "\u2019") + " !!"
    found = copies([review(1, TEXT), review(2, disguised)])
    assert list(found) == [2] and found[2].review_id == 1 and found[2].score == 100.0


def test_short_texts_are_ignored():
    short = "Head of data at a mid-size company"  # the same job title in many honest reviews
    assert len(normalised(short)) < MIN_CHARS
    assert copies([review(1, short), review(2, short)]) == {}


def test_empty_texts_and_a_single_review_have_no_copy():
    assert copies([review(1, "", "   ")]) == {}
    assert copies([review(1, TEXT)]) == {}
    assert copies([]) == {}


def test_different_texts_on_one_topic_are_not_copies():
    other = "Finance kept asking about the price per seat once we passed forty users in March."
    assert copies([review(1, TEXT), review(2, other)]) == {}


def test_a_copy_under_another_question_is_found_and_the_closest_source_kept():
    edited = TEXT.replace("analysts", "analyst")
    found = copies([review(1, "something else entirely, nothing alike at all here", TEXT), review(5, edited)])
    assert found[5].review_id == 1 and found[5].key == "q0" and found[5].other_key == "q1"
    assert 90 <= found[5].score < 100


def test_repeated_answers_of_one_review():
    assert repeated([("a", TEXT), ("b", TEXT.lower() + ".")]) == ("a", "b", 100.0)
    assert repeated([("a", TEXT), ("b", "A different answer about the pricing page and its tiers.")]) is None
    assert repeated([("a", "Same short"), ("b", "Same short")]) is None


def test_the_labelled_set_is_seeded_and_every_copy_is_caught_on_a_small_set():
    first, again = labelled_set(200, 20, seed=5), labelled_set(200, 20, seed=5)
    assert first == again
    assert Counter(r.kind for r in first) == {
        "honest": 200,
        "speeder": 20,
        "paster": 20,
        "tab-leaver": 20,
        "straight-liner": 20,
        "copied-text": 20,
    }
    evidence = [evidence_of(r.review_id, r.answers, r.signals, QUESTIONS, seconds=r.seconds) for r in first]
    context = context_of(evidence)
    flagged = {item.review_id: {f.key for f in flags_for(item, context)} for item in evidence}
    copied = [r for r in first if r.kind == "copied-text"]
    assert all("copied" in flagged[r.review_id] for r in copied)
    honest = [r for r in first if r.kind == "honest"]
    assert sum(1 for r in honest if flagged[r.review_id]) <= 4  # about 1 %; the bench measures it on 2,000
