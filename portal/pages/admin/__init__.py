"""The staff pages at /admin (issue 15): each behind the staff guard (portal/components/admin.py)."""
