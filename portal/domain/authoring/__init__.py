"""Authoring tests without JSON: the question kinds, the document edits and what the builder shows."""
