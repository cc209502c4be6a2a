"""The same or nearly the same text in two reviews of a test (issue 36), scored by rapidfuzz.

Texts are compared normalised (Unicode NFKC, case folded, punctuation dropped, whitespace collapsed); texts
shorter than MIN_CHARS once normalised are ignored (a job title or 'No' is the same in many honest reviews).
Comparing every pair is quadratic (10,000 reviews: 50 million pairs, half a minute), so the same text is grouped
first (no comparison), and candidates come from a bottom-k sketch of each text's runs of four words: two texts are
compared only when they share one of their K smallest shingle hashes, which nearly identical texts almost always
do. Shingles found in more than 0.2 % of the texts (at least 32) are common phrases and left out of the sketches,
so that no bucket grows with the test. The score itself is rapidfuzz's
`fuzz.ratio` (0-100, the normalised Indel similarity), kept when at least SIMILAR.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from portal.domain.quality.evidence import Evidence

MIN_CHARS = 40
SIMILAR = 90.0
SHINGLE = 4  # words
K = 8  # the smallest hashes of a text's shingles that find its candidates
MIN_COMMON, COMMON_SHARE = 32, 0.002  # a shingle in more texts than this is a common phrase: no candidate key
_PUNCTUATION = re.compile(r"[^\w\s]+")


def normalised(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_PUNCTUATION.sub(" ", folded).split())


@dataclass(frozen=True)
class Copy:
    review_id: int  # the other review
    key: str  # this review's answer
    other_key: str  # the other review's answer
    score: float  # 0-100


def _shingles(text: str) -> set[int]:
    """The hashes of the text's runs of SHINGLE words (the whole text when shorter)."""
    words = text.split()
    grams = {" ".join(words[i : i + SHINGLE]) for i in range(max(1, len(words) - SHINGLE + 1))}
    return {int.from_bytes(hashlib.blake2b(g.encode(), digest_size=8).digest(), "big") for g in grams}


def copies(evidence: Iterable[Evidence]) -> dict[int, Copy]:
    """Each review's closest text in an earlier review of the test (a smaller id), when at least SIMILAR alike:
    the later of two alike reviews is flagged, the first one written is not."""
    groups: dict[str, list[tuple[int, str]]] = {}  # normalised text -> (review id, answer key) that wrote it
    for item in evidence:
        for answer in item.texts:
            text = normalised(answer.text)
            if len(text) >= MIN_CHARS:
                groups.setdefault(text, []).append((item.review_id, answer.key))
    best: dict[int, Copy] = {}
    texts = list(groups)
    for text in texts:  # the same text: every pair of its writers, without comparing
        _pair(best, groups[text], groups[text], 100.0)
    shingles = [_shingles(text) for text in texts]
    frequency: dict[int, int] = {}
    for found in shingles:
        for h in found:
            frequency[h] = frequency.get(h, 0) + 1
    common = max(MIN_COMMON, int(COMMON_SHARE * len(texts)))
    buckets: dict[int, list[int]] = {}
    sketches = []
    for index, found in enumerate(shingles):
        sketch = sorted(h for h in found if frequency[h] <= common)[:K]
        sketches.append(sketch)
        for h in sketch:
            buckets.setdefault(h, []).append(index)
    for index, text in enumerate(texts):
        candidates = sorted({other for h in sketches[index] for other in buckets[h] if other > index})
        if not candidates:
            continue
        matches = process.extract(
            text, [texts[c] for c in candidates], scorer=fuzz.ratio, score_cutoff=SIMILAR, limit=None
        )
        for _, score, position in matches:
            _pair(best, groups[text], groups[texts[candidates[position]]], score)
    return best


def _pair(best: dict[int, Copy], writers: list[tuple[int, str]], others: list[tuple[int, str]], score: float) -> None:
    """The later review of each pair (the greater id: ids grow in the order reviews are submitted) gets the
    earlier one as its copy, kept when closer than the one it has."""
    for review, key in writers:
        for other_review, other_key in others:
            if other_review < review:
                _keep(best, review, Copy(other_review, key, other_key, score))
            elif other_review > review:
                _keep(best, other_review, Copy(review, other_key, key, score))


def _keep(best: dict[int, Copy], review: int, found: Copy) -> None:
    now = best.get(review)
    if now is None or (found.score, -found.review_id) > (now.score, -now.review_id):
        best[review] = found


def repeated(texts: Iterable[tuple[str, str]]) -> tuple[str, str, float] | None:
    """Two answers of one review with the same or nearly the same text: (key, other key, score), the closest."""
    found = [(key, normalised(text)) for key, text in texts]
    found = [(key, text) for key, text in found if len(text) >= MIN_CHARS]
    best: tuple[str, str, float] | None = None
    for i, (key, text) in enumerate(found):
        for other_key, other_text in found[i + 1 :]:
            score = fuzz.ratio(text, other_text, score_cutoff=SIMILAR)
            if score and (best is None or score > best[2]):
                best = (key, other_key, score)
    return best
