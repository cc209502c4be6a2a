"""Taking a test over a database session: opening the rating page, the access decision behind every
step, the review session with its deadline, drafts and the one submission, the screener, the
worker look-up and the definitions as the screens need them."""
