"""The quality flags on the labelled set (issue 36, item 5): how many reviews of each kind every flag raises.

    .venv/bin/python bench/flags.py                          # 2,000 honest and 200 of each other kind
    .venv/bin/python bench/flags.py --honest 10000 --others 0  # the time for 10,000 reviews of one test
    .venv/bin/python bench/flags.py --seed 7                 # another draw of the set

The set (tests/support/quality_set.py) is made as the database stores reviews (answers, signals, total seconds);
each review is read with `evidence_of`, the test's context made once with `context_of`, and each review's flags
with `flags_for`. Printed: per flag, the reviews of each kind it flags (count and share), the false-flag rate on
honest reviews (any flag, and per flag), the kinds caught by their own flag, and the time of each step.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from portal.domain.quality.evidence import evidence_of
from portal.domain.quality.flags import KEYS, context_of, flags_for
from tests.support.quality_set import KINDS, QUESTIONS, labelled_set

OWN_FLAG = {
    "speeder": "speeder",
    "paster": "pasted",
    "tab-leaver": "left-tab",
    "straight-liner": "straight-lining",
    "copied-text": "copied",
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--honest", type=int, default=2000)
    parser.add_argument("--others", type=int, default=200)
    parser.add_argument("--seed", type=int, default=36)
    args = parser.parse_args()

    started = time.perf_counter()
    reviews = labelled_set(args.honest, args.others, args.seed)
    made = time.perf_counter()
    evidence = [evidence_of(r.review_id, r.answers, r.signals, QUESTIONS, seconds=r.seconds) for r in reviews]
    read = time.perf_counter()
    context = context_of(evidence)
    contextual = time.perf_counter()
    flags = [{f.key for f in flags_for(item, context)} for item in evidence]
    flagged = time.perf_counter()

    kinds = [k for k in KINDS if any(r.kind == k for r in reviews)]
    totals = {k: sum(1 for r in reviews if r.kind == k) for k in kinds}
    print(f"{len(reviews)} reviews: " + ", ".join(f"{totals[k]} {k}" for k in kinds))
    print()
    print("| flag | " + " | ".join(kinds) + " |")
    print("| --- | " + " | ".join("---:" for _ in kinds) + " |")
    for key in KEYS:
        cells = []
        for kind in kinds:
            n = sum(1 for r, found in zip(reviews, flags, strict=True) if r.kind == kind and key in found)
            cells.append(f"{n} ({100 * n / totals[kind]:.1f} %)")
        print(f"| {key} | " + " | ".join(cells) + " |")
    any_cells = []
    for kind in kinds:
        n = sum(1 for r, found in zip(reviews, flags, strict=True) if r.kind == kind and found)
        any_cells.append(f"{n} ({100 * n / totals[kind]:.1f} %)")
    print("| any flag | " + " | ".join(any_cells) + " |")
    print()
    if "honest" in totals:
        honest = [found for r, found in zip(reviews, flags, strict=True) if r.kind == "honest"]
        rate = 100 * sum(1 for found in honest if found) / len(honest)
        print(f"False-flag rate on honest reviews (any flag): {rate:.2f} % (goal: at most 1 %)")
    for kind, key in OWN_FLAG.items():
        if kind in totals:
            n = sum(1 for r, found in zip(reviews, flags, strict=True) if r.kind == kind and key in found)
            print(f"{kind} caught by '{key}': {100 * n / totals[kind]:.1f} %")
    print()
    print(
        f"Time: set made {made - started:.2f} s, evidence read {read - made:.2f} s, "
        f"context (medians and shared texts) {contextual - read:.2f} s, flags {flagged - contextual:.2f} s; "
        f"rules in all {flagged - made:.2f} s for {len(reviews)} reviews"
    )


if __name__ == "__main__":
    main()
