"""Staff services behind /admin. Every public function takes the calling account's id and starts
with `require_staff(...)` for the permission it needs (portal/domain/staff/roles.py); every change
writes its audit row in the same transaction."""
