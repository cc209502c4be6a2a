"""Rules of the staff side: roles and what each may do, incentives, review decisions, CSV cells.

Pure: no reflex, no database.
"""
