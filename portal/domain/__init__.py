"""Pure rules of the spec: no Reflex, no database session, no I/O."""
