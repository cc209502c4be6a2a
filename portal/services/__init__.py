"""Use cases over a database session. Keyword-only functions; typed errors carry the user-facing message."""
