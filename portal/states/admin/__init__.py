"""States of the staff pages at /admin. Each calls a staff service with the caller's account id; the
service decides (services/admin/guard.py). `StaffState` only tells the pages what to show."""
