"""Clearing expired pending reviews (the spec's three messages).

A pending review is a started test (review session) that was neither submitted nor given up. It is
expired once its deadline has passed; clearing marks it 'cleared', so the participant can start
again while the invite is open.
"""

CLEARED = "Pending reviews successfully cleared."
NONE_TO_CLEAR = "There are no expired pending reviews to clear."
CLEAR_FAILED = "Error clearing expired pending reviews."
