"""Reflex states: thin; each handler reads input, calls one service, stores small results."""
