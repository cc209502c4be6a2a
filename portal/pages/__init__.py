"""Pages: one module per route group, components bound to states."""
