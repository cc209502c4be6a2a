"""The screens of taking a test: one module per kind, and the pieces every kind shows (questions,
the countdown and browser bridge, the worker-details step, the thank-you)."""
