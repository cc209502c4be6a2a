"""Quality flags of a review (issue 36): pure rules over its evidence; see flags.py for the entry points."""
