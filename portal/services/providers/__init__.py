"""External providers the portal pays or calls through, each behind one interface (payouts: `payouts`)."""
