"""What the REST API reads and writes beyond the staff services it shares with the pages: typed lists with keyset
pages, the answers of idempotent writes, webhook subscriptions. Every function starts with `require_staff`."""
