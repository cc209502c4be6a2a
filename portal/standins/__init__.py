"""Real stand-ins of external providers on loopback, for `make run` and the tests (payouts: `tremendous`).
Each refuses to be built where it may not run (see portal/domain/payout_choice.py)."""
